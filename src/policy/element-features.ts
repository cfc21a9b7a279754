import type { Action } from '../core/action.ts';
import type { Element, Observation } from '../core/observation.ts';
import { isSelectLike, isTextEntry } from './action-space.ts';
import { bit, FeatureLayout } from './feature-layout.ts';
import { MATCH, MATCH_FEATURES } from './match-features.ts';
import { charTrigrams, contentWords, coverage, normalizeText, numbersIn, words } from './text.ts';

/**
 * What the featurizer knows about the task and the episode so far, computed once per state and
 * shared by the element and candidate features.
 */
export interface TaskContext {
  /** The task text as written. */
  objective: string;
  objectiveNorm: string;
  words: Set<string>;
  content: Set<string>;
  trigrams: Set<string>;
  numbers: Set<string>;
  quoted: string[];
  memoryWords: Set<string>;
  /** Element index -> how often earlier actions targeted it. */
  actedIndex: Map<number, number>;
  /** Element index -> normalized texts typed into it. */
  typedInto: Map<number, Set<string>>;
  /** Every normalized text typed or chosen so far. */
  typed: Set<string>;
  lastIndex: number | null;
}

/**
 * `historyUrls` (when known) are the pages the earlier actions were taken on: index-based facts
 * (acted on, typed into, last target) only count actions taken on `currentUrl`.
 */
export function taskContext(
  objective: string,
  memory: string,
  history: readonly Action[],
  historyUrls?: readonly string[],
  currentUrl?: string,
): TaskContext {
  const content = contentWords(objective);
  const quoted: string[] = [];
  for (const m of objective.matchAll(/"([^"]{1,80})"|“([^”]{1,80})”/g))
    quoted.push(normalizeText(m[1] ?? m[2]));
  const actedIndex = new Map<number, number>();
  const typedInto = new Map<number, Set<string>>();
  const typed = new Set<string>();
  let lastIndex: number | null = null;
  const known = historyUrls && currentUrl !== undefined && historyUrls.length === history.length;
  history.forEach((a, i) => {
    const here = !known || historyUrls[i] === currentUrl;
    const idx = here && 'index' in a && typeof a.index === 'number' ? a.index : null;
    lastIndex = idx;
    if (idx !== null) actedIndex.set(idx, (actedIndex.get(idx) ?? 0) + 1);
    if (a.type === 'input' || a.type === 'select_dropdown') {
      const t = normalizeText(a.text);
      typed.add(t);
      if (!here) return;
      if (!typedInto.has(a.index)) typedInto.set(a.index, new Set());
      typedInto.get(a.index)!.add(t);
    }
  });
  return {
    objective,
    objectiveNorm: normalizeText(objective),
    words: new Set(words(objective)),
    content: new Set(content),
    trigrams: new Set(charTrigrams(content)),
    numbers: new Set(numbersIn(objective)),
    quoted,
    memoryWords: new Set(contentWords(memory)),
    actedIndex,
    typedInto,
    typed,
    lastIndex,
  };
}

/** The label an agent would read for an element: accessible name, text, and naming attributes. */
export function elementLabel(el: Element): string {
  const a = el.attributes;
  const parts = [el.name, el.text, a['aria-label'], a.placeholder, a.title, a.alt];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of parts) {
    const t = (p ?? '').replace(/\s+/g, ' ').trim();
    if (t && !seen.has(t.toLowerCase())) {
      seen.add(t.toLowerCase());
      out.push(t);
    }
  }
  return out.join(' ').slice(0, 200);
}

/** Texts of an element computed once per state and shared by every feature that reads them. */
export interface ElementInfo {
  label: string;
  /** Normalized label. */
  norm: string;
  /** Content words of the normalized label. */
  content: string[];
}

export function elementInfos(elements: readonly Element[]): ElementInfo[] {
  return elements.map((el) => {
    const label = elementLabel(el);
    const norm = normalizeText(label);
    return { label, norm, content: contentWords(norm) };
  });
}

