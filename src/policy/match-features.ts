import type { Action } from '../core/action.ts';
import type { Element, Observation } from '../core/observation.ts';
import { DISMISS_WORD_RE, ISO_DATE_SOURCE, PHONE_RE, US_DATE_SOURCE } from '../core/text-patterns.ts';
import { isSelectLike, isTextEntry, selectOptions } from './action-space.ts';
import { type ArgCandidate, SRC } from './candidates.ts';
import type { ElementInfo, TaskContext } from './element-features.ts';
import { bit, FeatureLayout, type FeatureRecord } from './feature-layout.ts';
import { contentWords, coverage, normalizeText } from './text.ts';

/**
 * Task-element match features: what a lexical agent decides on, made explicit so a small network
 * learns it from a few thousand examples. Which task values (quoted strings, numbers, shaped
 * values, spans after cue words, names) are still pending - not typed, chosen or shown as a field
 * value yet - and which fields their wording in the task points at; which selects offer an option
 * the task names; which labels are task values or lookalikes of one; flow buttons and overlays.
 */

/** Source bits of spans that state a value (not the plain n-grams every task has). */
const VALUE_BITS = SRC.quoted | SRC.number | SRC.pattern | SRC.cue | SRC.capitalized | SRC.clause;
const SUBMIT_RE =
  /\b(submit|continue|next|search|go|apply|save|send|add to (cart|bag|collection|list)|add|book|reserve|place order|confirm|check|pay|checkout|find|update|sign in|finish|done|move|archive|forward|reply|buy)\b/;
const SUCCESS_RE =
  /\b(confirmation|submitted|success|successfully|thank you|has been|have been|added to|saved|sent|booked|order placed|moved|archived|updated|applied|reserved|scheduled|requested)\b/;
const QUESTION_RE = /\?|^(what|which|how|who|when|where)\b|\b(tell me|give me|let me know|report)\b/;

/** Names of the match features appended to the element features, in order. */
export const MATCH_FEATURES = [
  'cueLabelPending',
  'cueLabelAny',
  'shapeFitPending',
  'selectOptionInTask',
  'selectOptionPending',
  'labelIsTaskValue',
  'labelExtendsTaskValue',
  'firstOfLabel',
  'submitLike',
  'dismissLike',
  'emptyEntry',
  'labelTaskWords',
  'firstPendingEntry',
  'pendingCheck',
] as const;
/** The layout of one element's match features. */
export const MATCH = new FeatureLayout(MATCH_FEATURES);

/** Names of the episode-progress features appended to the state features, in order. */
export const PROGRESS_FEATURES = [
  'pendingEntries',
  'anyPendingEntry',
  'pendingSelects',
  'anyPendingSelect',
  'pendingChecks',
  'pendingValues',
  'successText',
  'successUrl',
  'taskQuestion',
  'lastClickSubmitLike',
  'sinceLastInput',
  'countShown',
  'countBelow',
  'countAbove',
] as const;
/** A progress feature's name. */
export type ProgressFeature = (typeof PROGRESS_FEATURES)[number];

const NUMERIC = /^[$€£]?\d[\d,]*(?:\.\d+)?%?$/;

/** Nouns a task counts and a page shows a stepper or a total for ("for 9 people" / "9 servings"). */
const COUNT_NOUNS =
  'servings?|people|persons?|guests?|adults?|children|kids|nights?|tickets?|rooms?|portions?|items?|passengers?|travell?ers?';
const COUNT_RE = new RegExp(`\\b(\\d{1,2}) (?:${COUNT_NOUNS})\\b`, 'g');

/**
 * How the count the task states ("for 9 people") compares with the count the page shows ("4
 * servings"): a stepper is done when they are equal, and below or above says which way to go.
 * The feature compares numbers the model would otherwise only see as unrelated hashed tokens.
 * `pageText` is already normalized (as `matchFeatures` builds it); the objective is normalized here.
 */
