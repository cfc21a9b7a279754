import { hashString, Rng } from '../../../core/rng.ts';
import { LAST_NAMES, makePersonas, type Persona, streetAddress } from '../people.ts';
import {
  BUSINESS_STRUCTURES,
  PARKING_DURATIONS,
  PARKING_ZONES,
  PROJECT_TYPES,
  SERVICES,
} from './services.ts';

export interface Fee {
  id: string;
  category: string;
  item: string;
  amount: number;
}

export interface StatusRecord {
  confirmation: string;
  lastName: string;
  service: string;
  status: string;
  updated: string;
  note: string;
}

export interface NewAddress {
  id: string;
  street: string;
  city: string;
  state: string;
  zip: string;
}

export interface Contractor {
  id: string;
  company: string;
  license: string;
}

export interface Vehicle {
  id: string;
  make: string;
  model: string;
  year: number;
}

export interface FormsData {
  personas: Persona[];
  fees: Fee[];
  statuses: StatusRecord[];
  addresses: NewAddress[];
  contractors: Contractor[];
  vehicles: Vehicle[];
  businessNames: string[];
}

const MAKES: Array<[string, string[]]> = [
  ['Honda', ['Civic', 'Accord', 'CR-V', 'Odyssey']],
  ['Toyota', ['Camry', 'Corolla', 'RAV4', 'Prius']],
  ['Ford', ['F-150', 'Escape', 'Focus', 'Explorer']],
  ['Subaru', ['Outback', 'Forester', 'Impreza']],
  ['Chevrolet', ['Malibu', 'Equinox', 'Bolt']],
  ['Hyundai', ['Elantra', 'Tucson', 'Sonata']],
  ['Tesla', ['Model 3', 'Model Y']],
  ['Volkswagen', ['Jetta', 'Golf', 'Tiguan']],
  ['Mazda', ['CX-5', 'Mazda3']],
  ['Nissan', ['Altima', 'Rogue', 'Leaf']],
  ['Kia', ['Soul', 'Sportage', 'Telluride']],
];

const BUSINESS_WORDS_A = [
  'Blue Heron',
  'Copper Kettle',
  'Maple Leaf',
  'North Star',
  'Green Valley',
  'Silver Birch',
  'Red Barn',
  'Golden Hour',
  'Stone Bridge',
  'Bright Path',
  'Iron Oak',
  'Sunny Side',
  'Wild Fern',
  'Harbor Light',
  'Tall Pines',
];
const BUSINESS_WORDS_B = [
  'Bakery',
  'Coffee Co.',
  'Landscaping',
  'Bookkeeping',
  'Yoga Studio',
  'Auto Repair',
  'Dog Grooming',
  'Tutoring',
  'Catering',
  'Florist',
  'Tailoring',
  'Bike Shop',
];
const CONTRACTOR_NAMES = [
  'Apex Builders',
  'Cornerstone Construction',
  'Summit Home Services',
  'True Level Carpentry',
  'Oakline Remodeling',
  'Keystone Decks',
  'Prairie Roofing',
  'Evergreen Fence Co.',
  'Northside Contractors',
  'Bluepoint Renovation',
  'Riverbend Builders',
  'Granite State Homes',
];
const NEW_CITIES: Array<[string, string, string]> = [
  ['Portland', 'OR', '972'],
  ['Denver', 'CO', '802'],
  ['Austin', 'TX', '787'],
  ['Columbus', 'OH', '432'],
  ['Raleigh', 'NC', '276'],
  ['Madison', 'WI', '537'],
  ['Boise', 'ID', '837'],
  ['Richmond', 'VA', '232'],
];

const STATUS_WORDS = [
  'Received',
  'In review',
  'Approved',
  'Needs more information',
  'Denied',
  'Permit issued',
];
const STATUS_NOTES: Record<string, string> = {
  Received: 'We have your application and will start the review soon.',
  'In review': 'A reviewer is working on your application.',
  Approved: 'Your application was approved. Watch your mail for documents.',
  'Needs more information': 'Upload the missing document listed in your letter within 14 days.',
  Denied: 'Your application was denied. See the letter for how to appeal.',
  'Permit issued': 'Your permit was issued and mailed to you.',
};

function parkingFee(zone: string, duration: string): number {
  const base = 14 + PARKING_ZONES.indexOf(zone) * 3;
  const months = Number.parseInt(duration, 10);
  return base * months - (months === 12 ? base * 2 : 0);
}

