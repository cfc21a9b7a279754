import { describe, expect, it } from 'vitest';
import {
  addressesIn,
  addressFor,
  chooseOption,
  clausesOf,
  countFor,
  stateOption,
  textFor,
  yesNo,
} from './forms-values.ts';

const MOVE =
  "I'm moving on my own (individual move). File a change of address for Susan Jackson from 154 Dogwood Ter, ZIP 97374 to 3895 Lakeview Ter Apt 4, Madison, Wisconsin 53755, moving on March 1, 2027.";
const BUSINESS =
  'I\'m Eric Robinson. Apply for a business license for my new partnership, "Wild Fern Dog Grooming", starting 05/21/2027. The EIN is 32-9785867. The business address is 2444 Harbor Ln, ZIP 79988, and it is in a commercial space, not home-based. Contact phone: (846) 555-8624. It will have no employees.';
const PARKING =
  "Get me a 12-month residential parking permit for Zone B. My car is a 2009 Chevrolet Malibu, plate CKT0117 (Illinois). I'm James Perez, 6901 Maple Way, ZIP 60587, phone (904) 555-4314.";

describe('form values from task text', () => {
  it('finds street addresses with unit, city, state and ZIP, and not car models', () => {
    const a = addressesIn(MOVE);
    expect(a.map((x) => x.street)).toEqual(['154 Dogwood Ter', '3895 Lakeview Ter Apt 4']);
    expect(a[1]).toMatchObject({ city: 'Madison', state: 'Wisconsin', zip: '53755' });
    expect(addressesIn(PARKING).map((x) => x.street)).toEqual(['6901 Maple Way']);
  });

  it('tells old, new and business addresses apart', () => {
    expect(addressFor('Old ZIP code', MOVE)?.zip).toBe('97374');
    expect(addressFor('New street address', MOVE)?.street).toBe('3895 Lakeview Ter Apt 4');
    expect(textFor('New city', MOVE)).toBe('Madison');
    expect(textFor('Business street address', BUSINESS)).toBe('2444 Harbor Ln');
  });

  it('reads names, numbers and codes by their shape', () => {
    expect(textFor('First name', PARKING)).toBe('James');
    expect(textFor('Last name', PARKING)).toBe('Perez');
    expect(textFor('License plate', PARKING)).toBe('CKT0117');
    expect(textFor('Make', PARKING)).toBe('Chevrolet');
    expect(textFor('Model', PARKING)).toBe('Malibu');
    expect(textFor('Year', PARKING)).toBe('2009');
    expect(textFor('Employer Identification Number (EIN)', BUSINESS)).toBe('32-9785867');
    expect(textFor('Business name', BUSINESS)).toBe('Wild Fern Dog Grooming');
    expect(textFor('Phone number', BUSINESS)).toBe('(846) 555-8624');
    expect(
      countFor('People in your household', 'We are a household of 6 with a total monthly income of $2,390.'),
    ).toBe('6');
    expect(
      textFor(
        'Total monthly household income',
        'We are a household of 6 with a total monthly income of $2,390.',
      ),
    ).toBe('2,390');
  });

  it('answers yes/no questions from the clause about them; only a careful read honours negation', () => {
    expect(clausesOf(BUSINESS)).toContain('it is in a commercial space, not home-based.');
    expect(yesNo('Is this a home-based business?', BUSINESS, true)).toBe('No');
    expect(yesNo('Will the business have employees?', BUSINESS, true)).toBe('No');
    expect(yesNo('Will the business have employees?', BUSINESS, false)).toBe('Yes');
    expect(yesNo('Will the business have employees?', 'It will have 12 employees.', true)).toBe('Yes');
  });

  it('chooses the option the task names, by whole phrase first', () => {
    expect(chooseOption('Permit zone', ['Zone A', 'Zone B', 'Zone C'], PARKING)).toBe('Zone B');
    expect(chooseOption('Permit length', ['3 months', '6 months', '12 months'], PARKING)).toBe('12 months');
    expect(
      chooseOption(
        'How should we contact you?',
        ['Phone', 'Email', 'Mail'],
        'My phone is (555) 555-8782; contact me by mail.',
      ),
    ).toBe('Mail');
    expect(
      chooseOption(
        'Who will do the work?',
        ['Licensed contractor', 'I am the owner-builder'],
        'I will do the work myself as the owner-builder.',
      ),
    ).toBe('I am the owner-builder');
    expect(stateOption('ID', ['Idaho', 'Illinois'])).toBe('Idaho');
  });
});
