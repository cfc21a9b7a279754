import type { Element } from '../core/observation.ts';
import { type ArgCandidate, SOURCE_BITS, SRC } from './candidates.ts';
import { type ElementInfo, elementLabel, type TaskContext } from './element-features.ts';
import { contentWords, coverage, normalizeText, words } from './text.ts';

/** Names of the dense per-candidate features, in order. */
export const CANDIDATE_FEATURES = [
  'kindText',
  'kindScroll',
  'kindKey',
  'kindEmpty',
  ...Object.keys(SRC).map((k) => `src_${k}`),
  'numWords',
  'taskPos',
  'hasTaskPos',
  'numeric',
  'email',
  'typedBefore',
  'memoryOverlap',
  'filledSomewhere',
  'onPage',
  'hasCue',
  'charLength',
  'inTaskPhrase',
  'contextTaskOverlap',
  'contextTaskWords',
  'taskWordCoverage',
] as const;
export const NUM_CANDIDATE_FEATURES = CANDIDATE_FEATURES.length;

/** Names of the candidate-by-element features, in order. */
export const PAIR_FEATURES = [
  'optionOfElement',
  'contextMatchesLabel',
  'equalsValue',
  'inLabel',
  'typedIntoElement',
  'typeCompatible',
  'typeIncompatible',
  'noOptionsKnown',
  'cueInLabel',
  'labelInContext',
  // Answer features, for the types without an element (done): what the question asks for, against
  // what the candidate looks like. A "what is it called?" answered "11" is wrong by its shape.
  'answerCountInteger',
  'answerMoneyAmount',
  'answerNameLike',
  'answerQuantityNumeric',
  'answerBareNumberForNonNumber',
  'answerCodeLike',
] as const;
export const NUM_PAIR_FEATURES = PAIR_FEATURES.length;

const NUMERIC = /^[$€£]?\d[\d,]*(?:\.\d+)?%?$/;
const DATE_LIKE =
  /\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}(?:\/\d{2,4})?|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i;

/** Dense candidate features, row-major [cands.length, NUM_CANDIDATE_FEATURES]. */
export function candidateDense(
  cands: readonly ArgCandidate[],
  elements: readonly Element[],
  infos: readonly ElementInfo[],
  ctx: TaskContext,
): Float32Array {
  const F = NUM_CANDIDATE_FEATURES;
  const out = new Float32Array(cands.length * F);
  const values = new Set(
    elements.map((el) => (el.attributes.value ? normalizeText(el.attributes.value) : '')).filter(Boolean),
  );
  const labels = `\n${infos.map((i) => i.norm).join('\n')}\n`;
  cands.forEach((c, i) => {
    const nw = c.kind === 'text' ? words(c.text).length : 0;
    const contextWords = contentWords(`${c.context} ${c.cue}`);
    const v = [
      c.kind === 'text' ? 1 : 0,
      c.kind === 'scroll' ? 1 : 0,
      c.kind === 'key' ? 1 : 0,
      c.kind === 'empty' ? 1 : 0,
      ...SOURCE_BITS.map((b) => (c.sources & b ? 1 : 0)),
      Math.min(nw, 10) / 5,
      Math.max(c.taskPos, 0),
      c.taskPos >= 0 ? 1 : 0,
      c.kind === 'text' && NUMERIC.test(c.text) ? 1 : 0,
      c.text.includes('@') ? 1 : 0,
      c.kind === 'text' && ctx.typed.has(c.norm) ? 1 : 0,
      c.kind === 'text' ? coverage(contentWords(c.text), ctx.memoryWords) : 0,
      c.kind === 'text' && values.has(c.norm) ? 1 : 0,
      c.kind === 'text' && c.norm.length > 1 && labels.includes(c.norm) ? 1 : 0,
      c.cue ? 1 : 0,
      Math.log1p(c.text.length) / 4,
      c.kind === 'text' && c.norm.length > 1 && ` ${ctx.objectiveNorm} `.includes(` ${c.norm} `) ? 1 : 0,
      coverage(contextWords, ctx.content),
      Math.min(contextWords.filter((w) => ctx.content.has(w)).length, 4) / 2,
      c.kind === 'text' ? coverage(contentWords(c.text), ctx.content) : 0,
    ];
    out.set(v, i * F);
  });
  return out;
}

/** What an information question asks for, read from its wording (none when it is not a question). */
export interface QuestionKind {
  count: boolean;
  money: boolean;
  name: boolean;
  quantity: boolean;
  code: boolean;
}

