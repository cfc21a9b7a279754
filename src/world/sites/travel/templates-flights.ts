import type { Rng } from '../../../core/rng.ts';
import { numberCondition } from '../../answer.ts';
import { cond, containsText } from '../../match.ts';
import type { Condition, TaskTemplate } from '../../site.ts';
import { dismissOverlays } from '../../solver-steps.ts';
import { inSplit } from '../../split.ts';
import { drawCustomer } from '../customer.ts';
import { memoByData } from '../memo.ts';
import {
  airlineName,
  airportMention,
  clock,
  type Fare,
  type Flight,
  fareOf,
  flightsFor,
  longDate,
  type TravelData,
} from './data.ts';
import { filterFlights } from './listing.ts';
import { applyFlightFilters, monthsAhead, searchFlights, waitForFlights } from './solve.ts';
import type { TravelState } from './state.ts';

type TravelTemplate<P> = TaskTemplate<P, TravelState, TravelData>;

interface Trip {
  from: string;
  to: string;
  date: string;
}

/** Every ordered airport pair between two different cities ("FROM-TO"), split into train and test. */
const routePools = memoByData((data: TravelData) => {
  const all: string[] = [];
  for (const a of data.airports)
    for (const b of data.airports) if (a.city !== b.city) all.push(`${a.code}-${b.code}`);
  return { train: inSplit(all, 'train', (r) => r), test: inSplit(all, 'test', (r) => r) };
});

/** Draws a route (from this split) and a date in March-April 2027 whose flights pass `ok`. */
function drawTrip<T>(
  rng: Rng,
  split: 'train' | 'test',
  data: TravelData,
  ok: (flights: Flight[], trip: Trip) => T | null,
): (Trip & { pick: T }) | null {
  const pool = routePools(data)[split];
  for (let i = 0; i < 40; i++) {
    const [from, to] = rng.pick(pool).split('-');
    const day = rng.int(2, 59);
    const date = new Date(Date.UTC(2027, 2, day)).toISOString().slice(0, 10);
    const trip = { from, to, date };
    const pick = ok(flightsFor(data, from, to, date), trip);
    if (pick !== null) return { ...trip, pick };
  }
  return null;
}

function tripText(data: TravelData, t: Trip): string {
  return `from ${airportMention(data, t.from)} to ${airportMention(data, t.to)} on ${longDate(t.date)}`;
}

function resultsPath(t: Trip): string {
  return `/flights?from=${t.from}&to=${t.to}&date=${t.date}&pax=1`;
}

/** Condition: the answer names this flight number ("NX 1234", "nx1234") and no other flight of the route. */
export function flightNumberCondition(answer: string | null, number: string, others: string[]): Condition {
  const re = (n: string) => new RegExp(`\\b${n.replace(' ', '\\s*-?\\s*')}\\b`, 'i');
  const ok = !!answer && re(number).test(answer) && !others.some((o) => o !== number && re(o).test(answer));
  return cond('answer.flight', ok, `expected ${number}, got ${JSON.stringify(answer ?? '')}`);
}

/** Condition: the answer states this clock time ("6:05 AM", "06:05", "18:40"). */
export function timeCondition(answer: string | null, minutes: number): Condition {
  const found: number[] = [];
  for (const m of (answer ?? '').matchAll(/(\d{1,2})[:.](\d{2})\s*([ap])?\.?\s*m?\.?/gi)) {
    let h = Number(m[1]) % 12;
    if (!m[3] && Number(m[1]) >= 12) h = Number(m[1]);
    if (m[3]?.toLowerCase() === 'p') h += 12;
    found.push(h * 60 + Number(m[2]));
  }
  const want = minutes % 1440;
  return cond(
    'answer.time',
    found.includes(want),
    `expected ${clock(want)}, got ${JSON.stringify(answer ?? '')}`,
  );
}

