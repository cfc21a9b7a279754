import { Rng } from '../../../core/rng.ts';
import {
  FIRST_NAMES,
  LAST_NAMES,
  makePersonas,
  type Persona,
  STREET_NAMES,
  STREET_SUFFIXES,
} from '../people.ts';

export const HOME_TYPES = ['House', 'Condo', 'Townhouse', 'Multi-family'] as const;
export type HomeType = (typeof HOME_TYPES)[number];

export const FEATURES = [
  'Garage',
  'Pool',
  'Fireplace',
  'Central air',
  'Hardwood floors',
  'Fenced yard',
  'Updated kitchen',
  'EV charger',
  'Basement',
  'Solar panels',
  'Balcony',
  'In-unit laundry',
  'Home office',
  'Walk-in closet',
];

export interface City {
  name: string;
  state: string;
  zip3: string;
  /** Price per square foot for a house. */
  ppsf: number;
  neighborhoods: string[];
}

export const CITIES: City[] = [
  {
    name: 'Austin',
    state: 'TX',
    zip3: '787',
    ppsf: 310,
    neighborhoods: ['Hyde Park', 'Mueller', 'Zilker', 'East Cesar Chavez', 'Crestview', 'Travis Heights'],
  },
  {
    name: 'Denver',
    state: 'CO',
    zip3: '802',
    ppsf: 330,
    neighborhoods: ['Highlands', 'Capitol Hill', 'Washington Park', 'Baker', 'Park Hill', 'Sloan Lake'],
  },
  {
    name: 'Portland',
    state: 'OR',
    zip3: '972',
    ppsf: 300,
    neighborhoods: ['Pearl District', 'Alberta Arts', 'Sellwood', 'Hawthorne', 'St. Johns', 'Laurelhurst'],
  },
  {
    name: 'Raleigh',
    state: 'NC',
    zip3: '276',
    ppsf: 230,
    neighborhoods: ['Oakwood', 'Five Points', 'North Hills', 'Boylan Heights', 'Cameron Village', 'Mordecai'],
  },
  {
    name: 'Columbus',
    state: 'OH',
    zip3: '432',
    ppsf: 190,
    neighborhoods: [
      'German Village',
      'Short North',
      'Clintonville',
      'Victorian Village',
      'Olde Towne East',
      'Bexley',
    ],
  },
  {
    name: 'Phoenix',
    state: 'AZ',
    zip3: '850',
    ppsf: 260,
    neighborhoods: ['Arcadia', 'Roosevelt Row', 'Encanto', 'Ahwatukee', 'Desert Ridge', 'Coronado'],
  },
  {
    name: 'Nashville',
    state: 'TN',
    zip3: '372',
    ppsf: 290,
    neighborhoods: ['East Nashville', 'The Gulch', 'Sylvan Park', '12 South', 'Germantown', 'Inglewood'],
  },
  {
    name: 'Minneapolis',
    state: 'MN',
    zip3: '554',
    ppsf: 220,
    neighborhoods: ['Linden Hills', 'Northeast', 'Uptown', 'Longfellow', 'Kingfield', 'North Loop'],
  },
];

export interface PriceEvent {
  date: string;
  event: string;
  price: number;
}

export interface Agent {
  name: string;
  phone: string;
  email: string;
  brokerage: string;
}

export interface Listing {
  id: string;
  street: string;
  unit: string | null;
  city: string;
  state: string;
  zip: string;
  neighborhood: string;
  type: HomeType;
  price: number;
  beds: number;
  baths: number;
  sqft: number;
  yearBuilt: number;
  hoa: number | null;
  features: string[];
  /** ISO day the listing went live. */
  listed: string;
  description: string;
  agent: Agent;
  history: PriceEvent[];
  /** Id of another listing at the same street address (a different unit), if any. */
  sibling: string | null;
}

export interface HomesData {
  listings: Listing[];
  byId: Map<string, Listing>;
  personas: Persona[];
  today: string;
}

/** "410 Elm St Unit 3B". */
export function addressLine(l: Listing): string {
  return l.unit ? `${l.street} ${l.unit}` : l.street;
}

/** "410 Elm St Unit 3B, Portland, OR 97205". */
export function fullAddress(l: Listing): string {
  return `${addressLine(l)}, ${l.city}, ${l.state} ${l.zip}`;
}

const BROKERAGES = [
  'Keller Williams',
  'Compass',
  'Coldwell Banker',
  'RE/MAX',
  'Redfin',
  "Sotheby's International Realty",
  'eXp Realty',
];
const TODAY = '2027-02-01';

function dayBefore(days: number): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

function describe(l: Omit<Listing, 'description' | 'agent' | 'history' | 'sibling'>): string {
  const feats = l.features
    .slice(0, 3)
    .map((f) => f.toLowerCase())
    .join(', ');
  const kind = l.type === 'Multi-family' ? 'multi-family property' : l.type.toLowerCase();
  return `${l.beds === 0 ? 'Studio' : `${l.beds}-bedroom`} ${kind} in ${l.neighborhood}, built in ${l.yearBuilt}. ${feats ? `Highlights include ${feats}.` : ''} Close to parks, shops and transit.`;
}