/** The answer kinds a task's wording asks for. */
export function questionKind(objective: string): QuestionKind {
  const q = objective.toLowerCase();
  const count = /\bhow many\b(?! calories| minutes| hours| stars)|\bcount\b/.test(q);
  const money =
    !count &&
    /\bhow much (?:does|do|is|did|would|will)\b|\b(?:its price|the price|fee|fare|cost|costs|owe|total due|payment|sell for|how much is it)\b/.test(
      q,
    );
  const quantity =
    /\bcalories\b|\bhow many (?:minutes|hours|stars)\b|\bhow long\b|\bwhat (?:guest |customer )?rating\b|\btemperature\b|\bhow much [a-z ]+ should\b/.test(
      q,
    );
  const code = /\b(?:confirmation|flight|tracking|order) (?:number|code)\b|\bstatus\b/.test(q);
  const name =
    !count &&
    !money &&
    /\b(?:(?:what's|what is) it called|its name|the name|product name|hotel's name|its address|the address)\b|\bwhich\b[^.?]*\?|what(?:'s| is) the [^.?]*\?/.test(
      q,
    );
  return { count, money, name, quantity, code };
}

const INTEGER = /^\d{1,4}$/;
const MONEY = /^[$€£]\s?\d[\d,]*(?:\.\d+)?$|^\d[\d,]*\.\d{2}$/;
const NAME_LIKE = /^(?=.*\p{L}{2}.*\s\S*\p{L})[^$€£]{4,}$/u;
const CODE_LIKE = /^(?=.*\d)(?=.*[A-Z])[A-Z0-9][A-Z0-9 -]{2,}$|^[A-Z]{5,8}$/;

function answerFeatures(c: ArgCandidate, kind: QuestionKind): number[] {
  const t = c.text.trim();
  const integer = INTEGER.test(t);
  const numeric = NUMERIC.test(t);
  const asksNumber = kind.count || kind.money || kind.quantity;
  return [
    kind.count && integer ? 1 : 0,
    kind.money && MONEY.test(t) ? 1 : 0,
    kind.name && NAME_LIKE.test(t) ? 1 : 0,
    kind.quantity && /\d/.test(t) ? 1 : 0,
    !asksNumber && !kind.code && numeric ? 1 : 0,
    kind.code && CODE_LIKE.test(t) ? 1 : 0,
  ];
}

/**
 * Features of every candidate paired with one element (the element the action targets), row-major
 * [cands.length, NUM_PAIR_FEATURES]. `elementPos` is the element's position in the kept list, or
 * -1 for types without an element (all zeros then).
 */
export function pairDense(
  cands: readonly ArgCandidate[],
  el: Element | null,
  elementPos: number,
  hasOptions: boolean,
  ctx: TaskContext,
): Float32Array {
  const K = NUM_PAIR_FEATURES;
  const out = new Float32Array(cands.length * K);
  if (!el) {
    // No element: the done answer. Only the answer features are set.
    const kind = questionKind(ctx.objective);
    const base = PAIR_FEATURES.indexOf('answerCountInteger');
    cands.forEach((c, i) => {
      if (c.kind === 'text') out.set(answerFeatures(c, kind), i * K + base);
    });
    return out;
  }
  const labelWords = new Set(
    contentWords(`${elementLabel(el)} ${el.attributes.name ?? ''} ${el.attributes.id ?? ''}`),
  );
  const allLabelWords = new Set(words(`${elementLabel(el)} ${el.attributes.name ?? ''}`));
  const value = normalizeText(el.attributes.value ?? '');
  const typedHere = ctx.typedInto.get(el.index);
  const type = (el.attributes.type ?? '').toLowerCase();
  const wantsEmail = type === 'email' || labelWords.has('email');
  const wantsNumber = type === 'number' || type === 'tel';
  const wantsDate = type === 'date' || labelWords.has('date');
  cands.forEach((c, i) => {
    if (c.kind !== 'text') return;
    const numeric = NUMERIC.test(c.text);
    const compatible =
      (wantsEmail && c.text.includes('@')) ||
      (wantsNumber && numeric) ||
      (wantsDate && DATE_LIKE.test(c.text));
    const incompatible = (wantsEmail && !c.text.includes('@')) || (wantsNumber && !numeric);
    const v = [
      c.optionOf.includes(elementPos) ? 1 : 0,
      coverage(contentWords(c.context), labelWords),
      value && value === c.norm ? 1 : 0,
      coverage(contentWords(c.text), labelWords),
      typedHere?.has(c.norm) ? 1 : 0,
      compatible ? 1 : 0,
      incompatible ? 1 : 0,
      hasOptions ? 0 : 1,
      c.cue && allLabelWords.has(c.cue) ? 1 : 0,
      coverage([...labelWords], new Set(contentWords(`${c.context} ${c.cue}`))),
    ];
    out.set(v, i * K);
  });
  return out;
}
