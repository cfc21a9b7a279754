import { parseNoteRules } from '../core/index.ts';

/**
 * # The note-stripping rule
 *
 * Reflection notes are injected into every observation of a retry; they are scaffolding for the
 * teacher, never something the student may learn to expect. Training data therefore obeys:
 *
 * 1. `notes` (of a trajectory or an observation) is never written to any export.
 * 2. Agent-written text produced while a note was visible — `thinking`, `evaluation_previous_goal`,
 *    `memory`, `next_goal` of every step, and the observation's carried `memory` / `progress` —
 *    is split into sentences, and a sentence is dropped when
 *    a. it shares any word n-gram with a note (n = 4, or the whole note when it is shorter,
 *       minimum 2 words; words are lower-cased letter/digit runs), including n-grams that span
 *       a sentence boundary (then every sentence touched is dropped); or
 *    b. it paraphrases a note: at least 3 of its content words (3+ letters, not stop words) and
 *       at least 60% of them occur among the note's content words; or
 *    c. it refers to the note itself ("note", "reflection", "previous attempt", "last time",
 *       "lesson", "as advised", "hint", ...).
 *    The remaining sentences are kept verbatim, in order.
 * 3. Text that comes from the page or the task (element list, URL, title, tabs, objective) and
 *    the arguments of executed actions are never altered: they are the environment and the
 *    ground truth, not the note's advice. As a last guard, an example whose agent-written text
 *    or action arguments still contain any 6-word window of a note is dropped whole and counted.
 *
 * Notes are compared as plain text; a note's machine-readable `RULES:` line contributes its
 * rules' target/value/why strings rather than its JSON syntax.
 */

const STOP_WORDS = new Set(
  (
    'the a an and or but if then than this that these those there here it its is are was were be been being ' +
    'to of in on at by for with from into onto over under as not no do does did done have has had will would ' +
    'should could can may might must shall you your yours we our us they them their he she his her i me my ' +
    'so such too very just also only again once more most some any all each both few other same own what which ' +
    'who whom whose when where why how about above below after before between through during up down out off'
  ).split(' '),
);

const SELF_REFERENCE =
  /\b(notes?|reflections?|reflected|previous (attempt|try|round|run)s?|last (attempt|time|try|round|run)|earlier (attempt|try|round|run)|prior (attempt|try|round|run)|lessons?|as advised|as instructed|advice|hints?|warned)\b/i;

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased letter/digit runs: the unit every overlap test counts in. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []) as string[];
}

function contentWords(ws: string[]): string[] {
  return ws.filter((w) => w.length >= 3 && !STOP_WORDS.has(w) && !/^\d+$/.test(w));
}

function ngrams(ws: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= ws.length; i++) out.push(ws.slice(i, i + n).join(' '));
  return out;
}

/** Splits text into sentences, keeping each sentence's own characters (and its trailing space). */
export function sentences(text: string): string[] {
  return text.match(/[^.!?;\n]+(?:[.!?;]+|\n+|$)\s*/g)?.filter((s) => s.trim().length > 0) ?? [];
}

/**
 * Plain note texts from rendered notes: the prose, plus each structured rule's strings. With
 * `withArguments` false the rules' targets and values are left out: those are element names and
 * field values taken from the page or the task ("Trail Runner 2", "Price: low to high"), which a
 * correct action names whether or not a note was shown.
 */
export function noteTexts(notes: readonly string[], withArguments = true): string[] {
  const out: string[] = [];
  for (const note of notes) {
    const at = note.indexOf('\nRULES: ');
    out.push(at >= 0 ? note.slice(0, at) : note);
    const rules = parseNoteRules(note);
    for (const r of [...rules.avoid, ...rules.prefer]) {
      for (const s of withArguments ? [r.target, r.value, r.why] : [r.why]) if (s) out.push(s);
    }
  }
  return out.filter((t) => words(t).length > 0);
}

/**
 * Applies the note-stripping rule for one set of notes (those visible during an attempt).
 * With no notes it returns text unchanged.
 */
export class NoteScrubber {
  private readonly grams = new Map<number, Set<string>>();
  private readonly windows6 = new Set<string>();
  private readonly windowLengths = new Set<number>();
  private readonly noteContent: Set<string>;
  readonly empty: boolean;

  constructor(notes: readonly string[]) {
    const texts = noteTexts(notes);
    this.empty = texts.length === 0;
    this.noteContent = new Set<string>();
    for (const t of texts) {
      const ws = words(t);
      for (const w of contentWords(ws)) this.noteContent.add(w);
      if (ws.length < 2) continue;
      const n = Math.min(4, ws.length);
      const set = this.grams.get(n) ?? new Set<string>();
      this.grams.set(n, set);
      for (const g of ngrams(ws, n)) set.add(g);
    }
    // The leak test (which drops a whole step) looks for the note's own words only; see noteTexts.
    for (const t of noteTexts(notes, false)) {
      const ws = words(t);
      if (ws.length < 2) continue;
      const w = Math.min(6, ws.length);
      this.windowLengths.add(w);
      for (const g of ngrams(ws, w)) this.windows6.add(g);
    }
  }

  /** The text with every sentence that quotes, paraphrases or mentions a note removed. */
  scrub(text: string): string {
    if (this.empty || !text) return text;
    let kept = sentences(text).filter((s) => !this.paraphrases(s) && !SELF_REFERENCE.test(s));
    // Quotes are found on the joined token stream so that an n-gram spanning two sentences is
    // caught too; dropping a sentence can make new neighbours, hence the loop.
    for (;;) {
      const hit = this.quotedSentences(kept);
      if (hit.size === 0) break;
      kept = kept.filter((_, i) => !hit.has(i));
    }
    return kept.join('').trim();
  }

  /** True when `text` contains any 6-word window of a note (whole note when shorter). */
  leaks(text: string): boolean {
    if (this.empty) return false;
    const ws = words(text);
    for (const n of this.windowLengths) {
      for (const g of ngrams(ws, n)) if (this.windows6.has(g)) return true;
    }
    return false;
  }

  private paraphrases(sentence: string): boolean {
    const cw = contentWords(words(sentence));
    if (cw.length < 3) return false;
    const shared = cw.filter((w) => this.noteContent.has(w)).length;
    return shared >= 3 && shared / cw.length >= 0.6;
  }

  private quotedSentences(kept: string[]): Set<number> {
    const tokens: Array<{ w: string; s: number }> = [];
    kept.forEach((s, i) => {
      for (const w of words(s)) tokens.push({ w, s: i });
    });
    const hit = new Set<number>();
    for (const [n, set] of this.grams) {
      for (let i = 0; i + n <= tokens.length; i++) {
        const g = tokens
          .slice(i, i + n)
          .map((t) => t.w)
          .join(' ');
        if (set.has(g)) for (let j = i; j < i + n; j++) hit.add(tokens[j].s);
      }
    }
    return hit;
  }
}
