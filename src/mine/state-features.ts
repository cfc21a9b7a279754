import {
  type Action,
  type Element,
  elementAt,
  normalizeText,
  normalizeUrl,
  type Observation,
  type Trajectory,
  textTokens,
} from '../core/index.ts';

/**
 * Per-state features, computed once per trajectory so that comparing two runs (20 x 20 states, many
 * pairs per success) never re-tokenizes a page. Element and memory keys are interned to integers and
 * kept sorted, so set similarities are linear merges over small int arrays.
 */

/** Weight of an element outside the viewport in the element set: it is on the page but not in view. */
export const OUT_OF_VIEWPORT_WEIGHT = 0.5;

/**
 * Weight of a form control that holds a value or is ticked. What has been filled in is what tells
 * two visits of one form page apart, and a page has ~100 elements, so one differing field must
 * weigh more than one link to separate "before choosing House" from "after".
 */
export const FILLED_FIELD_WEIGHT = 4;

/** Query parameters that identify a session or a moment, not a state of the task. */
const VOLATILE_PARAM_RE = /^(sid|session|sessionid|token|ts|t|_|cb|nonce|rand)$/i;

/** Maps strings to small integers; shared by every trajectory compared in one mining run. */
export class Interner {
  private readonly ids = new Map<string, number>();
  // role -> raw label -> id: pages repeat their labels from step to step, so most elements skip
  // text normalization (the miner's hottest path) after their first sighting.
  private readonly elementIds = new Map<string, Map<string, number>>();
  private readonly urls = new Map<string, UrlParts>();

  id(s: string): number {
    let v = this.ids.get(s);
    if (v === undefined) {
      v = this.ids.size;
      this.ids.set(s, v);
    }
    return v;
  }

  /** The interned id of `elementKey(e)`, memoized on the element's raw role and label. */
  /** `state` is the element's fieldState (computed by the caller, which needs it too). */
  elementId(e: Element, state = fieldState(e)): number {
    const role = e.role || e.tag;
    let byLabel = this.elementIds.get(role);
    if (!byLabel) {
      byLabel = new Map();
      this.elementIds.set(role, byLabel);
    }
    const raw = `${rawLabel(e)}\u0000${state}`;
    let v = byLabel.get(raw);
    if (v === undefined) {
      v = this.id(elementKey(e));
      byLabel.set(raw, v);
    }
    return v;
  }

  /** The URL parts of a page, memoized per URL string: runs revisit the same pages. */
  url(url: string): UrlParts {
    let v = this.urls.get(url);
    if (!v) {
      const { path, host, segments, query } = splitUrl(url);
      v = { path, host, segments, query: uniqueSorted(query.map((q) => this.id(`q:${q}`))) };
      this.urls.set(url, v);
    }
    return v;
  }

  get size(): number {
    return this.ids.size;
  }
}

/** The normalized parts of a URL used by comparability. */
export interface UrlParts {
  path: string;
  host: string;
  segments: string[];
  query: Int32Array;
}

/** The features of one state (the observation before step `stepIndex`'s action). */
export interface StateFeatures {
  stepIndex: number;
  /** host + path, normalized. */
  urlPath: string;
  /** Normalized host ('' for relative URLs). */
  host: string;
  /** Path segments, for partial credit between sibling pages. */
  pathSegments: string[];
  /** Sorted interned ids of `key=value` query pairs (volatile params removed). */
  query: Int32Array;
  /** Sorted interned ids of `role|name` element keys, with summed weights aligned to them. */
  elementKeys: Int32Array;
  elementWeights: Float64Array;
  /** Sorted unique interned ids of memory tokens. */
  memory: Int32Array;
  /** Position in the run and subgoals completed before this step. */
  position: number;
  runLength: number;
  subgoals: number;
  /** URL path plus a hash of the element keys: "the same page" for loop detection. */
  fingerprint: string;
}

/** The precomputed view of one trajectory used by the miner. */
export interface TrajectoryFeatures {
  trajectory: Trajectory;
  states: StateFeatures[];
}

function uniqueSorted(ids: number[]): Int32Array {
  const a = Int32Array.from(new Set(ids));
  a.sort();
  return a;
}

function rawLabel(e: Element): string {
  return e.name || e.text || e.attributes['aria-label'] || e.attributes.placeholder || '';
}

/** The key an element contributes to the page's element set: its role (or tag) and normalized name. */
/**
 * What a form control holds: ticked, or its value. Two states of one form page that differ in what
 * has been filled in are different states (before and after choosing "House" in "Home type"), and
 * without this the aligner pairs a step with the neighbour of its true counterpart.
 */
function fieldState(e: Element): string {
  const a = e.attributes;
  if (a.checked !== undefined) return a.checked === 'true' ? 'checked' : '';
  const tag = e.tag.toLowerCase();
  const field =
    tag === 'input' ||
    tag === 'select' ||
    tag === 'textarea' ||
    /^(textbox|combobox|searchbox)$/.test(e.role);
  const value = a.selected ?? a.value;
  return field && value ? value.slice(0, 80) : '';
}

