/**
 * Text helpers of the featurizer: normalization, word tokens, hashed token ids (word unigrams, word
 * bigrams and character trigrams, hashed into a fixed number of buckets with a seed).
 */

const DIACRITICS = /[\u0300-\u036f]/g;

/**
 * The form texts are compared in: core's normalization (case, spacing, punctuation, number format),
 * the same one actionsEquivalent and the RL rewards use, so "equivalent" texts map to one candidate.
 */
export { normalizeText } from '../core/action-equivalence.ts';

/** Lower-cased word tokens (letters and digits). */
export function words(s: string): string[] {
  return (
    s
      .normalize('NFKD')
      .replace(DIACRITICS, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Words that carry little meaning for matching elements to the task. */
export const STOPWORDS = new Set(
  (
    'a an the and or of to in on at for with by from as is are be it its this that these those my me i you your ' +
    'then than into onto up down please find go get show use set make any all some via per so do does can will'
  ).split(' '),
);

/** The content words of a text: words minus stopwords. */
export function contentWords(s: string): string[] {
  return words(s).filter((w) => !STOPWORDS.has(w));
}

/** Numbers in a text, as normalized strings (`$1,299.00` -> `1299`, `4.5` -> `4.5`). */
export function numbersIn(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/\d[\d,]*(?:\.\d+)?/g)) out.push(normalizeNumber(m[0]));
  return out;
}

export function normalizeNumber(s: string): string {
  const n = Number(s.replace(/,/g, ''));
  return Number.isFinite(n) ? String(n) : s;
}

/** Character trigrams of the words of a text, with word-boundary marks. */
export function charTrigrams(ws: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of ws) {
    const p = `#${w}#`;
    for (let i = 0; i + 3 <= p.length; i++) out.push(p.slice(i, i + 3));
  }
  return out;
}

/** Jaccard similarity of two sets. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Share of `a`'s items that are in `b` (0 when `a` is empty). */
export function coverage<T>(a: readonly T[], b: ReadonlySet<T>): number {
  if (a.length === 0) return 0;
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n / a.length;
}

/** FNV-1a over `s`, continuing from `h` (so prefixes are hashed once). */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** The word a task parameter's words are read as (see hashText); no real word contains `\u0001`. */
export const PARAM_WORD = '\u0001param';

/**
 * Hashes a text into bucket ids: word unigrams, word bigrams and (when `trigrams`) character
 * trigrams, each tagged with its kind so they do not collide by construction. `field` namespaces
 * tokens that should not share embeddings with plain words (e.g. `tag button`). At most `max` ids.
 * Words in `params` (the task's parameter words) are hashed as PARAM_WORD.
 */
export function hashText(
  text: string,
  buckets: number,
  seed: number,
  max: number,
  field = '',
  trigrams = true,
  params?: ReadonlySet<string>,
): number[] {
  // A task parameter word reads as the one word PARAM_WORD (no trigrams): "this is the task's value".
  const ws = params?.size ? words(text).map((w) => (params.has(w) ? PARAM_WORD : w)) : words(text);
  const out: number[] = [];
  const base = fnv(0x811c9dc5, `${seed}|${field}`);
  const uni = fnv(base, 'w:');
  const bi = fnv(base, 'b:');
  const tri = fnv(base, 'c:');
  for (let i = 0; i < ws.length && out.length < max; i++) out.push((fnv(uni, ws[i]) >>> 0) % buckets);
  for (let i = 0; i + 1 < ws.length && out.length < max; i++)
    out.push((fnv(fnv(fnv(bi, ws[i]), ' '), ws[i + 1]) >>> 0) % buckets);
  if (!trigrams) return out;
  for (const w of ws) {
    if (w === PARAM_WORD) continue;
    const p = `#${w}#`;
    for (let i = 0; i + 3 <= p.length && out.length < max; i++)
      out.push((fnv(tri, p.slice(i, i + 3)) >>> 0) % buckets);
  }
  return out;
}

/** The bucket of one raw token (used for categorical tokens such as `cue:to`). */
export function hashToken(token: string, buckets: number, seed: number): number {
  return (fnv(fnv(0x811c9dc5, `${seed}|`), token) >>> 0) % buckets;
}

/** A path's segments as words (`/shop/product/trail-runner-2?x=1` -> shop product trail runner 2). */
export function pathWords(url: string): string {
  let path = url;
  try {
    path = new URL(url, 'http://x').pathname;
  } catch {
    // not a URL: use the text as is
  }
  return path.replace(/[/_\-.]+/g, ' ').trim();
}
