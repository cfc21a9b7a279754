import { numberCondition } from '../../answer.ts';
import { answered, cond, containsText } from '../../match.ts';
import type { Condition, TaskTemplate } from '../../site.ts';
import { poolTemplate, variant } from '../../template-kit.ts';
import { addressLine, CITIES, HOME_TYPES, type HomesData, type Listing } from './data.ts';
import { PRICE_STEPS, parseSearch, runSearch } from './search.ts';
import { acceptCookies, applyFilters, type FilterChoice, filterCost, openListing } from './solve.ts';
import type { HomesState } from './state.ts';

/** Listings matching a filter choice (the site's own search, so tasks and pages agree). */
export function matching(data: HomesData, f: FilterChoice): Listing[] {
  const q = new URLSearchParams();
  if (f.city) q.set('city', f.city);
  if (f.hood) q.set('hood', f.hood);
  if (f.beds) q.set('beds', f.beds);
  if (f.type) q.set('type', f.type);
  if (f.feature) q.set('feature', f.feature);
  if (f.max) q.set('max', String(f.max));
  if (f.sort) q.set('sort', f.sort);
  return runSearch(data, parseSearch(q));
}

/** Condition: the answer names the listing's street address (and its unit, when it has one). */
export function addressCondition(answer: string | null, l: Listing): Condition {
  const unit = l.unit ? l.unit.replace(/^Unit /, '') : '';
  const ok =
    containsText(answer, l.street.split(' ').slice(0, 2).join(' ')) && (!unit || containsText(answer, unit));
  return cond('answer.address', ok, `expected ${addressLine(l)}`);
}

const lower = (t: string) => (t === 'Multi-family' ? 'multi-family home' : t.toLowerCase());

interface ExactParams {
  city: string;
  type: string;
  beds: number;
}

function exactPool(data: HomesData, keep: (exact: Listing[], atLeast: Listing[]) => boolean): ExactParams[] {
  const out: ExactParams[] = [];
  for (const c of CITIES)
    for (const type of HOME_TYPES)
      for (let beds = 1; beds <= 4; beds++) {
        const exact = matching(data, { city: c.name, type, beds: String(beds) });
        const atLeast = matching(data, { city: c.name, type, beds: `${beds}+` });
        if (keep(exact, atLeast)) out.push({ city: c.name, type, beds });
      }
  return out;
}

const maxBy = (ls: Listing[], f: (l: Listing) => number) => [...ls].sort((a, b) => f(b) - f(a));

/** Information: the most expensive home with EXACTLY n bedrooms (a "2+" filter gives another answer). */
export const priciestExact: TaskTemplate<ExactParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.priciest-exact',
  description: 'Price of the most expensive home of a type with an exact bedroom count in a city',
  pool: (data) =>
    exactPool(data, (exact, atLeast) => {
      const a = maxBy(exact, (l) => l.price);
      return a.length >= 2 && a[0].price !== a[1].price && maxBy(atLeast, (l) => l.price)[0].id !== a[0].id;
    }),
  splitKey: (p) => `${p.city}|${p.type}|${p.beds}`,
  word: (p) => ({
    objective: variant(p, [
      `What is the price of the most expensive ${lower(p.type)} with exactly ${p.beds} bedroom${p.beds > 1 ? 's' : ''} for sale in ${p.city}?`,
      `In ${p.city}, find the priciest ${lower(p.type)} listing that has exactly ${p.beds} bedroom${p.beds > 1 ? 's' : ''}. How much is it?`,
    ]),
    startPath: '/search',
    referenceLength: 1 + filterCost({ city: p.city, beds: '1', type: p.type, sort: 'price-desc' }) + 1,
  }),
  verify: (p, _s, answer, data) => {
    const top = maxBy(
      matching(data, { city: p.city, type: p.type, beds: String(p.beds) }),
      (l) => l.price,
    )[0];
    return [answered(answer), numberCondition('answer.price', answer, top.price, 1)];
  },
  solve: async (p, d, data) => {
    const f = { city: p.city, beds: String(p.beds), type: p.type, sort: 'price-desc' };
    await acceptCookies(d);
    await applyFilters(d, f);
    await d.done(`$${matching(data, f)[0].price.toLocaleString('en-US')}`);
  },
});