/** Categorical and structural tokens of an element (hashed in their own namespace). */
export function elementAttrText(el: Element): string {
  const a = el.attributes;
  const toks = [`tag ${el.tag}`, el.role ? `role ${el.role}` : '', a.type ? `type ${a.type}` : ''];
  if (a.name) toks.push(`name ${a.name}`);
  if (a.id) toks.push(`id ${a.id}`);
  if (a.href) toks.push(`href ${a.href.replace(/[/_\-.?=&]+/g, ' ')}`);
  if (a.class) toks.push(a.class.split(/\s+/).slice(0, 4).join(' '));
  return toks.filter(Boolean).join(' ');
}

const truthy = (v: string | undefined) => v !== undefined && v !== 'false' && v !== '0';

/** Names of an element's own dense features (the match features follow them), in order. */
const ELEMENT_OWN_FEATURES = [
  'inViewport',
  'covered',
  'disabled',
  'checked',
  'selectedOrExpanded',
  'textEntry',
  'selectLike',
  'link',
  'button',
  'checkboxOrRadio',
  'hasValue',
  'valueInTask',
  'required',
  'labelCoveredByTask',
  'taskCoveredByLabel',
  'labelPhraseInTask',
  'trigramOverlap',
  'extraWords',
  'numberMatch',
  'numberMismatch',
  'quotedMatch',
  'duplicateLabels',
  'actedBefore',
  'lastTarget',
  'typedInto',
  'relY',
  'relX',
  'rank',
  'depth',
  'hasParent',
  'labelLength',
  'hasHref',
  'hrefOverlap',
  'emptyLabel',
  'memoryOverlap',
  'visibleUncovered',
] as const;
/** Names of the dense element features, in order: its own, then its match features. */
export const ELEMENT_FEATURES = [...ELEMENT_OWN_FEATURES, ...MATCH_FEATURES] as const;
/** The layout of one element's dense features. */
export const ELEMENT = new FeatureLayout(ELEMENT_FEATURES);
/** The layout of the features `elementDense` computes itself (the rest are copied from MATCH). */
const ELEMENT_OWN = new FeatureLayout(ELEMENT_OWN_FEATURES);
export const NUM_ELEMENT_FEATURES = ELEMENT.size;
/** Where each own feature and each match feature goes in the element layout, by name. */
const OWN_COLS = ELEMENT_OWN.names.map((n) => ELEMENT.col(n));
const MATCH_COLS = MATCH.names.map((n) => ELEMENT.col(n));

/** Lexical relevance of an element to the task; used to choose which elements to keep. */
export function elementRelevance(el: Element, ctx: TaskContext): number {
  const cw = contentWords(elementLabel(el));
  const cov = coverage(cw, ctx.content);
  const phrase = cw.length > 0 && ctx.objectiveNorm.includes(normalizeText(elementLabel(el))) ? 1 : 0;
  const tag = el.tag.toLowerCase();
  const control =
    isTextEntry(el) ||
    isSelectLike(el) ||
    tag === 'button' ||
    el.role === 'button' ||
    el.attributes.type === 'submit'
      ? 0.5
      : 0;
  return (
    3 * cov + 2 * phrase + (el.inViewport ? 1 : 0) + control + (truthy(el.attributes.covered) ? 0 : 0.25)
  );
}

/**
 * Keeps at most `max` elements: the most task-relevant first (lexical overlap, in viewport, form
 * controls and buttons), ties broken by index; the kept ones are returned in document (index) order.
 */
export function selectElements(obs: Observation, ctx: TaskContext, max: number): Element[] {
  if (obs.elements.length <= max) return [...obs.elements].sort((a, b) => a.index - b.index);
  const scored = obs.elements.map((el) => ({ el, s: elementRelevance(el, ctx) }));
  scored.sort((a, b) => b.s - a.s || a.el.index - b.el.index);
  return scored
    .slice(0, max)
    .map((x) => x.el)
    .sort((a, b) => a.index - b.index);
}