/** Builds the site's seeded data: personas, fee schedule, status records and lookup banks. */
export function buildFormsData(seed: number): FormsData {
  const rng = new Rng(`${seed}:forms:data`);
  const personas = makePersonas(rng.fork('personas'), 240);
  const fees: Fee[] = [];
  const addFee = (category: string, item: string, amount: number) =>
    fees.push({ id: `fee${fees.length + 1}`, category, item, amount });
  for (const z of PARKING_ZONES)
    for (const d of PARKING_DURATIONS)
      addFee('Parking', `Residential parking permit, ${z}, ${d}`, parkingFee(z, d));
  addFee('Parking', 'Visitor parking pass, 1 day', 5);
  addFee('Parking', 'Replacement parking permit', 15);
  addFee('Passports and ID', 'Passport renewal, routine', 130);
  addFee('Passports and ID', 'Passport renewal, expedited', 190);
  addFee('Passports and ID', 'Passport card add-on', 30);
  addFee('Passports and ID', 'State ID card', 24);
  for (const [i, s] of BUSINESS_STRUCTURES.entries())
    addFee('Business', `Business license, ${s}`, [50, 120, 150, 90][i]);
  addFee('Business', 'Business license renewal', 45);
  addFee('Business', 'Food vendor permit', 210);
  for (const [i, p] of PROJECT_TYPES.entries())
    addFee('Building', `Building permit, ${p}`, [165, 95, 620, 340, 275, 75][i]);
  addFee('Building', 'Plan review (per hour)', 88);
  addFee('Building', 'Re-inspection', 110);
  addFee('Records', 'Birth certificate, certified copy', 22);
  addFee('Records', 'Death certificate, certified copy', 20);
  addFee('Records', 'Marriage license', 60);
  addFee('Records', 'Marriage certificate copy', 18);
  addFee('Community', 'Library card replacement', 5);
  addFee('Community', 'Dog license, spayed or neutered', 12);
  addFee('Community', 'Dog license, not spayed or neutered', 35);
  addFee('Community', 'Park shelter reservation (half day)', 65);
  addFee('Community', 'Community garden plot (season)', 40);

  const statuses: StatusRecord[] = [];
  const seen = new Set<string>();
  while (statuses.length < 160) {
    const svc = rng.pick(SERVICES);
    const confirmation = `${svc.prefix}-2026-${String(rng.int(100000, 999999))}`;
    if (seen.has(confirmation)) continue;
    seen.add(confirmation);
    const status = rng.pick(STATUS_WORDS.filter((s) => s !== 'Permit issued' || svc.id.endsWith('permit')));
    const day = new Date(Date.UTC(2026, 8, 1) + rng.int(0, 150) * 86_400_000);
    statuses.push({
      confirmation,
      lastName: rng.pick(LAST_NAMES),
      service: svc.name,
      status,
      updated: day.toLocaleDateString('en-US', {
        month: 'long',
        day: 'numeric',
        year: 'numeric',
        timeZone: 'UTC',
      }),
      note: STATUS_NOTES[status],
    });
  }

  const addresses: NewAddress[] = [];
  for (let i = 0; i < 60; i++) {
    const [city, state, zip3] = NEW_CITIES[i % NEW_CITIES.length];
    addresses.push({
      id: `a${i + 1}`,
      street: `${streetAddress(rng)}${rng.bool(0.3) ? ` Apt ${rng.int(1, 40)}` : ''}`,
      city,
      state,
      zip: `${zip3}${String(rng.int(1, 99)).padStart(2, '0')}`,
    });
  }
  const contractors = CONTRACTOR_NAMES.map((company, i) => ({
    id: `c${i + 1}`,
    company,
    license: `C-${rng.int(100000, 999999)}`,
  }));
  const vehicles: Vehicle[] = [];
  for (const [make, models] of MAKES)
    for (const model of models)
      vehicles.push({ id: `v${vehicles.length + 1}`, make, model, year: rng.int(2008, 2026) });
  const businessNames = BUSINESS_WORDS_A.flatMap((a) => BUSINESS_WORDS_B.map((b) => `${a} ${b}`));
  return {
    personas,
    fees,
    statuses,
    addresses,
    contractors,
    vehicles,
    businessNames: rng.shuffle(businessNames),
  };
}

/** Stable per-persona facts a form asks for (passport number, plate, SSN digits...). */
export function personaFacts(p: Persona): {
  passportNumber: string;
  ssnLast4: string;
  plate: string;
  parcel: string;
  ein: string;
} {
  const h = (k: string) => hashString(`${p.id}:${k}`);
  const digits = (k: string, n: number) => String(h(k) % 10 ** n).padStart(n, '0');
  const letters = 'ABCDEFGHJKLMNPRSTUVWXYZ';
  const plate = `${letters[h('p1') % 23]}${letters[h('p2') % 23]}${letters[h('p3') % 23]}${digits('p4', 4)}`;
  return {
    passportNumber: `5${digits('pp', 8)}`,
    ssnLast4: digits('ssn', 4),
    plate,
    parcel: `${digits('pa', 3)}-${digits('pb', 2)}-${digits('pc', 3)}`,
    ein: `${String(10 + (h('e1') % 89))}-${digits('e2', 7)}`,
  };
}
