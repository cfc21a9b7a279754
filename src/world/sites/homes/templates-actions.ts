import { longDate } from '../../../core/dates.ts';
import { hashString } from '../../../core/rng.ts';
import { numberCondition } from '../../answer.ts';
import { answered, cond, containsText, normalizeText } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { pickDate } from '../../solver-steps.ts';
import { poolTemplate, variant } from '../../template-kit.ts';
import { addressLine, CITIES, FEATURES, type HomesData, type Listing } from './data.ts';
import { TOUR_TIMES } from './pages-listing.ts';
import { monthlyPayment } from './search.ts';
import { acceptCookies, applyFilters, filterCost, openListing, openResult } from './solve.ts';
import type { HomesState } from './state.ts';
import { matching } from './templates-info.ts';

const listing = (data: HomesData, id: string): Listing => {
  const l = data.byId.get(id);
  if (!l) throw new Error(`unknown listing ${id}`);
  return l;
};
const where = (l: Listing) => `${addressLine(l)}, ${l.city}`;

/** Transactional: save one home by address; another unit at the same street is the lookalike. */
export const saveAddress: TaskTemplate<{ listingId: string }, HomesState, HomesData> = poolTemplate({
  id: 'homes.save-address',
  description: 'Save a home by its address (same-street lookalike units exist)',
  pool: (data) =>
    data.listings.filter((l) => l.sibling || hashString(l.id) % 4 === 0).map((l) => ({ listingId: l.id })),
  splitKey: (p) => p.listingId,
  word: (p, data) => {
    const l = listing(data, p.listingId);
    return {
      objective: variant(p, [
        `Save the home at ${where(l)} to my saved homes.`,
        `Add ${where(l)} (the ${l.type.toLowerCase()} listing) to my saved homes.`,
      ]),
      startPath: '/search',
      referenceLength: 6,
    };
  },
  verify: (p, state, _a, data) => {
    const l = listing(data, p.listingId);
    return [
      cond('saved.target', state.saved.includes(l.id), `${addressLine(l)} is not saved`),
      cond(
        'saved.notLookalike',
        !l.sibling || !state.saved.includes(l.sibling),
        'the other unit at the same street was saved',
      ),
    ];
  },
  solve: async (p, d, data) => {
    await acceptCookies(d);
    await openListing(d, listing(data, p.listingId));
    await d.click({ name: 'Save home', tag: 'button' });
    await d.done('Saved.');
  },
});

interface FeatureParams {
  city: string;
  type: string;
  minBeds: number;
  feature: string;
}

/** Transactional: save the cheapest home that satisfies four filters (sort plus feature filter). */
export const saveCheapestFeature: TaskTemplate<FeatureParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.save-cheapest-feature',
  description: 'Save the cheapest home of a type with a feature and a minimum bedroom count',
  pool: (data) => {
    const out: FeatureParams[] = [];
    for (const c of CITIES)
      for (const type of ['House', 'Condo', 'Townhouse'])
        for (const feature of FEATURES)
          for (const minBeds of [2, 3]) {
            const r = matching(data, { city: c.name, type, feature, beds: `${minBeds}+`, sort: 'price-asc' });
            if (r.length >= 2 && r[0].price !== r[1].price)
              out.push({ city: c.name, type, minBeds, feature });
          }
    return out;
  },
  splitKey: (p) => `${p.city}|${p.type}|${p.feature}|${p.minBeds}`,
  word: (p) => ({
    objective: variant(p, [
      `Save the cheapest ${p.type.toLowerCase()} in ${p.city} that has ${p.feature.toLowerCase()} and at least ${p.minBeds} bedrooms.`,
      `I want a ${p.type.toLowerCase()} in ${p.city} with ${p.minBeds}+ bedrooms and ${p.feature.toLowerCase()}. Save the least expensive one to my saved homes.`,
    ]),
    startPath: '/search',
    referenceLength:
      1 + filterCost({ city: p.city, beds: '1', type: p.type, feature: p.feature, sort: 'price-asc' }) + 3,
  }),
  verify: (p, state, _a, data) => {
    const top = matching(data, {
      city: p.city,
      type: p.type,
      feature: p.feature,
      beds: `${p.minBeds}+`,
      sort: 'price-asc',
    })[0];
    const others = state.saved.filter((id) => id !== top.id);
    return [
      cond('saved.target', state.saved.includes(top.id), `${addressLine(top)} is not saved`),
      cond('saved.only', others.length === 0, `also saved ${others.join(', ')}`),
    ];
  },
  solve: async (p, d, data) => {
    const f = { city: p.city, type: p.type, feature: p.feature, beds: `${p.minBeds}+`, sort: 'price-asc' };
    await acceptCookies(d);
    await applyFilters(d, f);
    await openResult(d, matching(data, f)[0].id);
    await d.click({ name: 'Save home', tag: 'button' });
    await d.done('Saved the cheapest match.');
  },
});

