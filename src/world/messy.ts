import type { Rng } from '../core/rng.ts';

/**
 * Turns a clean request into the way people actually type it: lower case, shorthand ("pls",
 * "w/", "tmrw"), dropped punctuation, the odd typo or doubled "??". Spans listed in `keep`
 * (codes, quoted text, numbers someone would copy exactly) are left byte-for-byte alone.
 */

/** Shorthand people use, long form -> short forms. The rewriter expands them back. */
export const SHORTHAND: Record<string, string[]> = {
  please: ['pls', 'plz'],
  you: ['u'],
  with: ['w/'],
  about: ['abt', 're:'],
  tomorrow: ['tmrw'],
  message: ['msg'],
  forward: ['fwd', 'fw'],
  signature: ['sig'],
  bedroom: ['br', 'bd', 'bdrm'],
  bedrooms: ['br', 'bd', 'beds', 'bdrms'],
  bathroom: ['ba', 'bath'],
  bathrooms: ['ba', 'baths'],
  'square feet': ['sqft', 'sq ft'],
  apartment: ['apt'],
  number: ['#', 'no.', 'num'],
  information: ['info'],
  application: ['app'],
  appointment: ['appt'],
  confirmation: ['conf', 'confirmation'],
  friday: ['fri'],
  thursday: ['thu', 'thurs'],
  tuesday: ['tue', 'tues'],
  monday: ['mon'],
  wednesday: ['wed'],
  saturday: ['sat'],
  'as soon as possible': ['asap'],
  between: ['btwn'],
  because: ['bc', 'cuz'],
  thanks: ['thx', 'ty'],
  'how many': ['how many', 'hw many'],
  'out of office': ['ooo', 'out of office'],
  minimum: ['min'],
  maximum: ['max'],
  thousand: ['k'],
};

function typo(word: string, rng: Rng): string {
  if (word.length < 5 || /\d/.test(word)) return word;
  const i = rng.int(1, word.length - 2);
  switch (rng.int(0, 2)) {
    case 0:
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    case 1:
      return word.slice(0, i) + word.slice(i + 1);
    default:
      return word.slice(0, i) + word[i] + word.slice(i);
  }
}

export interface MessyOptions {
  /** Substrings to leave exactly as they are. */
  keep?: string[];
  /** Chance of a typo per eligible word (default 0.06). */
  typoRate?: number;
}

/** Makes a clean sentence messy, deterministically for a given rng state. */
export function messify(text: string, rng: Rng, opts: MessyOptions = {}): string {
  const keep = (opts.keep ?? []).filter((k) => k.length > 0).sort((a, b) => b.length - a.length);
  const slots: string[] = [];
  let s = text;
  for (const k of keep) {
    const i = s.toLowerCase().indexOf(k.toLowerCase());
    if (i < 0) continue;
    slots.push(s.slice(i, i + k.length));
    s = `${s.slice(0, i)}\u0001${slots.length - 1}\u0002${s.slice(i + k.length)}`;
  }
  if (rng.bool(0.75)) s = s.toLowerCase();
  for (const [long, shorts] of Object.entries(SHORTHAND)) {
    const re = new RegExp(`\\b${long}\\b`, 'gi');
    if (re.test(s) && rng.bool(0.45)) s = s.replace(re, rng.pick(shorts));
  }
  const rate = opts.typoRate ?? 0.06;
  s = s
    .split(' ')
    .map((w) => (w.includes('\u0001') || !rng.bool(rate) ? w : typo(w, rng)))
    .join(' ');
  if (rng.bool(0.5)) s = s.replace(/[.!]+(\s|$)/g, '$1');
  if (rng.bool(0.3)) s = s.replace(/,/g, '');
  if (rng.bool(0.2)) s = s.replace(/\?$/, '??');
  s = s.replace(/\s+/g, ' ').trim();
  return s.replace(/\u0001(\d+)\u0002/g, (_m, n) => slots[Number(n)]);
}
