import type { Rng } from '../../core/rng.ts';

/** Name and address banks shared by the mail, forms and homes sites (seeded draws only). */

export const FIRST_NAMES = [
  'James',
  'Maria',
  'Robert',
  'Linda',
  'Michael',
  'Patricia',
  'David',
  'Jennifer',
  'William',
  'Elizabeth',
  'Daniel',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Christopher',
  'Karen',
  'Matthew',
  'Nancy',
  'Anthony',
  'Lisa',
  'Mark',
  'Betty',
  'Steven',
  'Sandra',
  'Andrew',
  'Ashley',
  'Joshua',
  'Emily',
  'Kevin',
  'Michelle',
  'Brian',
  'Amanda',
  'Priya',
  'Melissa',
  'Omar',
  'Deborah',
  'Timothy',
  'Stephanie',
  'Wei',
  'Rebecca',
  'Jason',
  'Laura',
  'Ryan',
  'Helen',
  'Jacob',
  'Aisha',
  'Gary',
  'Anna',
  'Nicholas',
  'Kimberly',
  'Eric',
  'Nicole',
  'Luis',
  'Grace',
  'Jonathan',
  'Olivia',
  'Hiroshi',
  'Fatima',
  'Diego',
  'Hannah',
  'Marcus',
  'Chloe',
  'Andre',
  'Sofia',
  'Tyler',
  'Rachel',
  'Ethan',
  'Mei',
];

export const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Patel',
  'Chen',
  'Kim',
  'Okafor',
  'Schmidt',
  'Novak',
  'Haddad',
  'Yamamoto',
  'Kowalski',
  'Brennan',
  'Fischer',
  'Morales',
  'Sullivan',
  'Park',
  'Shah',
  'Dubois',
  'Ortiz',
  'Bauer',
  'Reyes',
  'Whitfield',
];

export const STREET_NAMES = [
  'Oak',
  'Maple',
  'Cedar',
  'Pine',
  'Elm',
  'Walnut',
  'Willow',
  'Birch',
  'Chestnut',
  'Spruce',
  'Lakeview',
  'Hillcrest',
  'Sunset',
  'Riverside',
  'Park',
  'Highland',
  'Meadow',
  'Forest',
  'Washington',
  'Lincoln',
  'Jefferson',
  'Madison',
  'Franklin',
  'Grant',
  'Jackson',
  'Adams',
  'Magnolia',
  'Dogwood',
  'Sycamore',
  'Aspen',
  'Juniper',
  'Laurel',
  'Harbor',
  'Bayview',
  'Prospect',
  'Summit',
  'Valley',
  'Church',
  'Mill',
  'Spring',
];

export const STREET_SUFFIXES = ['St', 'Ave', 'Rd', 'Dr', 'Ln', 'Blvd', 'Ct', 'Way', 'Pl', 'Ter'];

export const US_STATES: Array<{ code: string; name: string }> = [
  { code: 'AZ', name: 'Arizona' },
  { code: 'CA', name: 'California' },
  { code: 'CO', name: 'Colorado' },
  { code: 'FL', name: 'Florida' },
  { code: 'GA', name: 'Georgia' },
  { code: 'IL', name: 'Illinois' },
  { code: 'MA', name: 'Massachusetts' },
  { code: 'MI', name: 'Michigan' },
  { code: 'MN', name: 'Minnesota' },
  { code: 'NC', name: 'North Carolina' },
  { code: 'NY', name: 'New York' },
  { code: 'OH', name: 'Ohio' },
  { code: 'OR', name: 'Oregon' },
  { code: 'PA', name: 'Pennsylvania' },
  { code: 'TN', name: 'Tennessee' },
  { code: 'TX', name: 'Texas' },
  { code: 'VA', name: 'Virginia' },
  { code: 'WA', name: 'Washington' },
  { code: 'WI', name: 'Wisconsin' },
];

/** A person with a mailing address, phone and date of birth (forms personas, tour requests). */
export interface Persona {
  id: string;
  first: string;
  last: string;
  /** MM/DD/YYYY */
  dob: string;
  street: string;
  city: string;
  state: string;
  zip: string;
  /** (555) 123-4567 */
  phone: string;
  email: string;
}

const CITIES_BY_STATE: Record<string, Array<[string, string]>> = {
  IL: [
    ['Springfield', '627'],
    ['Peoria', '616'],
    ['Naperville', '605'],
  ],
  OH: [
    ['Columbus', '432'],
    ['Dayton', '454'],
    ['Akron', '443'],
  ],
  TX: [
    ['Austin', '787'],
    ['Plano', '750'],
    ['El Paso', '799'],
  ],
  OR: [
    ['Portland', '972'],
    ['Salem', '973'],
    ['Eugene', '974'],
  ],
  CO: [
    ['Denver', '802'],
    ['Boulder', '803'],
    ['Aurora', '800'],
  ],
  NC: [
    ['Raleigh', '276'],
    ['Durham', '277'],
    ['Charlotte', '282'],
  ],
};

/** Deterministic street address like `1428 Maple Ave`. */
export function streetAddress(rng: Rng): string {
  return `${rng.int(12, 9899)} ${rng.pick(STREET_NAMES)} ${rng.pick(STREET_SUFFIXES)}`;
}

/** A `(555) 123-4567` style phone number (555 exchange: never a real line). */
export function phoneNumber(rng: Rng): string {
  return `(${rng.int(201, 989)}) 555-${String(rng.int(100, 9999)).padStart(4, '0')}`;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** Builds `count` distinct personas (distinct full names) from the seed. */
export function makePersonas(rng: Rng, count: number): Persona[] {
  const out: Persona[] = [];
  const seen = new Set<string>();
  while (out.length < count) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    if (seen.has(`${first} ${last}`)) continue;
    seen.add(`${first} ${last}`);
    const state = rng.pick(Object.keys(CITIES_BY_STATE));
    const [city, zip3] = rng.pick(CITIES_BY_STATE[state]);
    const year = rng.int(1952, 2003);
    out.push({
      id: `p${String(out.length + 1).padStart(3, '0')}`,
      first,
      last,
      dob: `${pad2(rng.int(1, 12))}/${pad2(rng.int(1, 28))}/${year}`,
      street: streetAddress(rng),
      city,
      state,
      zip: `${zip3}${pad2(rng.int(1, 99))}`,
      phone: phoneNumber(rng),
      email:
        `${first}.${last}${rng.bool(0.4) ? rng.int(1, 99) : ''}@${rng.pick(['gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com'])}`.toLowerCase(),
    });
  }
  return out;
}

/** State name from its two-letter code. */
export function stateName(code: string): string {
  return US_STATES.find((s) => s.code === code)?.name ?? code;
}

/** "(217) 555-0100", "217.555.0100" -> "(217) 555-0100"; null unless 10 digits. */
export function normalizePhone(v: string): string | null {
  let digits = v.replace(/\D/g, '');
  if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1);
  if (digits.length !== 10) return null;
  return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
}
