import type { Condition } from './site.ts';

/**
 * Normalized matching for verifiers: agents answer in free text ("The total is $1,299.00."), so
 * comparisons ignore case, spacing, punctuation, diacritics and number formatting.
 */

/** Lowercases, strips diacritics and punctuation, and collapses whitespace. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** True when the normalized `needle` occurs in the normalized `haystack` on word boundaries. */
export function containsText(haystack: string | null | undefined, needle: string): boolean {
  const n = normalizeText(needle);
  if (!n) return true;
  return ` ${normalizeText(haystack ?? '')} `.includes(` ${n} `);
}

/** Normalized equality. */
export function sameText(a: string | null | undefined, b: string): boolean {
  return normalizeText(a ?? '') === normalizeText(b);
}

/**
 * Every number written in a text, with money, thousands separators and k/m suffixes understood:
 * "$1,299.00" -> 1299, "400k" -> 400000, "1.5m" -> 1500000, "6.25%" -> 6.25.
 */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  const re = /(\d[\d,]*(?:\.\d+)?|\.\d+)\s*([km](?![a-z]))?/gi;
  for (const m of text.matchAll(re)) {
    const raw = m[1].replace(/,(?=\d{3}(\D|$))/g, '').replace(/,/g, '');
    let v = Number(raw);
    if (!Number.isFinite(v)) continue;
    const suf = m[2]?.toLowerCase();
    if (suf === 'k') v *= 1_000;
    if (suf === 'm') v *= 1_000_000;
    out.push(v);
  }
  return out;
}

/** True when the text mentions the number (within an absolute tolerance). */
export function containsNumber(
  text: string | null | undefined,
  expected: number,
  tolerance = 0.005,
): boolean {
  return numbersIn(text ?? '').some((v) => Math.abs(v - expected) <= tolerance);
}

/** Letters and digits only, upper-cased: codes like "K7P-2QX" match "k7p2qx". */
export function codeForm(s: string): string {
  return s.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** True when the answer contains the code, ignoring case, spaces and dashes. */
export function containsCode(answer: string | null | undefined, code: string): boolean {
  const c = codeForm(code);
  return c.length > 0 && codeForm(answer ?? '').includes(c);
}

/** Shorthand for a verifier condition. */
export function cond(id: string, ok: boolean, detail?: string): Condition {
  return detail === undefined || ok ? { id, ok } : { id, ok, detail };
}

/** The answer condition every information task starts with: an answer was given at all. */
export function answered(answer: string | null): Condition {
  return cond('answer.given', !!answer && answer.trim().length > 0, 'no final answer');
}