interface TourParams {
  listingId: string;
  personaId: string;
  date: string;
  time: string;
  tourType: string;
}

/** Transactional (hard): schedule a tour with a date picker, a time select and contact fields. */
export const scheduleTour: TaskTemplate<TourParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.tour',
  description: 'Schedule a tour of a home on a date and time with contact details',
  pool: (data) =>
    data.listings.flatMap((l) =>
      [0, 1].map((k) => {
        const h = hashString(`${l.id}:tour:${k}`);
        const date = new Date(Date.UTC(2027, 1, 3) + (h % 85) * 86_400_000).toISOString().slice(0, 10);
        return {
          listingId: l.id,
          personaId: data.personas[h % data.personas.length].id,
          date,
          time: TOUR_TIMES[(h >>> 8) % TOUR_TIMES.length],
          tourType: (h >>> 4) % 3 === 0 ? 'Video chat' : 'In person',
        };
      }),
    ),
  splitKey: (p) => p.listingId,
  word: (p, data) => {
    const l = listing(data, p.listingId);
    const who = data.personas.find((x) => x.id === p.personaId)!;
    const kind = p.tourType === 'Video chat' ? 'a video chat tour' : 'an in-person tour';
    const months = Number(p.date.slice(5, 7)) - 2;
    return {
      objective: `Schedule ${kind} of ${where(l)} on ${longDate(p.date)} at ${p.time}. My details: ${who.first} ${who.last}, ${who.email}, ${who.phone}.`,
      startPath: '/search',
      referenceLength: 1 + 3 + 1 + (p.tourType === 'Video chat' ? 1 : 0) + 2 + months + 1 + 3 + 1 + 1,
    };
  },
  verify: (p, state, _a, data) => {
    const who = data.personas.find((x) => x.id === p.personaId)!;
    const mine = state.tours.filter((t) => t.listingId === p.listingId);
    const t = mine[mine.length - 1];
    return [
      cond('tour.requested', !!t, 'no tour requested for this home'),
      cond(
        'tour.rightHome',
        state.tours.every((x) => x.listingId === p.listingId),
        'a tour was requested for another home',
      ),
      cond('tour.date', t?.date === p.date, `date ${t?.date ?? 'none'}`),
      cond('tour.time', t?.time === p.time, `time ${t?.time ?? 'none'}`),
      cond('tour.type', t?.tourType === p.tourType, `type ${t?.tourType ?? 'none'}`),
      cond(
        'tour.contact',
        !!t &&
          normalizeText(t.name) === normalizeText(`${who.first} ${who.last}`) &&
          t.email === who.email &&
          t.phone === who.phone,
        'contact details differ',
      ),
    ];
  },
  solve: async (p, d, data) => {
    const l = listing(data, p.listingId);
    const who = data.personas.find((x) => x.id === p.personaId)!;
    await acceptCookies(d);
    await openListing(d, l);
    await d.click({ name: 'Schedule a tour', role: 'tab' });
    if (p.tourType === 'Video chat')
      await d.click(
        (e) => e.tag === 'input' && e.attributes.name === 'tourType' && e.attributes.value === 'Video chat',
      );
    await pickDate(d, { name: 'Tour date', tag: 'input' }, p.date);
    await d.select({ name: 'Time', tag: 'select' }, p.time);
    await d.input({ name: 'Full name', tag: 'input' }, `${who.first} ${who.last}`);
    await d.input({ name: 'Email', tag: 'input' }, who.email);
    await d.input({ name: 'Phone', tag: 'input' }, who.phone);
    await d.click({ name: 'Request tour', tag: 'button' });
    await d.done('Tour requested.');
  },
});

interface MortgageParams {
  listingId: string;
  down: number;
  rate: number;
  term: number;
}

const RATES = [5.25, 5.5, 5.75, 6, 6.25, 6.5, 6.75, 6.875, 7, 7.125];