export const cheapestNonstop: TravelTemplate<Trip & { price: number }> = {
  id: 'travel.cheapest-nonstop',
  description:
    'Information: search flights (autocomplete + date picker), filter nonstop, sort by price, read the fare.',
  generate(ctx) {
    const t = drawTrip(ctx.rng, ctx.split, ctx.data, (fl) => {
      const ns = filterFlights(fl, { nonstop: true, sort: 'price' });
      return ns.length >= 2 && ns[0].price < ns[1].price ? ns[0].price : null;
    });
    if (!t) return null;
    const objective = ctx.rng.pick([
      `What's the cheapest nonstop flight ${tripText(ctx.data, t)}? Tell me its price.`,
      `Find the lowest fare for a nonstop flight ${tripText(ctx.data, t)} for one adult. How much is it?`,
    ]);
    return {
      params: { from: t.from, to: t.to, date: t.date, price: t.pick },
      objective,
      startPath: '/',
      referenceLength: 15 + monthsAhead(t.date),
      splitKey: `${t.from}-${t.to}`,
    };
  },
  verify(p, _s, answer) {
    return [numberCondition('answer.price', answer, p.price, 0.5)];
  },
  async solve(p, d, data) {
    await dismissOverlays(d);
    await searchFlights(d, data, p.from, p.to, p.date);
    await applyFlightFilters(d, { nonstop: true, sort: 'Price (lowest first)' });
    await d.done(`The cheapest nonstop costs $${p.price}.`);
  },
};

export const fastestFlight: TravelTemplate<Trip & { number: string }> = {
  id: 'travel.fastest-flight',
  description: 'Information: the shortest flight of a route, on a results page that loads after a delay.',
  generate(ctx) {
    const t = drawTrip(ctx.rng, ctx.split, ctx.data, (fl) => {
      const s = filterFlights(fl, { sort: 'duration' });
      return s.length >= 2 && s[0].durationMin < s[1].durationMin ? s[0].number : null;
    });
    if (!t) return null;
    const objective = ctx.rng.pick([
      `Which flight ${tripText(ctx.data, t)} has the shortest travel time? Give me the flight number.`,
      `I want the fastest option ${tripText(ctx.data, t)}. What's its flight number?`,
    ]);
    return {
      params: { from: t.from, to: t.to, date: t.date, number: t.pick },
      objective,
      startPath: resultsPath(t),
      referenceLength: 6,
      splitKey: `${t.from}-${t.to}`,
    };
  },
  verify(p, _s, answer, data) {
    const others = flightsFor(data, p.from, p.to, p.date).map((f) => f.number);
    return [flightNumberCondition(answer, p.number, others)];
  },
  async solve(p, d) {
    await dismissOverlays(d);
    await waitForFlights(d);
    await applyFlightFilters(d, { sort: 'Duration (shortest first)' });
    await d.done(`Flight ${p.number} is the fastest.`);
  },
};

export const earliestNonstopUnder: TravelTemplate<
  Trip & { maxPrice: number; airline: string; depart: number }