export function elementKey(e: Element, withState = true): string {
  const name = normalizeText(rawLabel(e));
  const state = withState ? fieldState(e) : '';
  const base = `${(e.role || e.tag).toLowerCase()}|${name.slice(0, 80)}`;
  return state ? `${base}|=${normalizeText(state)}` : base;
}

function splitUrl(url: string): { path: string; host: string; segments: string[]; query: string[] } {
  const norm = normalizeUrl(url);
  const q = norm.indexOf('?');
  const path = q >= 0 ? norm.slice(0, q) : norm;
  const query: string[] = [];
  if (q >= 0) {
    for (const [k, v] of new URLSearchParams(norm.slice(q + 1))) {
      if (!VOLATILE_PARAM_RE.test(k)) query.push(`${k}=${normalizeText(v)}`);
    }
  }
  const slash = path.indexOf('/');
  const segments = (slash >= 0 ? path.slice(slash + 1) : '').split('/').filter(Boolean);
  return { path, host: slash >= 0 ? path.slice(0, slash) : path, segments, query };
}

/** Action types that change the task's state when they succeed; scrolling and waiting do not. */
const STATE_CHANGING = new Set<Action['type']>([
  'click',
  'input',
  'select_dropdown',
  'navigate',
  'send_keys',
]);

/** A key identifying a state-changing action by what it did, not by an index that moves between pages. */
function subgoalKey(action: Action, obs: Observation): string | null {
  if (!STATE_CHANGING.has(action.type)) return null;
  switch (action.type) {
    case 'click':
    case 'input':
    case 'select_dropdown': {
      const e = elementAt(obs, action.index);
      const target = e ? e.attributes.href || elementKey(e, false) : `#${action.index}`;
      const arg = action.type === 'click' ? '' : normalizeText(action.text);
      return `${action.type}|${target}|${arg}`;
    }
    case 'navigate':
      return `navigate|${normalizeUrl(action.url, obs.url)}`;
    case 'send_keys':
      return `keys|${action.keys.toLowerCase()}|${normalizeUrl(obs.url)}`;
    default:
      return null;
  }
}

/** The memory the agent carries into a state: the observation's, or the previous step's output. */
function memoryAt(t: Trajectory, i: number): string {
  const m = t.steps[i].observation.memory;
  if (m) return m;
  return i > 0 ? t.steps[i - 1].output.memory : '';
}

function stringHash(keys: Int32Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < keys.length; i++) {
    h ^= keys[i];
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

/** Reused sort buffer for element sets (features are computed synchronously, one state at a time). */
let scratch = new Int32Array(256);

/**
 * The page's element multiset as sorted unique keys with summed weights. Keys are packed as
 * id * 4 + (holds a value ? 2 : 0) + (out of viewport ? 1 : 0) so one integer sort does the grouping
 * without a Map per state.
 */
function elementSet(
  elements: readonly Element[],
  interner: Interner,
): { keys: Int32Array; weights: Float64Array } {
  if (scratch.length < elements.length) scratch = new Int32Array(elements.length * 2);
  const packed = scratch.subarray(0, elements.length);
  for (let k = 0; k < elements.length; k++) {
    const e = elements[k];
    const state = fieldState(e);
    packed[k] = interner.elementId(e, state) * 4 + (state ? 2 : 0) + (e.inViewport ? 0 : 1);
  }
  packed.sort();
  let unique = 0;
  for (let k = 0; k < packed.length; k++) if (k === 0 || packed[k] >> 2 !== packed[k - 1] >> 2) unique++;
  const keys = new Int32Array(unique);
  const weights = new Float64Array(unique);
  let n = -1;
  for (let k = 0; k < packed.length; k++) {
    const id = packed[k] >> 2;
    const w = (packed[k] & 1 ? OUT_OF_VIEWPORT_WEIGHT : 1) * (packed[k] & 2 ? FILLED_FIELD_WEIGHT : 1);
    if (n >= 0 && keys[n] === id) weights[n] += w;
    else {
      keys[++n] = id;
      weights[n] = w;
    }
  }
  return { keys, weights };
}

/** Computes the features of every state of a trajectory. */
export function trajectoryFeatures(t: Trajectory, interner: Interner): TrajectoryFeatures {
  const n = t.steps.length;
  const states: StateFeatures[] = [];
  const done = new Set<string>();
  for (let i = 0; i < n; i++) {
    const step = t.steps[i];
    const obs = step.observation;
    const { path, host, segments, query } = interner.url(obs.url);
    const { keys: elementKeys, weights: elementWeights } = elementSet(obs.elements, interner);
    states.push({
      stepIndex: step.index,
      urlPath: path,
      host,
      pathSegments: segments,
      query,
      elementKeys,
      elementWeights,
      memory: uniqueSorted(textTokens(memoryAt(t, i)).map((w) => interner.id(`m:${w}`))),
      position: i,
      runLength: n,
      subgoals: done.size,
      fingerprint: `${path}#${stringHash(elementKeys)}`,
    });
    const key = step.result.error ? null : subgoalKey(step.action, obs);
    if (key) done.add(key);
  }
  return { trajectory: t, states };
}
