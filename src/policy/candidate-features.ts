import type { Element } from '../core/observation.ts';
import { ISO_DATE_SOURCE, MONTH_ABBR_SOURCE } from '../core/text-patterns.ts';
import { type ArgCandidate, SRC } from './candidates.ts';
import { type ElementInfo, elementLabel, type TaskContext } from './element-features.ts';
import { bit, FeatureLayout, type FeatureRecord } from './feature-layout.ts';
import { contentWords, coverage, normalizeText, words } from './text.ts';

/** The source kinds of a candidate, in SRC order (one feature each). */
const SOURCE_NAMES = Object.keys(SRC) as (keyof typeof SRC)[];
type SourceFeature = `src_${keyof typeof SRC}`;

/** Names of the dense per-candidate features, in order. */
export const CANDIDATE_FEATURES = [
  'kindText',
  'kindScroll',
  'kindKey',
  'kindEmpty',
  ...SOURCE_NAMES.map((k): SourceFeature => `src_${k}`),
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
/** The layout of one candidate's dense features. */
export const CANDIDATE = new FeatureLayout(CANDIDATE_FEATURES);
export const NUM_CANDIDATE_FEATURES = CANDIDATE.size;

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
/** The layout of one candidate-by-element feature vector. */
export const PAIR = new FeatureLayout(PAIR_FEATURES);
export const NUM_PAIR_FEATURES = PAIR.size;

const NUMERIC = /^[$€£]?\d[\d,]*(?:\.\d+)?%?$/;
/** Looks like a date, loosely: a year is optional and a month name alone counts. */
const DATE_LIKE = new RegExp(
  String.raw`${ISO_DATE_SOURCE}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\b(?:${MONTH_ABBR_SOURCE})[a-z]*\b`,
  'i',
);

/** Dense candidate features, row-major [cands.length, NUM_CANDIDATE_FEATURES]. */
export function candidateDense(
  cands: readonly ArgCandidate[],
  elements: readonly Element[],
  infos: readonly ElementInfo[],
  ctx: TaskContext,
): Float32Array {
  const out = new Float32Array(cands.length * CANDIDATE.size);
  const values = new Set(
    elements.map((el) => (el.attributes.value ? normalizeText(el.attributes.value) : '')).filter(Boolean),
  );
  const labels = `\n${infos.map((i) => i.norm).join('\n')}\n`;
  cands.forEach((c, i) => {
    const nw = c.kind === 'text' ? words(c.text).length : 0;
    const contextWords = contentWords(`${c.context} ${c.cue}`);
    CANDIDATE.write(out, i, {
      kindText: bit(c.kind === 'text'),
      kindScroll: bit(c.kind === 'scroll'),
      kindKey: bit(c.kind === 'key'),
      kindEmpty: bit(c.kind === 'empty'),
      src_task: bit(c.sources & SRC.task),
      src_quoted: bit(c.sources & SRC.quoted),
      src_number: bit(c.sources & SRC.number),
      src_cue: bit(c.sources & SRC.cue),
      src_capitalized: bit(c.sources & SRC.capitalized),
      src_memory: bit(c.sources & SRC.memory),
      src_page: bit(c.sources & SRC.page),
      src_option: bit(c.sources & SRC.option),
      src_ngram: bit(c.sources & SRC.ngram),
      src_pattern: bit(c.sources & SRC.pattern),
      src_clause: bit(c.sources & SRC.clause),
      numWords: Math.min(nw, 10) / 5,
      taskPos: Math.max(c.taskPos, 0),
      hasTaskPos: bit(c.taskPos >= 0),
      numeric: bit(c.kind === 'text' && NUMERIC.test(c.text)),
      email: bit(c.text.includes('@')),
      typedBefore: bit(c.kind === 'text' && ctx.typed.has(c.norm)),
      memoryOverlap: c.kind === 'text' ? coverage(contentWords(c.text), ctx.memoryWords) : 0,
      filledSomewhere: bit(c.kind === 'text' && values.has(c.norm)),
      onPage: bit(c.kind === 'text' && c.norm.length > 1 && labels.includes(c.norm)),
      hasCue: bit(c.cue),
      charLength: Math.log1p(c.text.length) / 4,
      inTaskPhrase: bit(
        c.kind === 'text' && c.norm.length > 1 && ` ${ctx.objectiveNorm} `.includes(` ${c.norm} `),
      ),
      contextTaskOverlap: coverage(contextWords, ctx.content),
      contextTaskWords: Math.min(contextWords.filter((w) => ctx.content.has(w)).length, 4) / 2,
      taskWordCoverage: c.kind === 'text' ? coverage(contentWords(c.text), ctx.content) : 0,
    });
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

/**
 * The pair features of a candidate answer (types without an element): only the answer features are
 * set. Records are written out in full, not spread from a zero record, to keep them cheap to build.
 */
function answerFeatures(c: ArgCandidate, kind: QuestionKind): FeatureRecord<(typeof PAIR_FEATURES)[number]> {
  const t = c.text.trim();
  const integer = INTEGER.test(t);
  const numeric = NUMERIC.test(t);
  const asksNumber = kind.count || kind.money || kind.quantity;
  return {
    optionOfElement: 0,
    contextMatchesLabel: 0,
    equalsValue: 0,
    inLabel: 0,
    typedIntoElement: 0,
    typeCompatible: 0,
    typeIncompatible: 0,
    noOptionsKnown: 0,
    cueInLabel: 0,
    labelInContext: 0,
    answerCountInteger: bit(kind.count && integer),
    answerMoneyAmount: bit(kind.money && MONEY.test(t)),
    answerNameLike: bit(kind.name && NAME_LIKE.test(t)),
    answerQuantityNumeric: bit(kind.quantity && /\d/.test(t)),
    answerBareNumberForNonNumber: bit(!asksNumber && !kind.code && numeric),
    answerCodeLike: bit(kind.code && CODE_LIKE.test(t)),
  };
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
  const out = new Float32Array(cands.length * PAIR.size);
  if (!el) {
    // No element: the done answer. Only the answer features are set.
    const kind = questionKind(ctx.objective);
    cands.forEach((c, i) => {
      if (c.kind === 'text') PAIR.write(out, i, answerFeatures(c, kind));
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
    PAIR.write(out, i, {
      optionOfElement: bit(c.optionOf.includes(elementPos)),
      contextMatchesLabel: coverage(contentWords(c.context), labelWords),
      equalsValue: bit(value && value === c.norm),
      inLabel: coverage(contentWords(c.text), labelWords),
      typedIntoElement: bit(typedHere?.has(c.norm)),
      typeCompatible: bit(compatible),
      typeIncompatible: bit(incompatible),
      noOptionsKnown: bit(!hasOptions),
      cueInLabel: bit(c.cue && allLabelWords.has(c.cue)),
      labelInContext: coverage([...labelWords], new Set(contentWords(`${c.context} ${c.cue}`))),
      answerCountInteger: 0,
      answerMoneyAmount: 0,
      answerNameLike: 0,
      answerQuantityNumeric: 0,
      answerBareNumberForNonNumber: 0,
      answerCodeLike: 0,
    });
  });
  return out;
}