/** Dense features of the kept elements, row-major [elements.length, NUM_ELEMENT_FEATURES]. */
export function elementDense(
  obs: Observation,
  elements: readonly Element[],
  infos: readonly ElementInfo[],
  ctx: TaskContext,
  match: Float32Array,
): Float32Array {
  const F = ELEMENT.size;
  const out = new Float32Array(elements.length * F);
  const labels = infos.map((i) => i.norm);
  const labelCount = new Map<string, number>();
  for (const l of labels) if (l) labelCount.set(l, (labelCount.get(l) ?? 0) + 1);
  const vh = obs.scroll.viewportHeight || 800;
  const vw = obs.scroll.viewportWidth || 1280;
  elements.forEach((el, p) => {
    const a = el.attributes;
    const label = labels[p];
    const cw = infos[p].content;
    const cwSet = new Set(cw);
    const tri = charTrigrams(cw);
    const nums = numbersIn(label);
    const value = normalizeText(a.value ?? '');
    const tag = el.tag.toLowerCase();
    const role = el.role.toLowerCase();
    const type = (a.type ?? '').toLowerCase();
    const hrefWords = a.href ? contentWords(a.href.replace(/[/_\-.?=&]+/g, ' ')) : [];
    const extra = cw.filter((w) => !ctx.content.has(w)).length;
    const own = new Float32Array(ELEMENT_OWN.size);
    ELEMENT_OWN.write(own, 0, {
      inViewport: bit(el.inViewport),
      covered: bit(truthy(a.covered)),
      disabled: bit(truthy(a.disabled) || a['aria-disabled'] === 'true'),
      checked: bit(truthy(a.checked) || a['aria-checked'] === 'true'),
      selectedOrExpanded: bit(
        truthy(a.selected) || a['aria-selected'] === 'true' || a['aria-expanded'] === 'true',
      ),
      textEntry: bit(isTextEntry(el)),
      selectLike: bit(isSelectLike(el)),
      link: bit(tag === 'a' || role === 'link'),
      button: bit(tag === 'button' || role === 'button' || type === 'submit' || type === 'button'),
      checkboxOrRadio: bit(
        type === 'checkbox' || type === 'radio' || role === 'checkbox' || role === 'radio',
      ),
      hasValue: bit(value),
      valueInTask: bit(value && ctx.objectiveNorm.includes(value)),
      required: bit(truthy(a.required) || a['aria-required'] === 'true'),
      labelCoveredByTask: coverage(cw, ctx.content),
      taskCoveredByLabel: ctx.content.size
        ? [...ctx.content].filter((w) => cwSet.has(w)).length / ctx.content.size
        : 0,
      labelPhraseInTask: bit(cw.length > 0 && ctx.objectiveNorm.includes(label)),
      trigramOverlap: coverage(tri, ctx.trigrams),
      extraWords: Math.min(extra, 6) / 3,
      numberMatch: bit(nums.some((n) => ctx.numbers.has(n))),
      numberMismatch: bit(nums.length > 0 && !nums.some((n) => ctx.numbers.has(n))),
      quotedMatch: bit(label && ctx.quoted.some((q) => q === label || label.includes(q))),
      duplicateLabels: label ? Math.log1p((labelCount.get(label) ?? 1) - 1) : 0,
      actedBefore: Math.min(ctx.actedIndex.get(el.index) ?? 0, 3) / 3,
      lastTarget: bit(ctx.lastIndex === el.index),
      typedInto: bit(ctx.typedInto.has(el.index)),
      relY: Math.max(-2, Math.min(4, (el.bbox.y - obs.scroll.y) / vh)) / 2,
      relX: Math.max(0, Math.min(1, el.bbox.x / vw)),
      rank: elements.length > 1 ? p / (elements.length - 1) : 0,
      depth: Math.min(el.depth, 10) / 10,
      hasParent: bit(el.parentIndex !== null),
      labelLength: Math.log1p(cw.length) / 3,
      hasHref: bit(a.href),
      hrefOverlap: coverage(hrefWords, ctx.content),
      emptyLabel: bit(!label),
      memoryOverlap: coverage(cw, ctx.memoryWords),
      visibleUncovered: bit(el.inViewport && !truthy(a.covered)),
    });
    OWN_COLS.forEach((c, i) => {
      out[p * F + c] = own[i];
    });
    MATCH_COLS.forEach((c, i) => {
      out[p * F + c] = match[p * MATCH.size + i];
    });
  });
  return out;
}
