import { MONTH_NAMES } from '../../core/dates.ts';
import { MONTH_ABBR_SOURCE } from '../../core/text-patterns.ts';
import { SHORTHAND } from '../messy.ts';

/**
 * Text handling for grounding messy queries: tokens, shorthand expansion, typo-tolerant token
 * matching, and the numbers and dates people write ("400k", "$1,850/mo", "mar 5", "3/5/2027").
 */

const STOP = new Set(
  'a an the of for to in on at my me i and with is it its from about please what whats how do does did can could would will be are was this that these those there their them they you your u im i m ive some any all just one get got need want find tell give show which who when where was were has have had by as or if so but dont into out up via per'.split(
    ' ',
  ),
);

/** Lowercase words and numbers, punctuation removed ("1Z999-AA" -> "1z999", "aa"). */
export function rawTokens(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/#/g, ' number ')
    .replace(/&/g, ' and ')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/[^a-z0-9.]+/g, ' ')
    .split(/\s+/)
    .flatMap((t) => t.replace(/^\.+|\.+$/g, '').split(/(?<!\d)\.|\.(?!\d)/))
    .filter(Boolean);
}

/** Tokens worth matching: stopwords dropped, but single letters and digits kept ("zone c", "unit 3b"). */
export function contentTokens(text: string): string[] {
  return rawTokens(text).filter((t) => !STOP.has(t));
}

const EXPANSIONS = new Map<string, string[]>();
for (const [long, shorts] of Object.entries(SHORTHAND)) {
  for (const s of shorts) {
    const key = rawTokens(s).join(' ');
    if (key && key !== long && !EXPANSIONS.has(key)) EXPANSIONS.set(key, rawTokens(long));
  }
}
for (const [k, v] of [
  ['bdrm', 'bedroom'],
  ['beds', 'bedroom'],
  ['bed', 'bedroom'],
  ['bedrooms', 'bedroom'],
  ['baths', 'bathroom'],
  ['yr', 'year'],
  ['yrs', 'years'],
  ['mo', 'month'],
  ['ppl', 'people'],
  ['subj', 'subject'],
  ['thru', 'through'],
  ['ooo', 'vacation'],
  ['autoreply', 'vacation'],
  ['snap', 'food assistance'],
  ['stamps', 'food assistance'],
  ['tix', 'tickets'],
  ['priciest', 'expensive'],
  ['biggest', 'largest'],
  ['sqft', 'square feet'],
  ['pct', 'percent'],
  ['respond', 'reply'],
  ['answer', 'reply'],
  ['register', 'apply'],
  ['registration', 'application'],
  ['tag', 'label'],
  ['star', 'starred'],
  ['price', 'cost'],
  ['cost', 'price'],
  ['fee', 'cost'],
] as const) {
  EXPANSIONS.set(k, rawTokens(v));
}

/** Whether a word is known shorthand ("sqft", "fwd"), which the expansion accounts for. */
export function isShorthand(t: string): boolean {
  return EXPANSIONS.has(t);
}

/** Query tokens with shorthand expanded ("fwd" -> "forward", "br" -> "bedroom"); originals kept too. */
export function queryTokens(text: string): string[] {
  const out: string[] = [];
  for (const t of contentTokens(text)) {
    // "2br", "30yr": the number and the unit are separate words too.
    const glued = /^(\d+(?:\.\d+)?)([a-z]{2,})$/.exec(t);
    for (const w of glued ? [t, glued[1], glued[2]] : [t]) {
      out.push(w);
      const exp = EXPANSIONS.get(w);
      if (exp) for (const e of exp) if (e !== w && !STOP.has(e)) out.push(e);
    }
  }
  return out;
}

/** Optimal-string-alignment distance (typos and swapped letters), with an early exit above `max`. */
export function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        cur[j] = Math.min(cur[j], prev2[j - 2] + 1);
      best = Math.min(best, cur[j]);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length];
}

/** Whether a typed token stands for a catalog token: equal, or a typo away when long enough. */
export function tokenMatches(typed: string, token: string): boolean {
  if (typed === token) return true;
  if (/\d/.test(typed) || /\d/.test(token)) return false;
  const n = Math.min(typed.length, token.length);
  // Short words are too close to each other ("same" ~ "jame") for a swapped or changed letter;
  // a dropped letter ("houe" for "house", "cndo" for "condo") is still recognised.
  if (n < 5) {
    const [short, long] = typed.length < token.length ? [typed, token] : [token, typed];
    return short.length >= 4 && long.length === short.length + 1 && deletes(long).includes(short);
  }
  return editDistance(typed, token, n >= 8 ? 2 : 1) <= (n >= 8 ? 2 : 1);
}

/** Light plural folding so "condos" matches "condo". */
export function stem(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) return t.slice(0, -1);
  return t;
}