/** Information: how many homes have EXACTLY n bedrooms (the result count). */
export const countExact: TaskTemplate<ExactParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.count-exact',
  description: 'Count listings of a type with an exact bedroom count in a city',
  pool: (data) => exactPool(data, (exact, atLeast) => exact.length >= 1 && exact.length !== atLeast.length),
  splitKey: (p) => `${p.city}|${p.type}|${p.beds}`,
  word: (p) => ({
    objective: variant(p, [
      `How many ${lower(p.type)}s with exactly ${p.beds} bedroom${p.beds > 1 ? 's' : ''} are for sale in ${p.city}?`,
      `Count the ${p.city} ${lower(p.type)} listings that have exactly ${p.beds} bedroom${p.beds > 1 ? 's' : ''}.`,
    ]),
    startPath: '/search',
    referenceLength: 1 + filterCost({ city: p.city, beds: '1', type: p.type }) + 1,
  }),
  verify: (p, _s, answer, data) => [
    answered(answer),
    numberCondition(
      'answer.count',
      answer,
      matching(data, { city: p.city, type: p.type, beds: String(p.beds) }).length,
    ),
  ],
  solve: async (p, d, data) => {
    const f = { city: p.city, beds: String(p.beds), type: p.type };
    await acceptCookies(d);
    await applyFilters(d, f);
    await d.done(`${matching(data, f).length}`);
  },
});

interface MinBedsParams {
  city: string;
  type: string;
  minBeds: number;
}

function minBedsPool(data: HomesData, rank: (ls: Listing[]) => Listing[]): MinBedsParams[] {
  const out: MinBedsParams[] = [];
  for (const c of CITIES)
    for (const type of HOME_TYPES)
      for (let minBeds = 1; minBeds <= 4; minBeds++) {
        const r = rank(matching(data, { city: c.name, type, beds: `${minBeds}+` }));
        const all = rank(matching(data, { city: c.name, type }));
        if (r.length >= 3 && r[0].id !== all[0]?.id) out.push({ city: c.name, type, minBeds });
      }
  return out;
}

const cheapest = (ls: Listing[]) => {
  const s = [...ls].sort((a, b) => a.price - b.price);
  return s.length > 1 && s[0].price === s[1].price ? [] : s;
};
const largest = (ls: Listing[]) => {
  const s = [...ls].sort((a, b) => b.sqft - a.sqft);
  return s.length > 1 && s[0].sqft === s[1].sqft ? [] : s;
};

/** Information: the cheapest home with AT LEAST n bedrooms: its address and price. */
export const cheapestMin: TaskTemplate<MinBedsParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.cheapest-min',
  description: 'Address and price of the cheapest home of a type with a minimum bedroom count',
  pool: (data) => minBedsPool(data, cheapest),
  splitKey: (p) => `${p.city}|${p.type}|${p.minBeds}`,
  word: (p) => ({
    objective: variant(p, [
      `Find the cheapest ${lower(p.type)} in ${p.city} with at least ${p.minBeds} bedrooms. What is its address and price?`,
      `What's the least expensive ${lower(p.type)} for sale in ${p.city} that has ${p.minBeds} or more bedrooms? Give the address and the price.`,
    ]),
    startPath: '/search',
    referenceLength: 1 + filterCost({ city: p.city, beds: '1+', type: p.type, sort: 'price-asc' }) + 1,
  }),
  verify: (p, _s, answer, data) => {
    const top = cheapest(matching(data, { city: p.city, type: p.type, beds: `${p.minBeds}+` }))[0];
    return [
      answered(answer),
      addressCondition(answer, top),
      numberCondition('answer.price', answer, top.price, 1),
    ];
  },
  solve: async (p, d, data) => {
    const f = { city: p.city, beds: `${p.minBeds}+`, type: p.type, sort: 'price-asc' };
    await acceptCookies(d);
    await applyFilters(d, f);
    const top = matching(data, f)[0];
    await d.done(`${addressLine(top)}, $${top.price.toLocaleString('en-US')}`);
  },
});

interface UnderParams {
  city: string;
  type: string;
  maxPrice: number;
}

const priceText = (n: number) =>
  n >= 1_000_000 ? `$${n / 1_000_000} million` : `$${(n / 1000).toFixed(0)},000`;

