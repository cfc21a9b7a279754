import { type Action, isGiveUp } from '../core/action.ts';
import type { Element } from '../core/observation.ts';
import { ARGUMENT_TYPES, ELEMENT_TYPES, elementAllowed, POLICY_ACTION_TYPES } from './action-space.ts';
import { candidateDense, pairDense } from './candidate-features.ts';
import { type ArgCandidate, buildCandidates, candidateKey, SRC, taskParamWords } from './candidates.ts';
import {
  ELEMENT,
  type ElementInfo,
  elementAttrText,
  elementDense,
  elementInfos,
  selectElements,
  type TaskContext,
  taskContext,
} from './element-features.ts';
import { bit, FeatureLayout, type FeatureRecord } from './feature-layout.ts';
import { matchFeatures, PROGRESS_FEATURES, type ProgressFeature } from './match-features.ts';
import { hashText, hashToken, normalizeText, pathWords } from './text.ts';
import type { PolicyState } from './types.ts';

/**
 * The featurizer: PolicyState -> numbers. Only the task objective, the observation, the action
 * history and the memory are read (never the verifier or world internals). Bump FEATURIZER_VERSION
 * whenever the features of a state change: checkpoints record it and refuse to load across versions.
 */
export const FEATURIZER_VERSION = 9;

export interface FeaturizerConfig {
  /** Hash buckets of the token embedding table. */
  buckets: number;
  hashSeed: number;
  /** Elements kept per observation (most task-relevant first, then returned in index order). */
  maxElements: number;
  maxCandidates: number;
  maxNgram: number;
  maxOptionsPerSelect: number;
  maxPageCandidates: number;
  /** Token ids per bag: state texts, element texts, candidate texts. */
  maxTokensState: number;
  maxTokensElement: number;
  maxTokensCandidate: number;
  /** Earlier actions described in the history bag. */
  historyWindow: number;
  /**
   * Whether the memory text enters the state encoding. The offline agents (teacher and student)
   * write the same action memory (agent/memory.ts), so it transfers from the teacher's data; turn
   * it off for teachers whose memory the student cannot reproduce. Memory always feeds candidates.
   */
  memoryInState: boolean;
  /** Character trigrams in element labels (costly: elements are most of the tokens). */
  elementTrigrams: boolean;
}

export const DEFAULT_FEATURIZER: FeaturizerConfig = {
  buckets: 8192,
  hashSeed: 17,
  maxElements: 128,
  maxCandidates: 200,
  maxNgram: 4,
  maxOptionsPerSelect: 40,
  maxPageCandidates: 100,
  maxTokensState: 96,
  maxTokensElement: 32,
  maxTokensCandidate: 16,
  historyWindow: 6,
  memoryInState: true,
  elementTrigrams: false,
};

/** Bags of the state, in the order the model reads them. */
export const STATE_BAGS = ['task', 'page', 'memory', 'history'] as const;

type PolicyActionType = (typeof POLICY_ACTION_TYPES)[number];

/** Names of the dense state features, in order. */
export const STATE_FEATURES = [
  'historyLength',
  ...POLICY_ACTION_TYPES.map((t): `count_${PolicyActionType}` => `count_${t}`),
  ...POLICY_ACTION_TYPES.map((t): `last_${PolicyActionType}` => `last_${t}`),
  'last_none',
  'last_other',
  'lastActionError',
  'pagesAbove',
  'pagesBelow',
  'canScrollDown',
  'numElements',
  'overlayPresent',
  'filledShare',
  'numTextEntries',
  'repeatedLast',
  'taskHasQuoted',
  'taskNumbers',
  ...PROGRESS_FEATURES,
] as const;
/** The layout of the dense state features. */
export const STATE = new FeatureLayout(STATE_FEATURES);
export const NUM_STATE_FEATURES = STATE.size;

/**
 * The discrete structure of a state: which elements are kept (positions 0..elements.length-1 are
 * what the element head picks), the argument candidates, and which choices are valid. Enough to map
 * actions to targets and back, without the numeric features.
 */
export interface StateStructure {
  elements: Element[];
  infos: ElementInfo[];
  candidates: ArgCandidate[];
  ctx: TaskContext;
  /** [numTypes] 1 where the type can be taken in this state. */
  typeMask: Uint8Array;
  /** Per type index: [elements] 1 where allowed (all zeros for types without an element). */
  elementMasks: Uint8Array[];
  /** Per element position: whether the observation lists its options. */
  hasOptions: boolean[];
}

/** One state, featurized: its structure plus hashed token ids and dense features. */
export interface FeaturizedState extends StateStructure {
  stateBags: number[][];
  stateDense: Float32Array;
  elemLabelIds: number[][];
  elemAttrIds: number[][];
  elemDense: Float32Array;
  candIds: number[][];
  candCtxIds: number[][];
  candDense: Float32Array;
}