function rooms(rng: Rng, type: HomeType): { beds: number; baths: number; sqft: number } {
  const beds =
    type === 'Condo'
      ? rng.int(0, 3)
      : type === 'Townhouse'
        ? rng.int(2, 4)
        : type === 'House'
          ? rng.int(2, 5)
          : rng.int(3, 5);
  const baths = Math.max(1, Math.min(4, beds - 1 + rng.pick([0, 0.5, 1, 1.5])));
  const sqft =
    Math.round((420 + beds * rng.int(330, 520) + (type === 'House' ? rng.int(0, 700) : 0)) / 10) * 10;
  return { beds, baths, sqft };
}

/** Builds about 600 listings over eight cities, with same-street lookalike units. */
export function buildHomesData(seed: number): HomesData {
  const rng = new Rng(`${seed}:homes:data`);
  const listings: Listing[] = [];
  const usedStreets = new Set<string>();
  const agents: Agent[] = Array.from({ length: 40 }, () => {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    return {
      name: `${first} ${last}`,
      phone: `(${rng.int(201, 989)}) 555-${String(rng.int(1000, 9999))}`,
      email:
        `${first}.${last}@${rng.pick(['kw.com', 'compass.com', 'cbrealty.com', 'remax.net'])}`.toLowerCase(),
      brokerage: rng.pick(BROKERAGES),
    };
  });
  const make = (
    city: City,
    type: HomeType,
    street: string,
    unit: string | null,
    hood: string,
    zip: string,
  ): Listing => {
    const { beds, baths, sqft } = rooms(rng, type);
    const factor = type === 'Condo' ? 0.95 : type === 'Townhouse' ? 0.9 : type === 'Multi-family' ? 0.8 : 1;
    const price =
      Math.round((sqft * city.ppsf * factor * rng.int(82, 125)) / 100 / 1000) * 1000 -
      (rng.bool(0.4) ? 100 : 0);
    const feats = rng
      .shuffle(
        FEATURES.filter(
          (f) => type === 'House' || !['Fenced yard', 'Basement', 'Pool'].includes(f) || rng.bool(0.15),
        ),
      )
      .slice(0, rng.int(2, 6));
    const listedAgo = rng.int(0, 140);
    const base = {
      id: `h${1001 + listings.length}`,
      street,
      unit,
      city: city.name,
      state: city.state,
      zip,
      neighborhood: hood,
      type,
      price,
      beds,
      baths,
      sqft,
      yearBuilt: rng.int(1905, 2025),
      hoa: type === 'Condo' || type === 'Townhouse' ? rng.int(9, 60) * 10 : null,
      features: feats,
      listed: dayBefore(listedAgo),
    };
    const history: PriceEvent[] = [];
    if (rng.bool(0.75)) {
      const yearsAgo = rng.int(2, 18);
      history.push({
        date: dayBefore(listedAgo + yearsAgo * 365 + rng.int(0, 300)),
        event: 'Sold',
        price: Math.round((price * (1 - (yearsAgo * rng.int(2, 5)) / 100)) / 1000) * 1000,
      });
    }
    history.push({
      date: base.listed,
      event: 'Listed for sale',
      price: price + (rng.bool(0.25) ? rng.int(1, 4) * 5000 : 0),
    });
    if (history[history.length - 1].price !== price)
      history.push({
        date: dayBefore(Math.max(0, listedAgo - rng.int(1, 20))),
        event: 'Price change',
        price,
      });
    return { ...base, description: describe(base), agent: rng.pick(agents), history, sibling: null };
  };
  for (const city of CITIES) {
    for (let i = 0; i < 72; i++) {
      const hood = rng.pick(city.neighborhoods);
      const zip = `${city.zip3}${String(10 + city.neighborhoods.indexOf(hood) * 7 + rng.int(0, 3)).padStart(2, '0')}`;
      const type = rng.pick<HomeType>([
        'House',
        'House',
        'House',
        'Condo',
        'Condo',
        'Townhouse',
        'Townhouse',
        'Multi-family',
      ]);
      let street = '';
      do street = `${rng.int(10, 9890)} ${rng.pick(STREET_NAMES)} ${rng.pick(STREET_SUFFIXES)}`;
      while (usedStreets.has(`${city.name}|${street}`));
      usedStreets.add(`${city.name}|${street}`);
      const multiUnit = type === 'Condo' || (type === 'Townhouse' && rng.bool(0.5));
      const unit = multiUnit ? `Unit ${rng.int(1, 6)}${rng.pick(['A', 'B', 'C'])}` : null;
      const l = make(city, type, street, unit, hood, zip);
      listings.push(l);
      if (multiUnit && rng.bool(0.3)) {
        let other = unit;
        while (other === unit) other = `Unit ${rng.int(1, 6)}${rng.pick(['A', 'B', 'C'])}`;
        const twin = make(city, type, street, other, hood, zip);
        twin.sibling = l.id;
        l.sibling = twin.id;
        listings.push(twin);
      }
    }
  }
  return {
    listings,
    byId: new Map(listings.map((l) => [l.id, l])),
    personas: makePersonas(rng.fork('personas'), 120),
    today: TODAY,
  };
}
