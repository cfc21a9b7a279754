import type { Action } from '../core/action.ts';
import { POLICY_ACTION_TYPES } from './action-space.ts';
import { SRC } from './candidates.ts';
import { argumentMask, type StateStructure } from './featurizer.ts';
import { normalizeText } from './text.ts';

/**
 * The candidate span that carries a composed answer. Teachers answer in sentences ("775 calories
 * per serving", "$418.00 (Northstar Air NX 1244).") that no candidate spells out, so SFT would
 * never train the argument head on those states and the student would answer at random. The
 * nearest expressible answer is the candidate the teacher's sentence contains: when the task's
 * question asks for a quantity, one with a number; then the earliest (answers lead with what was
 * asked), then the longest ("Pulse Fit 2", not "Pulse"). Null when no candidate occurs in it.
 */
/** Questions that ask for a quantity (the last sentence of a task). */
const QUANTITY_QUESTION =
  /\b(how (many|much|long)|price|cost|costs|rating|calories|temperature|time|fee|total|payment|amount|count|number|code|percent)\b/i;

export function answerSpan(st: StateStructure, answer: string, objective = ''): string | null {
  const norm = ` ${normalizeText(answer)} `;
  const question =
    objective
      .split(/(?<=[.?!])\s+/)
      .filter((s) => s.trim())
      .at(-1) ?? '';
  const wantsNumber = /\d/.test(answer) && QUANTITY_QUESTION.test(question);
  const mask = argumentMask(st, (POLICY_ACTION_TYPES as readonly string[]).indexOf('done'), -1);
  let best: { text: string; at: number; len: number; num: boolean } | null = null;
  st.candidates.forEach((c, i) => {
    if (!mask[i] || c.kind !== 'text' || (c.norm.length < 2 && !/\d/.test(c.norm))) return;
    const at = norm.indexOf(` ${c.norm} `);
    if (at < 0) return;
    const cand = { text: c.text, at, len: c.norm.length, num: /\d/.test(c.norm) };
    if (
      !best ||
      (wantsNumber && cand.num !== best.num
        ? cand.num
        : cand.at !== best.at
          ? cand.at < best.at
          : cand.len > best.len)
    )
      best = cand;
  });
  return (best as { text: string } | null)?.text ?? null;
}

/** A done action whose composed answer is replaced by its answer span (see answerSpan), or null. */
export function relabelAnswer(st: StateStructure, action: Action, objective = ''): Action | null {
  if (action.type !== 'done' || !action.success || !action.text.trim()) return null;
  const span = answerSpan(st, action.text, objective);
  return span === null ? null : { type: 'done', text: span, success: true };
}

/**
 * An input whose text no candidate spells, relabelled to the candidate the policy can type:
 * - a name typed in part for a suggestion list ("Joseph Cam") becomes the task's full name that
 *   starts with it ("Joseph Campbell"): the suggestions match it as well, and it is what a careful
 *   teacher types;
 * - a composed message that carries a code read earlier ("Here is the tracking number ...:
 *   1Z7V4...") becomes that code from the memory, which is what the message has to contain.
 * Anything else (a search query the teacher composed) stays unrepresentable: shortening it could
 * change what it finds. Null when neither applies.
 */
export function relabelInput(st: StateStructure, action: Action): Action | null {
  if (action.type !== 'input') return null;
  const typed = normalizeText(action.text);
  if (!typed) return null;
  const mask = argumentMask(st, (POLICY_ACTION_TYPES as readonly string[]).indexOf('input'), -1);
  const typable = st.candidates.filter((_, i) => mask[i]);
  // Sorts are stable: among equal lengths the first candidate wins.
  const completion = typable
    .filter(
      (c) =>
        c.sources & SRC.capitalized &&
        c.sources & SRC.task &&
        c.norm.length > typed.length &&
        c.norm.startsWith(typed),
    )
    .sort((a, b) => a.norm.length - b.norm.length)[0];
  const code = completion
    ? undefined
    : typable
        .filter(
          (c) =>
            c.sources & SRC.memory &&
            c.norm.length >= 6 &&
            /\d/.test(c.norm) &&
            ` ${typed} `.includes(` ${c.norm} `),
        )
        .sort((a, b) => b.norm.length - a.norm.length)[0];
  const best = completion ?? code;
  return best ? { ...action, text: best.text } : null;
}