/** Word shapes of a text ("C-132402" -> X-d, "Marcus" -> Xx) and its length in words. */
function shapeTokens(text: string): string[] {
  const ws = text.split(/\s+/).filter(Boolean);
  const shapes = ws.map(
    (w) =>
      `shape:${w
        .replace(/\p{Lu}/gu, 'X')
        .replace(/\p{Ll}/gu, 'x')
        .replace(/\d/g, 'd')
        .replace(/(.)\1+/g, '$1')}`,
  );
  return [`words:${Math.min(ws.length, 8)}`, ...new Set(shapes)];
}

/** URL path, title, headings and the first visible text blocks: what page this is. */
function pageSummary(obs: PolicyState['observation']): string {
  const blocks = obs.texts ?? [];
  const headings = blocks.filter((b) => /^h[1-3]$/i.test(b.tag)).map((b) => b.text);
  const first = blocks
    .filter((b) => b.inViewport)
    .slice(0, 4)
    .map((b) => b.text);
  return [pathWords(obs.url), obs.title, ...headings, ...first].join(' . ');
}

function historyText(history: readonly Action[], window: number, error: string | null): string {
  const parts = history.slice(-window).map((a) => {
    if (a.type === 'input' || a.type === 'select_dropdown' || a.type === 'done') return `${a.type} ${a.text}`;
    if (a.type === 'send_keys') return `send keys ${a.keys}`;
    if (a.type === 'scroll') return `scroll ${a.down ? 'down' : 'up'}`;
    return a.type.replace('_', ' ');
  });
  if (error) parts.push(`error ${error}`);
  return parts.join(' ; ');
}