export function countProgress(
  objective: string,
  pageText: string,
): { shown: number; below: number; above: number } {
  const want = [...normalizeText(objective).matchAll(COUNT_RE)].map((m) => Number(m[1]));
  const have = [...pageText.matchAll(COUNT_RE)].map((m) => Number(m[1]));
  if (!want.length || !have.length) return { shown: 0, below: 0, above: 0 };
  const target = want[0];
  if (have.includes(target)) return { shown: 1, below: 0, above: 0 };
  return { shown: 0, below: bit(have[0] < target), above: bit(have[0] > target) };
}
const DATE = new RegExp(`${ISO_DATE_SOURCE}|${US_DATE_SOURCE}`);

const isTruthy = (v: string | undefined) => v !== undefined && v !== 'false' && v !== '0';

/** Whether `phrase` occurs in `text` on word boundaries (both normalized). */
function hasPhrase(text: string, phrase: string): boolean {
  return phrase.length > 1 && ` ${text} `.includes(` ${phrase} `);
}

/** Per-state match data, computed once and shared by the element and state features. */
export interface MatchData {
  /** [elements, MATCH.size] row-major. */
  dense: Float32Array;
  /** Episode progress, appended to the state features. */
  progress: FeatureRecord<ProgressFeature>;
}

export function matchFeatures(
  obs: Observation,
  objective: string,
  elements: readonly Element[],
  infos: readonly ElementInfo[],
  candidates: readonly ArgCandidate[],
  ctx: TaskContext,
  history: readonly Action[],
): MatchData {
  const dense = new Float32Array(elements.length * MATCH.size);
  const shown = new Set<string>();
  for (const el of elements) {
    const v = el.attributes.value ?? el.attributes.selected;
    if (v) shown.add(normalizeText(v));
  }
  const values = candidates.filter(
    (c) => c.kind === 'text' && c.sources & SRC.task && c.sources & VALUE_BITS,
  );
  const cueWords = values.map((c) => new Set(contentWords(`${c.context} ${c.cue}`)));
  const pending = values.map((c) => !ctx.typed.has(c.norm) && !shown.has(c.norm));
  const labelFirst = new Map<string, number>();
  infos.forEach((info, p) => {
    if (info.norm && !labelFirst.has(info.norm)) labelFirst.set(info.norm, p);
  });
  let pendingEntries = 0;
  let pendingSelects = 0;
  let firstPending = -1;
  let pendingChecks = 0;
  elements.forEach((el, p) => {
    const info = infos[p];
    const a = el.attributes;
    const type = (a.type ?? '').toLowerCase();
    const entry = isTextEntry(el);
    const labelWords = contentWords(`${info.label} ${a.name ?? ''}`.replace(/[_-]/g, ' '));
    let cuePending = 0;
    let cueAny = 0;
    let shapeFit = 0;
    values.forEach((c, i) => {
      const m = coverage(labelWords, cueWords[i]);
      if (m > cueAny) cueAny = m;
      if (pending[i]) {
        if (m > cuePending) cuePending = m;
        const fits =
          ((type === 'email' || labelWords.includes('email')) && c.text.includes('@')) ||
          ((labelWords.includes('phone') || type === 'tel') && PHONE_RE.test(c.text)) ||
          ((labelWords.includes('date') || type === 'date') && DATE.test(c.text)) ||
          ((type === 'number' || labelWords.includes('number') || labelWords.includes('zip')) &&
            NUMERIC.test(c.text));
        if (fits) shapeFit = 1;
      }
    });
    // The option the task names best (whole phrase, else share of its words: "Denver, CO" for
    // "... of Denver"), and whether the select still shows something else.
    let optInTask = 0;
    let optPending = 0;
    if (isSelectLike(el)) {
      const selected = normalizeText(a.selected ?? a.value ?? '');
      let best = '';
      for (const o of selectOptions(el)) {
        const on = normalizeText(o);
        const m = hasPhrase(ctx.objectiveNorm, on) ? 1 : coverage(contentWords(o), ctx.content);
        if (m > optInTask) {
          optInTask = m;
          best = on;
        }
      }
      if (optInTask >= 0.5 && best !== selected) optPending = 1;
    }
    const isValue = values.some((c) => c.norm === info.norm && info.norm.length > 1);
    const extends_ = !isValue && values.some((c) => c.norm.length > 2 && info.norm.startsWith(`${c.norm} `));
    const empty = entry && !a.value;
    // A field still waits for a value when the task states one for it that no field shows yet
    // (a prefilled default such as quantity 1 does not count as filled).
    const value = normalizeText(a.value ?? '');
    const holdsTaskValue = value !== '' && (ctx.typed.has(value) || values.some((c) => c.norm === value));
    const pendingEntry = entry && (cuePending >= 0.5 || (shapeFit === 1 && !holdsTaskValue));
    if (pendingEntry) pendingEntries++;
    // A checkbox or radio the task names (its words, numbers aside) that is not checked yet.
    const checkable =
      type === 'checkbox' || type === 'radio' || el.role === 'checkbox' || el.role === 'radio';
    const checked = isTruthy(a.checked) || a['aria-checked'] === 'true';
    const wordsNoNum = info.content.filter((w) => !/\d/.test(w));
    const named =
      (info.norm.length > 1 && hasPhrase(ctx.objectiveNorm, info.norm)) ||
      (wordsNoNum.length > 0 && coverage(wordsNoNum, ctx.content) >= 0.6);
    const pendingCheck = checkable && !checked && named;
    if (pendingCheck) pendingChecks++;
    if (optPending) pendingSelects++;
    const tag = el.tag.toLowerCase();
    const buttonish = tag === 'button' || el.role === 'button' || type === 'submit' || type === 'button';
    MATCH.write(dense, p, {
      cueLabelPending: entry ? cuePending : 0,
      cueLabelAny: cueAny,
      shapeFitPending: entry ? shapeFit : 0,
      selectOptionInTask: optInTask,
      selectOptionPending: optPending,
      labelIsTaskValue: bit(isValue),
      labelExtendsTaskValue: bit(extends_),
      firstOfLabel: bit(labelFirst.get(info.norm) === p),
      submitLike: bit((buttonish || tag === 'a') && SUBMIT_RE.test(info.norm)),
      dismissLike: bit(buttonish && DISMISS_WORD_RE.test(info.norm)),
      emptyEntry: bit(empty),
      labelTaskWords: Math.min(info.content.filter((w) => ctx.content.has(w)).length, 6) / 3,
      // Set below, once the first pending entry is known.
      firstPendingEntry: 0,
      pendingCheck: bit(pendingCheck),
    });
    // Forms are filled top to bottom: the first empty field a pending value is stated for.
    if (pendingEntry && firstPending < 0) firstPending = p;
  });
  if (firstPending >= 0) dense[firstPending * MATCH.size + MATCH.col('firstPendingEntry')] = 1;
  const pageText = normalizeText(
    [obs.title, ...(obs.texts ?? []).filter((b) => b.inViewport).map((b) => b.text)].join(' \n '),
  );
  const path = (() => {
    try {
      return new URL(obs.url).pathname.toLowerCase();
    } catch {
      return '';
    }
  })();
  const last = history.at(-1);
  const lastEl =
    last?.type === 'click' && ctx.lastIndex !== null
      ? elements.findIndex((el) => el.index === ctx.lastIndex)
      : -1;
  let since = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].type === 'input' || history[i].type === 'select_dropdown') break;
    since++;
  }
  const nPending = pending.filter(Boolean).length;
  const count = countProgress(objective, pageText);
  const progress: FeatureRecord<ProgressFeature> = {
    pendingEntries: Math.min(pendingEntries, 6) / 3,
    anyPendingEntry: bit(pendingEntries > 0),
    pendingSelects: Math.min(pendingSelects, 4) / 2,
    anyPendingSelect: bit(pendingSelects > 0),
    pendingChecks: Math.min(pendingChecks, 4) / 2,
    pendingValues: Math.min(nPending, 12) / 6,
    successText: bit(SUCCESS_RE.test(pageText)),
    successUrl: bit(/confirm|success|thank|receipt|complete|done|sent/.test(path)),
    taskQuestion: bit(QUESTION_RE.test(objective.toLowerCase())),
    lastClickSubmitLike: bit(lastEl >= 0 && MATCH.read(dense, lastEl, 'submitLike')),
    sinceLastInput: Math.min(since, 6) / 3,
    countShown: count.shown,
    countBelow: count.below,
    countAbove: count.above,
  };
  return { dense, progress };
}
