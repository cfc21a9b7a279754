import type { Rng } from '../../core/rng.ts';
import { FIRST_NAMES, LAST_NAMES, phoneNumber, streetAddress } from './people.ts';

/** A shopper or traveller a task asks the agent to type into a form: name, contact, US address. */
export interface Customer {
  first: string;
  last: string;
  fullName: string;
  email: string;
  phone: string;
  street: string;
  city: string;
  /** Full state name, as checkout selects show it. */
  state: string;
  zip: string;
}

/** City, state and ZIP triples that belong together. */
const PLACES: Array<[string, string, string]> = [
  ['Portland', 'Oregon', '97205'],
  ['Austin', 'Texas', '78704'],
  ['Denver', 'Colorado', '80203'],
  ['Madison', 'Wisconsin', '53703'],
  ['Raleigh', 'North Carolina', '27601'],
  ['Tucson', 'Arizona', '85701'],
  ['Burlington', 'Vermont', '05401'],
  ['Boise', 'Idaho', '83702'],
  ['Savannah', 'Georgia', '31401'],
  ['Ann Arbor', 'Michigan', '48104'],
  ['Santa Fe', 'New Mexico', '87501'],
  ['Providence', 'Rhode Island', '02903'],
  ['Columbus', 'Ohio', '43215'],
  ['Sacramento', 'California', '95814'],
  ['Richmond', 'Virginia', '23219'],
  ['Omaha', 'Nebraska', '68102'],
];

/** Draws one customer from the shared name banks; the same rng state gives the same customer. */
export function drawCustomer(rng: Rng): Customer {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const [city, state, zip] = rng.pick(PLACES);
  const domain = rng.pick(['example.com', 'mail.example.org', 'example.net']);
  return {
    first,
    last,
    fullName: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}${rng.int(1, 99)}@${domain}`,
    phone: phoneNumber(rng),
    street: streetAddress(rng),
    city,
    state,
    zip,
  };
}