/** Numbers in a text with money, thousands separators, k/m suffixes and percentages understood. */
export function numberMentions(text: string): Array<{ value: number; pos: number }> {
  const out: Array<{ value: number; pos: number }> = [];
  const re = /(\d[\d,]*(?:\.\d+)?)\s*(?:(k|m|million|thousand)(?![a-z]))?/gi;
  for (const m of text.matchAll(re)) {
    const at = m.index ?? 0;
    const before = text.slice(Math.max(0, at - 2), at);
    // Parts of dates, times and ranges ("3/5", "2:30", "2-3") and unit labels ("Unit 6A") are not amounts.
    if (/[\d/:]$/.test(before) || /\d-$/.test(before)) continue;
    if (/^[a-z](?![a-z])/i.test(text.slice(at + m[1].length)) && !m[2]) continue;
    let v = Number(m[1].replace(/,/g, ''));
    if (!Number.isFinite(v)) continue;
    const suf = (m[2] ?? '').toLowerCase();
    if (suf === 'k' || suf === 'thousand') v *= 1_000;
    if (suf === 'm' || suf === 'million') v *= 1_000_000;
    out.push({ value: v, pos: m.index ?? 0 });
  }
  // "no employees", "zero fees": a count of nothing.
  for (const m of text.matchAll(/\b(no|zero|none)\b/gi)) out.push({ value: 0, pos: m.index ?? 0 });
  return out.sort((a, b) => a.pos - b.pos);
}

const MONTHS = MONTH_NAMES.map((m) => m.toLowerCase());

/** Month-day(-year) mentions: "March 5", "mar 5th 2027", "3/5", "03/05/2027", "2027-03-05". */
export function dateMentions(
  text: string,
): Array<{ month: number; day: number; year: number | null; pos: number }> {
  const out: Array<{ month: number; day: number; year: number | null; pos: number }> = [];
  const lower = text.toLowerCase();
  const named = new RegExp(
    String.raw`\b(${MONTH_ABBR_SOURCE})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?`,
    'g',
  );
  for (const m of lower.matchAll(named)) {
    const month = MONTHS.findIndex((x) => x.startsWith(m[1].slice(0, 3))) + 1;
    out.push({ month, day: Number(m[2]), year: m[3] ? Number(m[3]) : null, pos: m.index ?? 0 });
  }
  for (const m of lower.matchAll(/\b(\d{1,2})\/(\d{1,2})(?:\/(\d{4}))?\b/g)) {
    out.push({ month: Number(m[1]), day: Number(m[2]), year: m[3] ? Number(m[3]) : null, pos: m.index ?? 0 });
  }
  for (const m of lower.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) {
    out.push({ month: Number(m[2]), day: Number(m[3]), year: Number(m[1]), pos: m.index ?? 0 });
  }
  return out
    .filter((d) => d.month >= 1 && d.month <= 12 && d.day >= 1 && d.day <= 31)
    .sort((a, b) => a.pos - b.pos);
}

/** A date parameter value ("2027-03-05" or "03/05/2027") as month, day, year; null if not a date. */
export function parseDateValue(v: unknown): { month: number; day: number; year: number } | null {
  if (typeof v !== 'string') return null;
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (m) return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v);
  if (m) return { month: Number(m[1]), day: Number(m[2]), year: Number(m[3]) };
  return null;
}

/** Ways a date is written in objectives, for telling whether a date parameter is visible. */
export function dateSurfaces(d: { month: number; day: number; year: number }): string[] {
  const name = MONTHS[d.month - 1];
  const cap = name.charAt(0).toUpperCase() + name.slice(1);
  const mm = String(d.month).padStart(2, '0');
  const dd = String(d.day).padStart(2, '0');
  return [
    `${cap} ${d.day}`,
    `${cap.slice(0, 3)} ${d.day}`,
    `${mm}/${dd}/${d.year}`,
    `${d.month}/${d.day}`,
    `${d.year}-${mm}-${dd}`,
  ];
}

function deletes(t: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < t.length; i++) out.push(t.slice(0, i) + t.slice(i + 1));
  return out;
}

/**
 * A vocabulary with fast typo-tolerant lookup (one edit or one swapped pair), through an index of
 * single-letter deletions: two words one edit apart always share a deletion variant.
 */
export class FuzzyVocab {
  private readonly words = new Set<string>();
  private readonly byDelete = new Map<string, string[]>();

  add(t: string): void {
    if (this.words.has(t)) return;
    this.words.add(t);
    if (t.length < 4 || /\d/.test(t)) return;
    for (const d of [t, ...deletes(t)]) this.byDelete.set(d, [...(this.byDelete.get(d) ?? []), t]);
  }

  /** Vocabulary words a typed token may stand for. */
  lookup(q: string): string[] {
    const out = new Set<string>();
    if (this.words.has(q)) out.add(q);
    if (q.length >= 4 && !/\d/.test(q)) {
      for (const d of q.length >= 5 ? [q, ...deletes(q)] : [q])
        for (const t of this.byDelete.get(d) ?? []) if (tokenMatches(q, t)) out.add(t);
    }
    return [...out];
  }
}