> = {
  id: 'travel.earliest-nonstop-under',
  description:
    'Information: the earliest nonstop under a price (two filters + departure sort): airline and time.',
  generate(ctx) {
    const t = drawTrip(ctx.rng, ctx.split, ctx.data, (fl) => {
      const ns = filterFlights(fl, { nonstop: true, sort: 'price' });
      if (ns.length < 3) return null;
      const maxPrice = Math.ceil(ns[Math.floor(ns.length / 2)].price / 10) * 10;
      const s = filterFlights(fl, { nonstop: true, maxPrice, sort: 'departure' });
      const earliestAll = filterFlights(fl, { sort: 'departure' })[0];
      // The cap must matter: the overall earliest flight is excluded by a filter.
      if (s.length < 1 || earliestAll.id === s[0].id) return null;
      return { maxPrice, airline: s[0].airline, depart: s[0].depart };
    });
    if (!t) return null;
    const objective = ctx.rng.pick([
      `Among nonstop flights ${tripText(ctx.data, t)} that cost at most $${t.pick.maxPrice}, which airline operates the earliest one, and what time does it depart?`,
      `I need a nonstop ${tripText(ctx.data, t)} for $${t.pick.maxPrice} or less, leaving as early as possible. Which airline is it and when does it leave?`,
    ]);
    return {
      params: { from: t.from, to: t.to, date: t.date, ...t.pick },
      objective,
      startPath: resultsPath(t),
      referenceLength: 8,
      splitKey: `${t.from}-${t.to}`,
    };
  },
  verify(p, _s, answer, data) {
    const others = data.airlines.map((a) => a.name).filter((n) => n !== airlineName(data, p.airline));
    const named =
      containsText(answer, airlineName(data, p.airline)) && !others.some((o) => containsText(answer, o));
    return [
      cond('answer.airline', named, `expected ${airlineName(data, p.airline)}`),
      timeCondition(answer, p.depart),
    ];
  },
  async solve(p, d, data) {
    await dismissOverlays(d);
    await waitForFlights(d);
    await applyFlightFilters(d, { nonstop: true, maxPrice: p.maxPrice, sort: 'Departure (earliest first)' });
    await d.done(`${airlineName(data, p.airline)}, departing at ${clock(p.depart)}.`);
  },
};

interface BookFlightParams extends Trip {
  airline: string;
  flightId: string;
  first: string;
  last: string;
  dob: string;
  email: string;
  phone: string;
  seat: 'window' | 'aisle';
}

export const bookFlight: TravelTemplate<BookFlightParams> = {
  id: 'travel.book-flight',
  description:
    "Transaction: book an airline's cheapest flight with passenger details (date format, terms box).",
  generate(ctx) {
    const t = drawTrip(ctx.rng, ctx.split, ctx.data, (fl) => {
      const airline = ctx.rng.pick(fl).airline;
      const s = filterFlights(fl, { airlines: [airline], sort: 'price' });
      return s.length >= 2 && s[0].price < s[1].price ? { airline, flightId: s[0].id } : null;
    });
    if (!t) return null;
    const c = drawCustomer(ctx.rng);
    const y = ctx.rng.int(1950, 2004);
    const m = ctx.rng.int(1, 12);
    const day = ctx.rng.int(1, 28);
    const dob = `${String(m).padStart(2, '0')}/${String(day).padStart(2, '0')}/${y}`;
    const seat = ctx.rng.pick(['window', 'aisle'] as const);
    const objective = `Book the cheapest ${airlineName(ctx.data, t.pick.airline)} flight ${tripText(ctx.data, t)} for ${c.fullName}, born ${longDate(`${y}-${dob.slice(0, 2)}-${dob.slice(3, 5)}`)}. Contact email ${c.email}, phone ${c.phone}. ${seat === 'window' ? 'Window' : 'Aisle'} seat, no checked bags.`;
    return {
      params: {
        from: t.from,
        to: t.to,
        date: t.date,
        ...t.pick,
        first: c.first,
        last: c.last,
        dob,
        email: c.email,
        phone: c.phone,
        seat,
      },
      objective,
      startPath: resultsPath(t),
      referenceLength: 15,
      splitKey: `${t.from}-${t.to}`,
    };
  },
  verify(p, state) {
    const b = state.flights.at(-1);
    const pax = b?.passengers[0];
    const norm = (s: string | undefined) => (s ?? '').trim().toLowerCase();
    return [
      cond('booking.made', !!b, 'no flight was booked'),
      cond(
        'booking.flight',
        b?.flightId === p.flightId,
        `booked ${b?.flightId ?? 'nothing'}, expected ${p.flightId}`,
      ),
      cond('booking.passengers', b?.passengers.length === 1, 'expected one passenger'),
      cond('booking.first-name', norm(pax?.first) === norm(p.first), `first name "${pax?.first ?? ''}"`),
      cond('booking.last-name', norm(pax?.last) === norm(p.last), `last name "${pax?.last ?? ''}"`),
      cond('booking.dob', pax?.dob === p.dob, `date of birth "${pax?.dob ?? ''}"`),
      cond('booking.email', norm(b?.email) === norm(p.email), `email "${b?.email ?? ''}"`),
      cond('booking.seat', b?.seat === p.seat, `seat "${b?.seat ?? ''}"`),
      cond('booking.no-bags', b?.bags === 0, `${b?.bags} bags`),
    ];
  },
  async solve(p, d, data) {
    const x = flightsFor(data, p.from, p.to, p.date).find((f) => f.id === p.flightId)!;
    await dismissOverlays(d);
    await waitForFlights(d);
    await applyFlightFilters(d, { airline: airlineName(data, p.airline), sort: 'Price (lowest first)' });
    await d.click({ name: `Select flight ${x.number}` });
    await d.click({ name: 'Continue to booking', tag: 'a' });
    await d.input({ name: 'First name', tag: 'input' }, p.first);
    await d.input({ name: 'Last name', tag: 'input' }, p.last);
    await d.input({ name: 'Date of birth (MM/DD/YYYY)', tag: 'input' }, p.dob);
    await d.input({ name: 'Email', tag: 'input' }, p.email);
    await d.input({ name: 'Phone', tag: 'input' }, p.phone);
    await d.click({ name: p.seat === 'window' ? 'Window' : 'Aisle', tag: 'input' });
    await d.click({ name: 'I have read and accept the fare rules', tag: 'input' });
    await d.click({ name: 'Confirm booking', tag: 'button' });
    await d.waitFor((o) => o.url.includes('/trips?booked='), 'the booking confirmation');
  },
};

