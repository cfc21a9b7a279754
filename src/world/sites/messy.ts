import type { Rng } from '../../core/rng.ts';

/**
 * Makes a query look typed by a hurried user: lower case, dropped punctuation, now and then a
 * swapped or dropped letter in a longer word. Seeded, so the corpus is the same for a seed.
 */
export function messy(rng: Rng, text: string, typoRate = 0.25): string {
  let s = rng.bool(0.7) ? text.toLowerCase() : text;
  if (rng.bool(0.6)) s = s.replace(/[?.!,']/g, '');
  return s
    .split(' ')
    .map((w) => {
      if (w.length < 5 || !rng.bool(typoRate)) return w;
      const i = rng.int(1, w.length - 2);
      return rng.bool(0.5)
        ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2)
        : w.slice(0, i) + w.slice(i + 1);
    })
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}