function stateDenseOf(
  state: PolicyState,
  fsElems: Element[],
  elemDense: Float32Array,
  progress: FeatureRecord<ProgressFeature>,
): Float32Array {
  const { history, observation: obs } = state;
  const types = POLICY_ACTION_TYPES as readonly string[];
  const last = history.at(-1);
  const counts = Object.fromEntries(
    POLICY_ACTION_TYPES.map((t) => [
      `count_${t}`,
      Math.min(history.filter((a) => a.type === t).length, 5) / 5,
    ]),
  ) as FeatureRecord<`count_${PolicyActionType}`>;
  const lastOneHot = Object.fromEntries(
    POLICY_ACTION_TYPES.map((t) => [`last_${t}`, bit(last?.type === t)]),
  ) as FeatureRecord<`last_${PolicyActionType}`>;
  const entries = fsElems.map((_, p) => ELEMENT.read(elemDense, p, 'textEntry'));
  const filled = fsElems.map(
    (_, p) => ELEMENT.read(elemDense, p, 'textEntry') * ELEMENT.read(elemDense, p, 'hasValue'),
  );
  const nEntries = entries.reduce((a, b) => a + b, 0);
  const prev = history.at(-2);
  const objective = state.task.objective;
  return STATE.vector({
    historyLength: Math.min(history.length, 20) / 10,
    ...counts,
    ...lastOneHot,
    last_none: last ? 0 : 1,
    last_other: bit(last && !types.includes(last.type)),
    lastActionError: bit(obs.lastActionError),
    pagesAbove: Math.min(obs.scroll.pagesAbove, 5) / 3,
    pagesBelow: Math.min(obs.scroll.pagesBelow, 5) / 3,
    canScrollDown: bit(obs.scroll.pagesBelow > 0.05),
    numElements: Math.log1p(obs.elements.length) / 5,
    overlayPresent: bit(fsElems.some((_, p) => ELEMENT.read(elemDense, p, 'covered') > 0)),
    filledShare: nEntries ? filled.reduce((a, b) => a + b, 0) / nEntries : 0,
    numTextEntries: Math.log1p(nEntries) / 3,
    repeatedLast: bit(last && prev && JSON.stringify(last) === JSON.stringify(prev)),
    taskHasQuoted: bit(/["“]/.test(objective)),
    taskNumbers: Math.min((objective.match(/\d+/g) ?? []).length, 6) / 3,
    ...progress,
  });
}

/** The structure of a state (cheap: no hashing, no dense features). */
export function stateStructure(state: PolicyState, cfg: FeaturizerConfig): StateStructure {
  const obs = state.observation;
  const memory = obs.memory ?? '';
  const ctx = taskContext(state.task.objective, memory, state.history, state.historyUrls, obs.url);
  const elements = selectElements(obs, ctx, cfg.maxElements);
  const candidates = buildCandidates(state.task.objective, memory, obs, elements, cfg);
  const hasOptions = elements.map(() => false);
  for (const c of candidates) for (const p of c.optionOf) hasOptions[p] = true;
  const st: StateStructure = {
    elements,
    infos: elementInfos(elements),
    candidates,
    ctx,
    typeMask: new Uint8Array(POLICY_ACTION_TYPES.length),
    elementMasks: POLICY_ACTION_TYPES.map((t) =>
      Uint8Array.from(elements.map((el) => (ELEMENT_TYPES.has(t) && elementAllowed(t, el) ? 1 : 0))),
    ),
    hasOptions,
  };
  POLICY_ACTION_TYPES.forEach((t, ti) => {
    let ok = true;
    if (ELEMENT_TYPES.has(t)) {
      // An element with no admissible argument cannot be chosen for this type.
      if (ARGUMENT_TYPES.has(t)) {
        st.elementMasks[ti].forEach((m, p) => {
          if (m && !argumentMask(st, ti, p).some((x) => x)) st.elementMasks[ti][p] = 0;
        });
      }
      ok = st.elementMasks[ti].some((x) => x);
    } else if (ARGUMENT_TYPES.has(t)) {
      ok = argumentMask(st, ti, -1).some((x) => x);
    }
    st.typeMask[ti] = ok ? 1 : 0;
  });
  return st;
}

/** Featurizes one state. Deterministic: the same state and config give the same numbers. */
export function featurizeState(state: PolicyState, cfg: FeaturizerConfig): FeaturizedState {
  const st = stateStructure(state, cfg);
  const obs = state.observation;
  const { elements, infos, candidates, ctx } = st;
  const { buckets: B, hashSeed: seed } = cfg;
  const match = matchFeatures(obs, state.task.objective, elements, infos, candidates, ctx, state.history);
  const elemDense = elementDense(obs, elements, infos, ctx, match.dense);
  // Parameter words read as one token everywhere (task, page, history, elements, candidates): which
  // element or value carries the task's parameter generalizes; the parameter's own words do not.
  const pw = taskParamWords(state.task.objective);
  const hash = (text: string, max: number, field = '', trigrams = true) =>
    hashText(text, B, seed, max, field, trigrams, pw);
  return {
    ...st,
    stateBags: [
      hash(state.task.objective, cfg.maxTokensState),
      hash(pageSummary(obs), cfg.maxTokensState, 'p:'),
      cfg.memoryInState ? hash(obs.memory ?? '', cfg.maxTokensState, 'm:') : [],
      hash(historyText(state.history, cfg.historyWindow, obs.lastActionError), cfg.maxTokensState, 'h:'),
    ],
    stateDense: stateDenseOf(state, elements, elemDense, match.progress),
    elemLabelIds: infos.map((info) => hash(info.label, cfg.maxTokensElement, '', cfg.elementTrigrams)),
    elemAttrIds: elements.map((el) => hash(elementAttrText(el), cfg.maxTokensElement / 2, 'a:', false)),
    elemDense,
    candIds: candidates.map((c) => {
      if (c.kind !== 'text') return [hashToken(`fixed:${c.kind}:${c.text}`, B, seed)];
      // Values only the task (or memory) states are the task's parameters: their words differ
      // from task to task, so they are read by shape and by what precedes them, never memorized.
      if (!(c.sources & (SRC.option | SRC.page)))
        return shapeTokens(c.text)
          .slice(0, cfg.maxTokensCandidate)
          .map((t) => hashToken(t, B, seed));
      return hash(c.text, cfg.maxTokensCandidate);
    }),
    candCtxIds: candidates.map((c) => {
      const ids = hash(c.context, cfg.maxTokensCandidate, 'x:', false);
      if (c.cue) ids.push(hashToken(`cue:${c.cue}`, B, seed));
      return ids;
    }),
    candDense: candidateDense(candidates, elements, infos, ctx),
  };
}

/** Which candidates the argument head may pick for this type and element position. */
export function argumentMask(fs: StateStructure, typeIndex: number, elementPos: number): Uint8Array {
  const t = POLICY_ACTION_TYPES[typeIndex];
  const mask = new Uint8Array(fs.candidates.length);
  const optionsKnown = elementPos >= 0 && fs.hasOptions[elementPos];
  fs.candidates.forEach((c, i) => {
    let ok = false;
    if (t === 'scroll') ok = c.kind === 'scroll';
    else if (t === 'send_keys') ok = c.kind === 'key';
    else if (t === 'done') ok = c.kind === 'text' || c.kind === 'empty';
    else if (t === 'input') ok = c.kind === 'text' && (c.sources & (SRC.task | SRC.memory)) !== 0;
    else if (t === 'select_dropdown')
      ok = c.kind === 'text' && (optionsKnown ? c.optionOf.includes(elementPos) : true);
    mask[i] = ok ? 1 : 0;
  });
  return mask;
}

/** Candidate-by-element features for one (type, element) choice. */
export function pairFeatures(fs: StateStructure, elementPos: number): Float32Array {
  const el = elementPos >= 0 ? fs.elements[elementPos] : null;
  return pairDense(fs.candidates, el, elementPos, elementPos >= 0 && fs.hasOptions[elementPos], fs.ctx);
}

/** Sub-decision targets of an action in a featurized state (-1 where absent or not expressible). */
export interface ActionTargets {
  type: number;
  element: number;
  argument: number;
  /** True when the policy can emit exactly this action (up to the documented canonicalization). */
  representable: boolean;
}

/**
 * Maps an action onto the policy's sub-decisions. Canonicalization: texts match candidates after
 * normalization (case, spacing, outer punctuation), input.clear, scroll.pages and wait.seconds are
 * ignored. When the type (and element) are expressible but the argument is not, the type and
 * element targets are kept and `representable` is false: SFT still learns those sub-decisions.
 */
export function actionTargets(fs: StateStructure, action: Action): ActionTargets {
  const none: ActionTargets = { type: -1, element: -1, argument: -1, representable: false };
  const ti = (POLICY_ACTION_TYPES as readonly string[]).indexOf(action.type);
  if (ti < 0 || !fs.typeMask[ti]) return none;
  if (isGiveUp(action)) return none;
  const out: ActionTargets = { type: ti, element: -1, argument: -1, representable: false };
  let pos = -1;
  if (ELEMENT_TYPES.has(action.type)) {
    const index = (action as { index: number }).index;
    pos = fs.elements.findIndex((el) => el.index === index);
    if (pos < 0 || !fs.elementMasks[ti][pos]) return out;
    out.element = pos;
  }
  if (!ARGUMENT_TYPES.has(action.type)) {
    out.representable = true;
    return out;
  }
  const mask = argumentMask(fs, ti, pos);
  const allowed = fs.candidates.map((c, i) => (mask[i] ? c : null));
  let ai = -1;
  if (action.type === 'scroll') {
    if (action.index == null)
      ai = allowed.findIndex((c) => c?.kind === 'scroll' && c.text === (action.down ? 'down' : 'up'));
  } else if (action.type === 'send_keys') {
    ai = allowed.findIndex((c) => c?.kind === 'key' && c.text.toLowerCase() === action.keys.toLowerCase());
  } else if (action.type === 'done' && action.text.trim() === '') {
    ai = allowed.findIndex((c) => c?.kind === 'empty');
  } else if ('text' in action) {
    // Exact text first, then the same text up to case and spacing, then core normalization.
    const text = action.text;
    ai = allowed.findIndex((c) => c?.kind === 'text' && c.text === text);
    if (ai < 0) ai = allowed.findIndex((c) => c?.kind === 'text' && c.key === candidateKey(text));
    if (ai < 0) ai = allowed.findIndex((c) => c?.kind === 'text' && c.norm === normalizeText(text));
  }
  if (ai < 0) return out;
  out.argument = ai;
  out.representable = true;
  return out;
}

/** The action the policy emits for a choice of type, element position and candidate. */
export function choiceToAction(
  fs: StateStructure,
  typeIndex: number,
  elementPos: number,
  argIndex: number,
): Action {
  const t = POLICY_ACTION_TYPES[typeIndex];
  const el = elementPos >= 0 ? fs.elements[elementPos] : undefined;
  const c = argIndex >= 0 ? fs.candidates[argIndex] : undefined;
  const need = (cond: unknown, what: string) => {
    if (!cond) throw new Error(`policy choice for ${t} is missing its ${what}`);
  };
  switch (t) {
    case 'click':
      need(el, 'element');
      return { type: 'click', index: el!.index };
    case 'input':
      need(el && c, 'element or text');
      return { type: 'input', index: el!.index, text: c!.text, clear: true };
    case 'select_dropdown':
      need(el && c, 'element or option');
      return { type: 'select_dropdown', index: el!.index, text: c!.text };
    case 'scroll':
      need(c, 'direction');
      return { type: 'scroll', down: c!.text === 'down', pages: 1 };
    case 'send_keys':
      need(c, 'key');
      return { type: 'send_keys', keys: c!.text };
    case 'go_back':
      return { type: 'go_back' };
    case 'wait':
      return { type: 'wait', seconds: 1 };
    case 'done':
      need(c, 'answer');
      return { type: 'done', text: c!.kind === 'empty' ? '' : c!.text, success: true };
  }
}