/** Information: the monthly payment from the listing's mortgage calculator tab. */
export const mortgage: TaskTemplate<MortgageParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.mortgage',
  description: "Monthly principal and interest from a listing's mortgage calculator",
  pool: (data) =>
    data.listings.flatMap((l) =>
      [0, 1].map((k) => {
        const h = hashString(`${l.id}:mortgage:${k}`);
        return {
          listingId: l.id,
          down: [5, 10, 15, 20, 25][h % 5],
          rate: RATES[(h >>> 3) % RATES.length],
          term: [15, 20, 30][(h >>> 7) % 3],
        };
      }),
    ),
  splitKey: (p) => p.listingId,
  word: (p, data) => {
    const l = listing(data, p.listingId);
    return {
      objective: variant(p, [
        `Using the mortgage calculator on the listing for ${where(l)}, what is the monthly principal and interest with ${p.down}% down, a ${p.rate}% interest rate and a ${p.term}-year loan?`,
        `What would my monthly payment (principal and interest) be for ${where(l)} if I put ${p.down}% down at ${p.rate}% for ${p.term} years? Use the site's mortgage calculator.`,
      ]),
      startPath: '/search',
      referenceLength: 10,
    };
  },
  verify: (p, _s, answer, data) => {
    const m = monthlyPayment(listing(data, p.listingId).price, p.down, p.rate, p.term);
    return [answered(answer), numberCondition('answer.payment', answer, m, 1.01)];
  },
  solve: async (p, d, data) => {
    const l = listing(data, p.listingId);
    await acceptCookies(d);
    await openListing(d, l);
    await d.click({ name: 'Mortgage calculator', role: 'tab' });
    await d.input({ name: 'Down payment (%)', tag: 'input' }, String(p.down));
    await d.input({ name: 'Interest rate (%)', tag: 'input' }, String(p.rate));
    await d.select({ name: 'Loan term', tag: 'select' }, `${p.term} years`);
    await d.click({ name: 'Calculate', tag: 'button' });
    await d.done(`$${monthlyPayment(l.price, p.down, p.rate, p.term).toLocaleString('en-US')} per month`);
  },
});

export const AGENT_QUESTIONS = [
  'Is the seller open to offers below asking?',
  'Are pets allowed?',
  'When is the next open house?',
  'How old is the roof?',
  'Is the HOA fee expected to go up?',
  'Are there any pending offers?',
  'Is the basement finished?',
  'What are the annual property taxes?',
];

interface ContactParams {
  listingId: string;
  personaId: string;
  question: string;
}

/** Transactional: message a listing agent through the contact form. */
export const contactAgent: TaskTemplate<ContactParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.contact-agent',
  description: "Send the listing agent a question with the user's contact details",
  pool: (data) =>
    data.listings.map((l) => {
      const h = hashString(`${l.id}:contact`);
      return {
        listingId: l.id,
        personaId: data.personas[h % data.personas.length].id,
        question: AGENT_QUESTIONS[(h >>> 5) % AGENT_QUESTIONS.length],
      };
    }),
  splitKey: (p) => p.listingId,
  word: (p, data) => {
    const l = listing(data, p.listingId);
    const who = data.personas.find((x) => x.id === p.personaId)!;
    return {
      objective: `Ask the listing agent for ${where(l)}: "${p.question}" Use my name ${who.first} ${who.last}, email ${who.email} and phone ${who.phone}.`,
      startPath: '/search',
      referenceLength: 11,
    };
  },
  verify: (p, state, _a, data) => {
    const who = data.personas.find((x) => x.id === p.personaId)!;
    const mine = state.messages.filter((m) => m.listingId === p.listingId);
    return [
      cond('message.sent', mine.length > 0, 'no message to this listing agent'),
      cond(
        'message.contact',
        mine.some(
          (m) =>
            normalizeText(m.name) === normalizeText(`${who.first} ${who.last}`) &&
            m.email === who.email &&
            m.phone === who.phone,
        ),
        'contact details differ',
      ),
      cond(
        'message.question',
        mine.some((m) => containsText(m.message, p.question)),
        'the question is missing',
      ),
    ];
  },
  solve: async (p, d, data) => {
    const who = data.personas.find((x) => x.id === p.personaId)!;
    await acceptCookies(d);
    await openListing(d, listing(data, p.listingId));
    await d.click({ name: 'Contact agent', role: 'tab' });
    await d.input({ name: 'Your name', tag: 'input' }, `${who.first} ${who.last}`);
    await d.input({ name: 'Your email', tag: 'input' }, who.email);
    await d.input({ name: 'Your phone', tag: 'input' }, who.phone);
    await d.input({ name: 'Message', tag: 'textarea' }, p.question);
    await d.click({ name: 'Send message', tag: 'button' });
    await d.done('Message sent.');
  },
});