/** Information: the largest home (square feet) under a price cap: its address. */
export const largestHome: TaskTemplate<UnderParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.largest',
  description: 'Address of the largest home of a type under a maximum price',
  pool: (data) => {
    const out: UnderParams[] = [];
    for (const c of CITIES)
      for (const type of HOME_TYPES)
        for (const maxPrice of PRICE_STEPS.slice(3, 13)) {
          const r = largest(matching(data, { city: c.name, type, max: maxPrice }));
          const all = largest(matching(data, { city: c.name, type }));
          if (r.length >= 3 && r[0].id !== all[0]?.id) out.push({ city: c.name, type, maxPrice });
        }
    return out;
  },
  splitKey: (p) => `${p.city}|${p.type}|${p.maxPrice}`,
  word: (p) => ({
    objective: variant(p, [
      `Which ${lower(p.type)} in ${p.city} priced at or under ${priceText(p.maxPrice)} has the most square feet? Tell me its address.`,
      `My budget is ${priceText(p.maxPrice)}. Find the biggest ${lower(p.type)} (by square footage) for sale in ${p.city} within that budget and give me the address.`,
    ]),
    startPath: '/search',
    referenceLength: 1 + filterCost({ city: p.city, max: p.maxPrice, type: p.type, sort: 'sqft' }) + 1,
  }),
  verify: (p, _s, answer, data) => [
    answered(answer),
    addressCondition(answer, largest(matching(data, { city: p.city, type: p.type, max: p.maxPrice }))[0]),
  ],
  solve: async (p, d, data) => {
    const f = { city: p.city, max: p.maxPrice, type: p.type, sort: 'sqft' };
    await acceptCookies(d);
    await applyFilters(d, f);
    await d.done(addressLine(matching(data, f)[0]));
  },
});

interface HoodParams {
  city: string;
  hood: string;
}

/** Information: the newest listing in a neighborhood (the neighborhood list depends on the city). */
export const newestInHood: TaskTemplate<HoodParams, HomesState, HomesData> = poolTemplate({
  id: 'homes.newest-hood',
  description: 'Address of the newest listing in a neighborhood',
  pool: (data) =>
    CITIES.flatMap((c) => c.neighborhoods.map((hood) => ({ city: c.name, hood }))).filter((p) => {
      const r = matching(data, p);
      return r.length >= 2 && r[0].listed !== r[1].listed;
    }),
  splitKey: (p) => `${p.city}|${p.hood}`,
  word: (p) => ({
    objective: variant(p, [
      `What is the address of the newest listing in the ${p.hood} neighborhood of ${p.city}?`,
      `Which home in ${p.hood} (${p.city}) was listed most recently? Give me the address.`,
    ]),
    startPath: '/search',
    referenceLength: 6,
  }),
  verify: (p, _s, answer, data) => [answered(answer), addressCondition(answer, matching(data, p)[0])],
  solve: async (p, d, data) => {
    await acceptCookies(d);
    await applyFilters(d, { city: p.city });
    await d.select({ name: 'Neighborhood', tag: 'select' }, p.hood);
    await d.click({ name: 'Apply filters', tag: 'button' });
    await d.done(addressLine(matching(data, p)[0]));
  },
});

/** Information: the last sale price from the price history, which loads after a delay. */
export const lastSold: TaskTemplate<{ listingId: string }, HomesState, HomesData> = poolTemplate({
  id: 'homes.last-sold',
  description: 'Last sale price of a listing from its (delayed) price history',
  pool: (data) =>
    data.listings.filter((l) => l.history.some((h) => h.event === 'Sold')).map((l) => ({ listingId: l.id })),
  splitKey: (p) => p.listingId,
  word: (p, data) => {
    const l = data.byId.get(p.listingId)!;
    return {
      objective: variant(p, [
        `According to its price history, what did ${addressLine(l)} in ${l.city} last sell for?`,
        `Look up the price history of ${addressLine(l)}, ${l.city}. How much did it sell for last time?`,
      ]),
      startPath: '/search',
      // Opening the listing, the tab, and a few waits while the history loads.
      referenceLength: 9,
    };
  },
  verify: (p, _s, answer, data) => {
    const sold = data.byId.get(p.listingId)!.history.find((h) => h.event === 'Sold')!;
    return [answered(answer), numberCondition('answer.price', answer, sold.price, 1)];
  },
  solve: async (p, d, data) => {
    const l = data.byId.get(p.listingId)!;
    const sold = l.history.find((h) => h.event === 'Sold')!;
    await acceptCookies(d);
    await openListing(d, l);
    await d.click({ name: 'Price history', role: 'tab' });
    await d.waitFor((o) => o.texts.some((t) => t.text.includes('Sold')), 'the price history');
    await d.done(`It last sold for $${sold.price.toLocaleString('en-US')}.`);
  },
});
