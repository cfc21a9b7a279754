import type { Rng } from '../../../core/rng.ts';
import { type Phraser, siteQueries } from '../../query-kit.ts';
import type { RawQuery } from '../../site.ts';
import { addressLine, type HomesData } from './data.ts';
import { HOMES_TEMPLATES } from './templates.ts';

const plural = (t: string) => (t === 'Multi-family' ? 'multi-family homes' : `${t.toLowerCase()}s`);
const home = (data: HomesData, id: string) => {
  const l = data.byId.get(id)!;
  return `${addressLine(l)} ${l.city}`;
};
const who = (data: HomesData, id: string) => {
  const p = data.personas.find((x) => x.id === id)!;
  return { name: `${p.first} ${p.last}`, email: p.email, phone: p.phone };
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const day = (iso: string) => `${MONTHS[Number(iso.slice(5, 7)) - 1]} ${Number(iso.slice(8, 10))}`;

/** How home shoppers type each request. */
const PHRASERS: Record<string, Phraser<any, HomesData>> = {
  'homes.count-exact': (p, _d, rng) =>
    rng.pick([
      { text: `how many ${p.beds}br ${plural(p.type)} in ${p.city}? exactly ${p.beds} not more` },
      { text: `number of ${p.city} ${plural(p.type)} with exactly ${p.beds} bedrooms` },
    ]),
  'homes.newest-hood': (p, _d, rng) =>
    rng.pick([
      { text: `newest listing in ${p.hood} ${p.city}` },
      { text: `whats the latest home listed in ${p.hood} (${p.city})` },
    ]),
  'homes.save-address': (p, data, rng) =>
    rng.pick([
      { text: `save ${home(data, p.listingId)}`, keep: [addressLine(data.byId.get(p.listingId)!)] },
      {
        text: `add ${home(data, p.listingId)} to my saved homes`,
        keep: [addressLine(data.byId.get(p.listingId)!)],
      },
    ]),
  'homes.priciest-exact': (p, _d, rng) =>
    rng.pick([
      { text: `most expensive ${p.beds} bedroom ${p.type} in ${p.city}, exactly ${p.beds}` },
      { text: `priciest exactly-${p.beds}-bed ${p.type.toLowerCase()} ${p.city} how much` },
    ]),
  'homes.cheapest-min': (p, _d, rng) =>
    rng.pick([
      { text: `cheapest ${p.minBeds}+ br ${p.type} in ${p.city}??` },
      {
        text: `least expensive ${p.type.toLowerCase()} ${p.city} at least ${p.minBeds} bedrooms, address and price`,
      },
    ]),
  'homes.largest': (p, _d, rng) => {
    const cap = p.maxPrice >= 1_000_000 ? `${p.maxPrice / 1_000_000}m` : `${p.maxPrice / 1000}k`;
    return rng.pick([
      { text: `biggest ${p.type.toLowerCase()} in ${p.city} under ${cap} by sqft - address?`, keep: [cap] },
      {
        text: `largest ${p.type} ${p.city} max $${p.maxPrice.toLocaleString('en-US')} most square feet`,
        keep: [p.maxPrice.toLocaleString('en-US')],
      },
    ]);
  },
  'homes.last-sold': (p, data, rng) =>
    rng.pick([
      { text: `what did ${home(data, p.listingId)} last sell for` },
      { text: `last sale price ${home(data, p.listingId)}` },
    ]),
  'homes.save-cheapest-feature': (p, _d, rng) =>
    rng.pick([
      {
        text: `save cheapest ${p.type.toLowerCase()} w/ ${p.feature.toLowerCase()} in ${p.city}, ${p.minBeds}+ bedrooms`,
      },
      { text: `${p.city} ${p.type} ${p.minBeds}+ br with ${p.feature} - save the cheapest one` },
    ]),
  'homes.mortgage': (p, data, rng) =>
    rng.pick([
      {
        text: `monthly payment for ${home(data, p.listingId)} ${p.down}% down ${p.rate}% ${p.term}yr`,
        keep: [`${p.rate}%`],
      },
      {
        text: `mortgage calc ${home(data, p.listingId)}: ${p.down} percent down, rate ${p.rate}, ${p.term} years`,
        keep: [String(p.rate)],
      },
    ]),
  'homes.contact-agent': (p, data, rng) => {
    const w = who(data, p.personaId);
    return rng.pick([
      {
        text: `ask the agent for ${home(data, p.listingId)} "${p.question}" im ${w.name} ${w.email} ${w.phone}`,
        keep: [p.question, w.email, w.phone],
      },
      {
        text: `message listing agent of ${home(data, p.listingId)}: ${p.question} (${w.name}, ${w.email}, ${w.phone})`,
        keep: [p.question, w.email, w.phone],
      },
    ]);
  },
  'homes.tour': (p, data, rng) => {
    const w = who(data, p.personaId);
    const kind = p.tourType === 'Video chat' ? 'video chat' : 'in person';
    return rng.pick([
      {
        text: `schedule ${kind} tour ${home(data, p.listingId)} ${day(p.date)} ${p.time} - ${w.name} ${w.email} ${w.phone}`,
        keep: [w.email, w.phone, p.time],
      },
      {
        text: `book a ${kind} tour of ${home(data, p.listingId)} on ${day(p.date)} at ${p.time}, contact ${w.name} / ${w.email} / ${w.phone}`,
        keep: [w.email, w.phone, p.time],
      },
    ]);
  },
};

/** At least 200 messy home-search requests, grounded in templates and parameters. */
export function homesRawQueries(rng: Rng, data: HomesData): RawQuery[] {
  return siteQueries('homes', HOMES_TEMPLATES, PHRASERS, data, rng, 20);
}