type FeeKind = 'change' | 'cancel' | 'bag';
const FEE_TEXT: Record<FeeKind, string> = {
  change: 'change fee',
  cancel: 'cancellation fee',
  bag: 'fee for the first checked bag',
};

function feeOf(f: Fare, kind: FeeKind): number | null {
  return kind === 'change' ? f.changeFee : kind === 'cancel' ? f.cancelFee : f.bagFee;
}

export const fareRules: TravelTemplate<Trip & { number: string; kind: FeeKind; fee: number }> = {
  id: 'travel.fare-rules',
  description: "Information: a fee from a flight's fare rules, which open in a new tab.",
  generate(ctx) {
    const kind = ctx.rng.pick(['change', 'cancel', 'bag'] as const);
    const t = drawTrip(ctx.rng, ctx.split, ctx.data, (fl) => {
      const withFee = fl.filter((f) => (feeOf(fareOf(ctx.data, f.fare), kind) ?? 0) > 0);
      return withFee.length ? ctx.rng.pick(withFee) : null;
    });
    if (!t) return null;
    const fee = feeOf(fareOf(ctx.data, t.pick.fare), kind)!;
    const objective = `For ${airlineName(ctx.data, t.pick.airline)} flight ${t.pick.number} ${tripText(ctx.data, t)}, what is the ${FEE_TEXT[kind]} according to its fare rules?`;
    return {
      params: { from: t.from, to: t.to, date: t.date, number: t.pick.number, kind, fee },
      objective,
      startPath: resultsPath(t),
      referenceLength: 5,
      splitKey: `${t.from}-${t.to}`,
    };
  },
  verify(p, _s, answer) {
    return [numberCondition('answer.fee', answer, p.fee, 0.5)];
  },
  async solve(p, d) {
    await dismissOverlays(d);
    await waitForFlights(d);
    await d.click({ name: `Select flight ${p.number}` });
    await d.click({ name: 'Fare rules', tag: 'a' });
    const tab = d.obs.tabs.find((t) => t.url.includes('/fare-rules/'));
    if (tab && !tab.active) await d.switchTab(tab.id);
    await d.waitFor((o) => o.url.includes('/fare-rules/'), 'the fare rules tab');
    await d.done(`The ${FEE_TEXT[p.kind]} is $${p.fee}.`);
  },
};
