import { MONTH_NAMES } from '../core/dates.ts';
import type { Element, Observation } from '../core/observation.ts';
import { PHONE_SOURCE } from '../core/text-patterns.ts';
import { isSelectLike, POLICY_KEYS, selectOptions } from './action-space.ts';
import { contentWords, normalizeText, STOPWORDS, words } from './text.ts';

/**
 * Argument candidates: the finite set of texts the argument head chooses from. Text spans come from
 * the task (quoted strings, numbers, spans after cue words, capitalized runs, n-grams), the agent's
 * memory, the page (short element texts, text-view lines) and select options; plus the fixed
 * arguments of scroll (down, up), send_keys (POLICY_KEYS) and done's empty answer. Order is
 * deterministic: fixed ones first, then by source priority and position; duplicates (same
 * normalized text) merge into the first, keeping their sources.
 */

export type CandidateKind = 'text' | 'scroll' | 'key' | 'empty';

/** Source bits of a candidate (a candidate can have several). */
export const SRC = {
  task: 1,
  quoted: 2,
  number: 4,
  cue: 8,
  capitalized: 16,
  memory: 32,
  page: 64,
  option: 128,
  ngram: 256,
  /** Shaped values: emails, phone numbers, dates (and their ISO and US forms), amounts. */
  pattern: 512,
  /** The rest of a clause after a word ("... subject Running late, ..."). */
  clause: 1024,
} as const;
export const SOURCE_BITS = Object.values(SRC);

export interface ArgCandidate {
  /** The text the action carries ('down'/'up' for scroll, the key for send_keys). */
  text: string;
  /** Dedup key: lower case, single spaces, no outer punctuation ("$1,250" and "1250" stay apart). */
  key: string;
  /** Core normalization (case, punctuation, number format), as actionsEquivalent compares texts. */
  norm: string;
  kind: CandidateKind;
  sources: number;
  /** The cue word right before the span in the task ('' if none). */
  cue: string;
  /** Up to three words before the span in its source text (or the select's label for options). */
  context: string;
  /** Relative position of the span in the task, or -1. */
  taskPos: number;
  /** Positions (in the kept element list) of the select elements that offer this text. */
  optionOf: number[];
}

/** Words after which a task usually states a value. */
export const CUE_WORDS = new Set([
  'to',
  'for',
  'named',
  'called',
  'with',
  'from',
  'in',
  'at',
  'as',
  'by',
  'under',
  'below',
  'above',
  'over',
  'subject',
  'body',
  'message',
  'saying',
  'titled',
  'is',
  'on',
]);

