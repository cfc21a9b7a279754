import { cond, normalizeText } from './match.ts';
import type { Condition } from './site.ts';

/**
 * Answer checks on top of match.ts for information tasks whose traps are lookalike names
 * ("Trail Runner 2" is not "Trail Runner 2 GTX") and recipe quantities ("1 1/2 cups").
 */

/**
 * Whether the answer names `name` and none of the `others` (competing names, such as the other
 * products of a listing). An other name that the target itself contains ("Trail Runner 2" inside
 * "Trail Runner 2 GTX") never counts against the answer.
 */
export function answerNames(answer: string | null, name: string, others: readonly string[] = []): boolean {
  if (!answer) return false;
  const text = ` ${normalizeText(answer)} `;
  const target = normalizeText(name);
  if (!target || !text.includes(` ${target} `)) return false;
  for (const other of others) {
    const o = normalizeText(other);
    if (!o || o === target || ` ${target} `.includes(` ${o} `)) continue;
    if (text.includes(` ${o} `)) return false;
  }
  return true;
}

/** The quantities an answer states, fractions included: "1 1/2" -> 1.5, "3/4" -> 0.75, "$1,299.00" -> 1299. */
export function quantitiesIn(answer: string): number[] {
  const out: number[] = [];
  const s = answer.replace(/(\d),(?=\d{3}\b)/g, '$1');
  const re = /(\d+(?:\.\d+)?)(?:\s+(\d+)\/(\d+)|\/(\d+))?/g;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const whole = Number(m[1]);
    if (m[2] !== undefined) out.push(whole + Number(m[2]) / Number(m[3]));
    else if (m[4] !== undefined) out.push(whole / Number(m[4]));
    else out.push(whole);
  }
  return out;
}

/**
 * Whether the answer states `expected` (within `tolerance`). Answers listing many different numbers
 * do not count: an agent must commit to a value, not enumerate candidates.
 */
export function answerHasNumber(
  answer: string | null,
  expected: number,
  tolerance = 0.005,
  maxNumbers = 4,
): boolean {
  if (!answer) return false;
  const nums = quantitiesIn(answer);
  if (nums.length === 0 || new Set(nums).size > maxNumbers) return false;
  return nums.some((n) => Math.abs(n - expected) <= tolerance);
}

/** Condition: the answer names `name` and no competing name. */
export function nameCondition(
  id: string,
  answer: string | null,
  name: string,
  others: readonly string[] = [],
): Condition {
  return cond(
    id,
    answerNames(answer, name, others),
    `expected "${name}", got ${JSON.stringify(answer ?? '')}`,
  );
}

/** Condition: the answer states the number `expected`. */
export function numberCondition(
  id: string,
  answer: string | null,
  expected: number,
  tolerance = 0.005,
): Condition {
  return cond(
    id,
    answerHasNumber(answer, expected, tolerance),
    `expected ${expected}, got ${JSON.stringify(answer ?? '')}`,
  );
}
