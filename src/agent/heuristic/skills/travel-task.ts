import { PHONE_RE } from '../../../core/text-patterns.ts';
import type { TaskGoal } from '../goal.ts';
import { isoOf, toLongDate } from '../kit.ts';

/** A place as the task names it: "Chicago (ORD)" (city and airport code) or "Toronto". */
export interface Place {
  text: string;
  city: string;
  code: string | null;
}

/** What a flight or hotel task asks, read from its text the way a traveller reads it. */
export interface TravelTask {
  kind: 'flight' | 'hotel' | null;
  from: Place | null;
  to: Place | null;
  /** Departure (flights) or check-in (hotels), as ISO dates. */
  date: string | null;
  checkout: string | null;
  flightNumber: string | null;
  /** A price cap the task states as one ("at most $300", "$350 or less"). */
  maxPrice: number | null;
  /** A budget ("my budget is $200 per night"): a cap too, on a closer reading. */
  budget: number | null;
  /** Whether the task wants the earliest departure (a wording goal.ts does not know). */
  earliest: boolean;
  ask: 'price' | 'number' | 'airline-time' | 'fee' | 'name' | 'rating' | null;
  fee: 'change' | 'cancellation' | 'bag' | null;
  book: boolean;
  traveller: { first: string; last: string; email: string; phone: string; dob: string | null } | null;
  seat: 'window' | 'aisle' | null;
  bags: number | null;
  hotel: string | null;
  room: string | null;
  guests: number | null;
}

const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const LONG_DATE = `${MONTH} \\d{1,2}, \\d{4}`;
const PLACE = "[A-Z][\\w.'-]*(?: [A-Z][\\w.'-]*)*(?: \\([A-Z]{3}\\))?";

function place(s: string | undefined): Place | null {
  if (!s) return null;
  const m = s.match(/^(.+?)\s*\(([A-Z]{3})\)$/);
  return m ? { text: s, city: m[1], code: m[2] } : { text: s, city: s, code: null };
}

function iso(long: string | undefined): string | null {
  const l = long ? toLongDate(long) : null;
  return l ? isoOf(l) : null;
}

/** Parses a flight or hotel task. Pure. */
export function readTravelTask(goal: TaskGoal): TravelTask {
  const t = goal.text;
  const route = t.match(new RegExp(`\\bfrom (${PLACE}) to (${PLACE})(?: on (${LONG_DATE}))?`));
  const hotelWords =
    /\b(hotels?|room|guest rating|check(?:ing)? in|stars?|per night|a night|reserve)\b/i.test(t);
  const kind: TravelTask['kind'] = /\b(flights?|fare|airline|nonstop|non-stop)\b/i.test(t)
    ? 'flight'
    : hotelWords
      ? 'hotel'
      : null;
  const stay =
    t.match(new RegExp(`\\bfrom (${LONG_DATE}) to (${LONG_DATE})`)) ??
    t.match(new RegExp(`\\bchecking in (${LONG_DATE}) and out (${LONG_DATE})`, 'i'));
  const dates = [...t.matchAll(new RegExp(LONG_DATE, 'g'))].map((m) => m[0]);
  const max =
    t.match(/\b(?:at most|under|below|up to|no more than|within)\s+\$(\d[\d,]*)/i)?.[1] ??
    t.match(/\$(\d[\d,]*)\s+(?:or less|and under)\b/i)?.[1] ??
    null;
  const budget = t.match(/\bbudget\b.*?\$(\d[\d,]*)/i)?.[1] ?? null;
  let ask: TravelTask['ask'] = null;
  if (goal.question) {
    if (/\bflight number\b/i.test(t)) ask = 'number';
    else if (/\bwhich airline\b/i.test(t)) ask = 'airline-time';
    else if (/\bfee\b/i.test(t)) ask = 'fee';
    else if (/\bguest rating does\b|\bhow do guests rate\b|\brating of\b/i.test(t)) ask = 'rating';
    else if (/\b(price|how much|fare|cost)\b/i.test(t)) ask = 'price';
    else ask = 'name';
  }
  const fee = /\bcancel/i.test(t)
    ? 'cancellation'
    : /\bchange fee\b/i.test(t)
      ? 'change'
      : /\bbag/i.test(t)
        ? 'bag'
        : null;
  const book = /\b(book|reserve)\b/i.test(t) && !goal.question;
  const name =
    t.match(/\bfor ([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)+), born\b/)?.[1] ??
    t.match(/\bGuest: ([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)+)/)?.[1] ??
    t.match(/\bunder the name ([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)+)/)?.[1] ??
    null;
  const dob = iso(t.match(new RegExp(`\\bborn (${LONG_DATE})`))?.[1]);
  const hotelRoom =
    t.match(/\b(?:book|reserve) (?:a|an|the) (.+?)(?: room)? at (.+?)(?=,| from | checking | for )/i) ?? null;
  const hotelAsk =
    t.match(/\bguest rating does (.+?) have\b/i)?.[1] ??
    t.match(/\bhow do guests rate (.+?)(?: \(out of 10\))?\?/i)?.[1] ??
    null;
  const guests = t.match(/\b(\d) guests?\b/i)?.[1];
  return {
    kind,
    from: place(route?.[1]),
    to: place(route?.[2]),
    date: iso(stay?.[1] ?? route?.[3] ?? dates[0]),
    checkout: iso(stay?.[2]),
    flightNumber: t.match(/\bflight ([A-Z]{2} ?\d{1,4})\b/)?.[1] ?? null,
    maxPrice: max ? Number(max.replace(/,/g, '')) : null,
    budget: budget ? Number(budget.replace(/,/g, '')) : null,
    earliest: /\bearliest\b|\bas early as possible\b/i.test(t),
    ask,
    fee: ask === 'fee' ? fee : null,
    book,
    traveller: name
      ? {
          first: name.split(' ')[0],
          last: name.split(' ').slice(1).join(' '),
          email: t.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/)?.[0] ?? '',
          phone: t.match(PHONE_RE)?.[0] ?? '',
          dob: dob ? `${dob.slice(5, 7)}/${dob.slice(8, 10)}/${dob.slice(0, 4)}` : null,
        }
      : null,
    seat: (t.match(/\b(window|aisle) seat\b/i)?.[1]?.toLowerCase() as 'window' | 'aisle' | undefined) ?? null,
    bags: /\bno checked bags?\b/i.test(t)
      ? 0
      : Number(t.match(/\b(\d) checked bags?\b/i)?.[1] ?? Number.NaN) || null,
    hotel: hotelRoom?.[2]?.trim() ?? hotelAsk?.trim() ?? null,
    room: hotelRoom?.[1]?.trim() ?? null,
    guests: guests ? Number(guests) : null,
  };
}