const SENTENCE_END = /[,.;:!?)\]"”]$/;
const EDGE_PUNCT = /^[("'“‘[]+|[)"'”’\],.;:!?]+$/g;

interface RawToken {
  text: string;
  /** True when a clause boundary follows the token. */
  breakAfter: boolean;
  /** True when a sentence ends after the token (not a comma or colon: "Estimated cost: $18,750"). */
  sentenceEnd: boolean;
}

function rawTokens(text: string): RawToken[] {
  const out: RawToken[] = [];
  for (const t of text.split(/\s+/)) {
    if (!t) continue;
    const clean = t.replace(EDGE_PUNCT, '');
    if (!clean) continue;
    out.push({ text: clean, breakAfter: SENTENCE_END.test(t), sentenceEnd: /[.;!?]["”)]?$/.test(t) });
  }
  return out;
}

/**
 * The words of a task's parameters: quoted values, numbers, and capitalized words that do not open
 * a sentence (the names of people, products, recipes a template is filled with). They change from
 * task to task, and held-out tasks use values train tasks never do, so the featurizer reads them
 * as one "task parameter" token wherever they appear instead of as words to memorize.
 */
export function taskParamWords(objective: string): Set<string> {
  const out = new Set<string>();
  const addWords = (s: string) => {
    for (const w of words(s)) if (!STOPWORDS.has(w)) out.add(w);
  };
  for (const m of objective.matchAll(/"([^"]{1,80})"|“([^”]{1,80})”/g)) addWords(m[1] ?? m[2] ?? '');
  const tokens = rawTokens(objective);
  tokens.forEach((t, i) => {
    if (/\d/.test(t.text)) addWords(t.text);
    else if (/^\p{Lu}/u.test(t.text) && i > 0 && !tokens[i - 1].sentenceEnd) addWords(t.text);
  });
  return out;
}

/** Limits of candidate extraction (part of the featurizer config). */
export interface CandidateLimits {
  maxCandidates: number;
  maxNgram: number;
  maxOptionsPerSelect: number;
  maxPageCandidates: number;
}

/** Lower case, single spaces, no outer punctuation: texts that differ only so are one candidate. */
export function candidateKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s"'“”‘’.,;:!?()[\]{}]+|[\s"'“”‘’.,;:!?()[\]{}]+$/g, '');
}

class CandidateSet {
  readonly list: ArgCandidate[] = [];
  private readonly byKey = new Map<string, ArgCandidate>();
  constructor(private readonly max: number) {}

  add(
    text: string,
    kind: CandidateKind,
    sources: number,
    extra: Partial<ArgCandidate> = {},
  ): ArgCandidate | null {
    const key = kind === 'text' ? candidateKey(text) : `${kind}:${text}`;
    if (kind === 'text' && (key.length === 0 || key.length > 200)) return null;
    const seen = this.byKey.get(key);
    if (seen) {
      seen.sources |= sources;
      if (!seen.cue && extra.cue) seen.cue = extra.cue;
      if (seen.taskPos < 0 && extra.taskPos !== undefined) seen.taskPos = extra.taskPos;
      // Options are chosen by their visible text: keep the option's spelling.
      if (sources & SRC.option) seen.text = text.trim();
      if (extra.optionOf)
        for (const p of extra.optionOf) if (!seen.optionOf.includes(p)) seen.optionOf.push(p);
      return seen;
    }
    if (this.list.length >= this.max) return null;
    const c: ArgCandidate = {
      text: kind === 'text' ? text.trim() : text,
      key,
      norm: kind === 'text' ? normalizeText(text) : key,
      kind,
      sources,
      cue: extra.cue ?? '',
      context: extra.context ?? '',
      taskPos: extra.taskPos ?? -1,
      optionOf: extra.optionOf ? [...extra.optionOf] : [],
    };
    this.list.push(c);
    this.byKey.set(key, c);
    return c;
  }
}

function isSpanEdgeOk(tokens: RawToken[], i: number, j: number): boolean {
  const first = tokens[i].text.toLowerCase();
  const last = tokens[j].text.toLowerCase();
  if (STOPWORDS.has(first) || STOPWORDS.has(last)) return i === j ? /\d/.test(first) : false;
  for (let k = i; k < j; k++) if (tokens[k].breakAfter) return false;
  return true;
}

function spanText(tokens: RawToken[], i: number, j: number): string {
  return tokens
    .slice(i, j + 1)
    .map((t) => t.text)
    .join(' ');
}

/** Up to three words before token i, within its sentence. */
function contextBefore(tokens: RawToken[], i: number): string {
  let start = Math.max(0, i - 3);
  for (let k = i - 1; k >= start; k--) {
    if (tokens[k].sentenceEnd) {
      start = k + 1;
      break;
    }
  }
  return tokens
    .slice(start, i)
    .map((t) => t.text)
    .join(' ');
}

const NAME_JOINERS = new Set(['of', 'and', 'de', 'la', 'du', 'von', '&']);
const MONTHS = MONTH_NAMES.map((m) => m.toLowerCase());
const LONG_DATE = new RegExp(`\\b(${MONTHS.join('|')}) (\\d{1,2}),? (\\d{4})\\b`, 'gi');
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
const US_DATE = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g;
const PATTERNS = [
  /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g,
  new RegExp(`${PHONE_SOURCE}\\b`, 'g'),
  /[$€£]\d[\d,]*(?:\.\d+)?/g,
];

/** The same date written the ways forms ask for it: ISO, MM/DD/YYYY and "Month D, YYYY". */
function dateForms(y: number, m: number, d: number): string[] {
  if (m < 1 || m > 12 || d < 1 || d > 31) return [];
  const mm = String(m).padStart(2, '0');
  const dd = String(d).padStart(2, '0');
  const month = MONTHS[m - 1][0].toUpperCase() + MONTHS[m - 1].slice(1);
  return [`${y}-${mm}-${dd}`, `${mm}/${dd}/${y}`, `${month} ${d}, ${y}`];
}

/** Shaped values with their exact spelling, and dates in every common form. */
function addPatterns(
  set: CandidateSet,
  text: string,
  tokens: RawToken[],
  base: number,
  pos: (i: number) => number,
): void {
  const at = (index: number | undefined) => rawTokens(text.slice(0, index ?? 0)).length;
  const add = (value: string, index: number | undefined) => {
    const i = at(index);
    set.add(value, 'text', base | SRC.pattern, { context: contextBefore(tokens, i), taskPos: pos(i) });
  };
  for (const re of PATTERNS) for (const m of text.matchAll(re)) add(m[0], m.index);
  for (const m of text.matchAll(LONG_DATE)) {
    for (const f of dateForms(Number(m[3]), MONTHS.indexOf(m[1].toLowerCase()) + 1, Number(m[2])))
      add(f, m.index);
  }
  for (const m of text.matchAll(ISO_DATE))
    for (const f of dateForms(Number(m[1]), Number(m[2]), Number(m[3]))) add(f, m.index);
  for (const m of text.matchAll(US_DATE))
    for (const f of dateForms(Number(m[3]), Number(m[1]), Number(m[2]))) add(f, m.index);
}

/** Spans of a free text (task or memory), in priority order. */
function addTextSpans(
  set: CandidateSet,
  text: string,
  base: number,
  limits: CandidateLimits,
  isTask: boolean,
): void {
  // Memory (the agent's own notes) only contributes literal values: quoted strings and numbers.
  const tokens = rawTokens(text);
  const n = Math.max(1, tokens.length);
  const pos = (i: number) => (isTask ? i / n : -1);
  for (const m of text.matchAll(/"([^"]{1,80})"|“([^”]{1,80})”|'([^']{2,80})'/g)) {
    const q = m[1] ?? m[2] ?? m[3];
    const at = rawTokens(text.slice(0, m.index)).length;
    set.add(q, 'text', base | SRC.quoted, { context: contextBefore(tokens, at), taskPos: pos(at) });
  }
  addPatterns(set, text, tokens, base, pos);
  tokens.forEach((t, i) => {
    if (!/\d/.test(t.text)) return;
    const ctx = contextBefore(tokens, i);
    set.add(t.text, 'text', base | SRC.number, { context: ctx, taskPos: pos(i) });
    const digits = t.text.replace(/^[$€£]/, '').replace(/,/g, '');
    if (digits !== t.text) set.add(digits, 'text', base | SRC.number, { context: ctx, taskPos: pos(i) });
  });
  if (!isTask) return;
  tokens.forEach((t, i) => {
    const cue = t.text.toLowerCase();
    if (!CUE_WORDS.has(cue) || t.breakAfter) return;
    for (let j = i + 1; j < Math.min(tokens.length, i + 1 + 5); j++) {
      if (CUE_WORDS.has(tokens[j].text.toLowerCase()) && j > i + 1) break;
      if (isSpanEdgeOk(tokens, i + 1, j)) {
        set.add(spanText(tokens, i + 1, j), 'text', base | SRC.cue, {
          cue,
          context: contextBefore(tokens, i + 1),
          taskPos: pos(i + 1),
        });
      }
      if (tokens[j].breakAfter) break;
    }
  });
  // What follows a colon up to the end of its sentence, spelled as the task spells it: the message
  // of "Reply: Yes, 3 PM works for me." or "so it reads: Alex Morgan, Marketing Director".
  for (const m of text.matchAll(/:\s+/g)) {
    const start = (m.index ?? 0) + m[0].length;
    const rest = text.slice(start);
    const end = rest.search(/[.!?]["”)]?(?=\s+[\p{Lu}"“(]|\s*$)/u);
    const value = (end < 0 ? rest : rest.slice(0, end + 1)).trim();
    const at = rawTokens(text.slice(0, start)).length;
    if (value.split(/\s+/).length >= 2)
      set.add(value, 'text', base | SRC.clause, { context: contextBefore(tokens, at), taskPos: pos(at) });
  }
  // Capitalized runs (names of things), joined by the small words names contain.
  const addName = (i: number, j: number) => {
    const extra = { context: contextBefore(tokens, i), taskPos: pos(i) };
    const span = spanText(tokens, i, j);
    set.add(span, 'text', base | SRC.capitalized, extra);
    // "Matthew Lee's email": the name is the run without its possessive.
    const bare = span.replace(/['’]s$/, '');
    if (bare !== span) set.add(bare, 'text', base | SRC.capitalized, extra);
  };
  for (let i = 0; i < tokens.length; i++) {
    if (!/^\p{Lu}/u.test(tokens[i].text)) continue;
    if (i > 0 && /^\p{Lu}/u.test(tokens[i - 1].text) && !tokens[i - 1].breakAfter) continue;
    let j = i;
    while (
      j + 1 < tokens.length &&
      j - i < 7 &&
      !tokens[j].breakAfter &&
      (/^[\p{Lu}\d]/u.test(tokens[j + 1].text) ||
        (NAME_JOINERS.has(tokens[j + 1].text) &&
          j + 2 < tokens.length &&
          /^\p{Lu}/u.test(tokens[j + 2].text)))
    )
      j++;
    if (j > i || (i > 0 && !STOPWORDS.has(tokens[i].text.toLowerCase()))) addName(i, j);
    // A sentence opens with a capitalized verb ("Save Dijon Chicken Stew", "Email Kimberly
    // Ramirez"): the name is the run after it.
    if (j > i && (i === 0 || tokens[i - 1].sentenceEnd)) addName(i + 1, j);
  }
  // Clause tails: what follows a word up to the end of its clause, the way a form value is stated.
  tokens.forEach((t, i) => {
    if (t.breakAfter || i + 2 >= tokens.length + 1) return;
    let j = i + 1;
    while (j < tokens.length && !tokens[j].breakAfter && j - i < 20 && tokens[j].text.toLowerCase() !== 'and')
      j++;
    if (j >= tokens.length) j = tokens.length - 1;
    else if (tokens[j].text.toLowerCase() === 'and') j--;
    if (j - i >= 2 && isSpanEdgeOk(tokens, i + 1, j)) {
      set.add(spanText(tokens, i + 1, j), 'text', base | SRC.clause, {
        cue: CUE_WORDS.has(t.text.toLowerCase()) ? t.text.toLowerCase() : '',
        context: contextBefore(tokens, i + 1),
        taskPos: pos(i + 1),
      });
    }
  });
  for (let len = 1; len <= limits.maxNgram; len++) {
    for (let i = 0; i + len <= tokens.length; i++) {
      if (!isSpanEdgeOk(tokens, i, i + len - 1)) continue;
      set.add(spanText(tokens, i, i + len - 1), 'text', base | SRC.ngram, {
        context: contextBefore(tokens, i),
        taskPos: pos(i),
      });
    }
  }
}

/**
 * Texts of the page an answer can be: visible text blocks and element texts, whole (up to 30
 * words) and split at separators (`Price: $182` gives `$182`), plus the numbers in them.
 */
function pageTexts(
  obs: Observation,
  elements: readonly Element[],
  taskWords: ReadonlySet<string>,
): Array<{ p: string; context: string }> {
  // Element names first: the item an answer names (a product, hotel, recipe) is a link or a
  // button, and the page's text blocks are mostly the prices and ratings around it.
  const texts: string[] = [];
  for (const el of elements) {
    texts.push(el.text || el.name);
    // A link's accessible name is often the bare title its text decorates (price, rating).
    if (el.text && el.name && el.name !== el.text) texts.push(el.name);
  }
  for (const b of obs.texts ?? []) texts.push(b.text);
  // Texts sharing words with the task first (the answer to an information task usually sits in
  // one), with their parts and numbers right behind them: "$182" matters because of its line.
  // A part's context is the part before it ("Status: Received" -> "Received" after "Status"),
  // a number's the words before it: what the value is the value of.
  const scored: Array<{ p: string; context: string; i: number; overlap: number }> = [];
  for (const t of texts) {
    const s = t.replace(/\s+/g, ' ').trim();
    if (!s) continue;
    const overlap = contentWords(s).filter((w) => taskWords.has(w)).length;
    const push = (p: string, context: string) => scored.push({ p, context, i: scored.length, overlap });
    if (s.split(' ').length <= 30) push(s, '');
    let prev = '';
    for (const part of s.split(/\s*(?:[|·•:]|\s-\s)\s*/)) {
      if (part && part !== s && part.split(' ').length <= 12) push(part, prev);
      prev = part;
    }
    for (const m of s.matchAll(/[$€£]?\d[\d,]*(?:\.\d+)?%?/g))
      push(m[0], s.slice(0, m.index).split(' ').slice(-4).join(' '));
  }
  scored.sort((a, b) => b.overlap - a.overlap || a.i - b.i);
  return scored;
}

/**
 * Builds the candidate list of a state. `elements` are the kept elements, in the order the element
 * head sees them (their positions name option owners).
 */
export function buildCandidates(
  objective: string,
  memory: string,
  obs: Observation,
  elements: readonly Element[],
  limits: CandidateLimits,
): ArgCandidate[] {
  const set = new CandidateSet(limits.maxCandidates);
  set.add('down', 'scroll', 0);
  set.add('up', 'scroll', 0);
  for (const k of POLICY_KEYS) set.add(k, 'key', 0);
  set.add('', 'empty', 0);
  // Options are needed in full for select masks, so they come before the open-ended spans.
  elements.forEach((el, p) => {
    if (!isSelectLike(el)) return;
    const label = el.name || el.attributes['aria-label'] || el.attributes.name || '';
    for (const o of selectOptions(el).slice(0, limits.maxOptionsPerSelect)) {
      set.add(o, 'text', SRC.option, { context: label, optionOf: [p] });
    }
  });
  addTextSpans(set, objective, SRC.task, limits, true);
  if (memory.trim()) addTextSpans(set, memory, SRC.memory, limits, false);
  const taskWords = new Set(contentWords(objective));
  let added = 0;
  for (const { p, context } of pageTexts(obs, elements, taskWords)) {
    if (added >= limits.maxPageCandidates) break;
    // Only new candidates use the page budget (a page text the task also states merges into it).
    const before = set.list.length;
    set.add(p, 'text', SRC.page, { context });
    if (set.list.length > before) added++;
  }
  return set.list;
}
