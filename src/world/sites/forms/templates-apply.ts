import { longDate } from '../../../core/dates.ts';
import { hashString } from '../../../core/rng.ts';
import { variant } from '../../template-kit.ts';
import { LAST_NAMES, stateName } from '../people.ts';
import { applicationTemplate } from './apply-kit.ts';
import {
  BUSINESS_STRUCTURES,
  CONTACT_PREFS,
  LIBRARY_BRANCHES,
  PARKING_DURATIONS,
  PARKING_ZONES,
  PROJECT_TYPES,
} from './services.ts';

const input = (label: string, value: string) => ({ kind: 'input' as const, label, value });
const select = (label: string, option: string) => ({ kind: 'select' as const, label, option });
const radio = (name: string, value: string) => ({ kind: 'radio' as const, name, value });

/** Transactional (hard): passport renewal with a conditional "name changed" section. */
export const passportRenewal = applicationTemplate<{
  personaId: string;
  processing: string;
  card: string;
  previousName: string;
}>({
  id: 'forms.passport-renewal',
  serviceId: 'passport-renewal',
  description: 'Renew a passport: applicant, conditional name change, address, service options',
  pool: (data) =>
    data.personas
      .flatMap((p) => {
        const prev = LAST_NAMES[hashString(`${p.id}:prev`) % LAST_NAMES.length];
        return ['Routine', 'Expedited'].flatMap((processing) =>
          ['book only', 'book and card'].flatMap((card) =>
            ['', prev === p.last ? '' : prev].map((previousName) => ({
              personaId: p.id,
              processing,
              card,
              previousName,
            })),
          ),
        );
      })
      .filter((x, i, all) => i === 0 || JSON.stringify(x) !== JSON.stringify(all[i - 1])),
  plan: (p, who, f) => {
    const cardWanted = p.card === 'book and card';
    const objective = `Renew my passport online. I'm ${who.first} ${who.last}, born ${who.dob}, and my current passport number is ${f.passportNumber}. ${p.previousName ? `My last name has changed: the current passport is in my old last name, ${p.previousName}.` : 'My name has not changed.'} Mail the new passport to ${who.street}, ${who.city}, ${stateName(who.state)} ${who.zip}. I want ${p.processing.toLowerCase()} processing and the ${cardWanted ? 'passport book and card' : 'passport book only'}. Tell me the confirmation number.`;
    const expected: Record<string, string> = {
      first_name: who.first,
      last_name: who.last,
      dob: who.dob,
      passport_number: f.passportNumber,
      name_changed: p.previousName ? 'Yes' : 'No',
      street: who.street,
      city: who.city,
      state: stateName(who.state),
      zip: who.zip,
      processing: p.processing,
      passport_card: cardWanted ? 'Yes' : 'No',
    };
    if (p.previousName) expected.previous_last_name = p.previousName;
    return {
      objective,
      expected,
      groups: {
        applicant: ['first_name', 'last_name', 'dob'],
        passport: ['passport_number'],
        nameChange: p.previousName ? ['name_changed', 'previous_last_name'] : ['name_changed'],
        address: ['street', 'city', 'state', 'zip'],
        options: ['processing', 'passport_card'],
      },
      steps: [
        [
          input('First name', who.first),
          input('Last name', who.last),
          input('Date of birth', who.dob),
          input('Current passport number', f.passportNumber),
          radio('name_changed', p.previousName ? 'Yes' : 'No'),
          ...(p.previousName ? [input('Last name on your current passport', p.previousName)] : []),
        ],
        [
          input('Street address', who.street),
          input('City', who.city),
          select('State', stateName(who.state)),
          input('ZIP code', who.zip),
        ],
        [
          radio('processing', p.processing),
          ...(cardWanted ? [{ kind: 'check' as const, name: 'passport_card' }] : []),
        ],
      ],
    };
  },
});

const COMMERCIAL_STREETS = ['Main St', 'Commerce Dr', 'Market St', 'Industrial Pkwy', 'Broadway'];

/** Transactional (hard): business license; the EIN field only applies to some structures. */
export const businessLicense = applicationTemplate<{
  personaId: string;
  businessName: string;
  structure: string;
  startDate: string;
  location: string;
  employees: number;
}>({
  id: 'forms.business-license',
  serviceId: 'business-license',
  description: 'Apply for a business license with conditional EIN and employee count',
  pool: (data) =>
    data.personas.flatMap((p, i) => {
      const businessName = data.businessNames[i % data.businessNames.length];
      const month = 1 + (hashString(`${p.id}:m`) % 9);
      const startDate = `${String(month).padStart(2, '0')}/${String(1 + (hashString(`${p.id}:d`) % 28)).padStart(2, '0')}/2027`;
      return BUSINESS_STRUCTURES.flatMap((structure) =>
        ['home', 'commercial'].flatMap((location) =>
          [0, 1 + (hashString(`${p.id}:e`) % 12)].map((employees) => ({
            personaId: p.id,
            businessName,
            structure,
            startDate,
            location,
            employees,
          })),
        ),
      );
    }),
  plan: (p, who, f) => {
    const home = p.location === 'home';
    const street = home
      ? who.street
      : `${100 + (hashString(`${who.id}:cs`) % 880)} ${COMMERCIAL_STREETS[hashString(who.id) % COMMERCIAL_STREETS.length]}`;
    const needsEin = p.structure !== 'Sole proprietorship';
    const kind =
      p.structure === 'Sole proprietorship'
        ? 'sole proprietorship'
        : p.structure === 'LLC'
          ? 'LLC'
          : p.structure.toLowerCase();
    const objective = `I'm ${who.first} ${who.last}. Apply for a business license for my new ${kind}, "${p.businessName}", starting ${p.startDate}.${needsEin ? ` The EIN is ${f.ein}.` : ''} The business address is ${street}, ZIP ${who.zip}, and it ${home ? 'is run from my home' : 'is in a commercial space, not home-based'}. Contact phone: ${who.phone}. ${p.employees ? `It will have ${p.employees} employees.` : 'It will have no employees.'} Give me the confirmation number.`;
    const expected: Record<string, string> = {
      business_name: p.businessName,
      structure: p.structure,
      start_date: p.startDate,
      street,
      zip: who.zip,
      home_based: home ? 'Yes' : 'No',
      phone: who.phone,
      has_employees: p.employees ? 'Yes' : 'No',
    };
    if (needsEin) expected.ein = f.ein;
    if (p.employees) expected.employee_count = String(p.employees);
    return {
      objective,
      expected,
      groups: {
        business: ['business_name', 'structure', 'start_date', ...(needsEin ? ['ein'] : [])],
        location: ['street', 'zip', 'home_based', 'phone'],
        employees: p.employees ? ['has_employees', 'employee_count'] : ['has_employees'],
      },
      steps: [
        [
          input('Business name', p.businessName),
          select('Business structure', p.structure),
          ...(needsEin ? [input('Employer Identification Number (EIN)', f.ein)] : []),
          input('Business start date', p.startDate),
        ],
        [
          input('Business street address', street),
          input('ZIP code', who.zip),
          radio('home_based', home ? 'Yes' : 'No'),
          input('Phone number', who.phone),
        ],
        [
          radio('has_employees', p.employees ? 'Yes' : 'No'),
          ...(p.employees ? [input('Number of employees', String(p.employees))] : []),
        ],
      ],
    };
  },
});

/** Transactional (hard): residential parking permit, three steps of selects and typed fields. */
export const parkingPermit = applicationTemplate<{
  personaId: string;
  zone: string;
  duration: string;
  vehicleId: string;
}>({
  id: 'forms.parking-permit',
  serviceId: 'parking-permit',
  description: 'Apply for a residential parking permit: zone and length, vehicle, resident',
  pool: (data) =>
    data.personas.flatMap((p, i) => {
      const v = data.vehicles[i % data.vehicles.length];
      return PARKING_ZONES.filter((_, k) => (k + i) % 3 === 0).flatMap((zone) =>
        PARKING_DURATIONS.map((duration) => ({ personaId: p.id, zone, duration, vehicleId: v.id })),
      );
    }),
  plan: (p, who, f, data) => {
    const v = data.vehicles.find((x) => x.id === p.vehicleId)!;
    const months = `${Number.parseInt(p.duration, 10)}-month`;
    const objective = variant(p, [
      `Get me a ${months} residential parking permit for ${p.zone}. My car is a ${v.year} ${v.make} ${v.model}, plate ${f.plate} (${stateName(who.state)}). I'm ${who.first} ${who.last}, ${who.street}, ZIP ${who.zip}, phone ${who.phone}. What's the confirmation number?`,
      `Apply for a ${months} residential parking permit for ${p.zone}. Vehicle: ${v.year} ${v.make} ${v.model}, ${stateName(who.state)} plate ${f.plate}. Resident: ${who.first} ${who.last}, ${who.street}, ZIP ${who.zip}, phone ${who.phone}. Report the confirmation number.`,
    ]);
    return {
      objective,
      expected: {
        zone: p.zone,
        duration: p.duration,
        plate: f.plate,
        plate_state: stateName(who.state),
        make: v.make,
        model: v.model,
        year: String(v.year),
        first_name: who.first,
        last_name: who.last,
        street: who.street,
        zip: who.zip,
        phone: who.phone,
      },
      groups: {
        permit: ['zone', 'duration'],
        vehicle: ['plate', 'plate_state', 'make', 'model', 'year'],
        resident: ['first_name', 'last_name', 'street', 'zip', 'phone'],
      },
      steps: [
        [select('Permit zone', p.zone), radio('duration', p.duration)],
        [
          input('License plate', f.plate),
          select('Plate state', stateName(who.state)),
          input('Make', v.make),
          input('Model', v.model),
          input('Year', String(v.year)),
        ],
        [
          input('First name', who.first),
          input('Last name', who.last),
          input('Street address', who.street),
          input('ZIP code', who.zip),
          input('Phone number', who.phone),
        ],
      ],
    };
  },
});

/** Transactional (hard): food assistance with money formats and a conditional email field. */
export const foodAssistance = applicationTemplate<{
  personaId: string;
  householdSize: number;
  income: number;
  contact: string;
}>({
  id: 'forms.food-assistance',
  serviceId: 'food-assistance',
  description: 'Apply for SNAP food assistance: applicant, household income, contact preference',
  pool: (data) =>
    data.personas.flatMap((p) => {
      const size = 1 + (hashString(`${p.id}:hh`) % 6);
      return CONTACT_PREFS.flatMap((contact) =>
        [900, 1450, 1850, 2300, 2975].map((base) => ({
          personaId: p.id,
          householdSize: size,
          income: base + (hashString(`${p.id}:${base}`) % 20) * 5,
          contact,
        })),
      );
    }),
  plan: (p, who, f) => {
    const senior = Number(who.dob.slice(6)) <= 1966;
    const objective = `Apply for SNAP food assistance for me: ${who.first} ${who.last}, born ${who.dob}, SSN ending in ${f.ssnLast4}. We are a household of ${p.householdSize} with a total monthly income of $${p.income.toLocaleString('en-US')}. ${senior ? "I'm over 60." : 'Nobody in the household is 60 or older.'} My phone is ${who.phone}; contact me by ${p.contact.toLowerCase()}${p.contact === 'Email' ? ` at ${who.email}` : ''}. Report the confirmation number.`;
    const expected: Record<string, string> = {
      first_name: who.first,
      last_name: who.last,
      dob: who.dob,
      ssn_last4: f.ssnLast4,
      household_size: String(p.householdSize),
      monthly_income: String(p.income),
      has_senior: senior ? 'Yes' : 'No',
      phone: who.phone,
      contact_pref: p.contact,
    };
    if (p.contact === 'Email') expected.email = who.email;
    return {
      objective,
      expected,
      groups: {
        applicant: ['first_name', 'last_name', 'dob', 'ssn_last4'],
        household: ['household_size', 'monthly_income', 'has_senior'],
        contact: ['phone', 'contact_pref', ...(p.contact === 'Email' ? ['email'] : [])],
      },
      steps: [
        [
          input('First name', who.first),
          input('Last name', who.last),
          input('Date of birth', who.dob),
          input('Last 4 digits of SSN', f.ssnLast4),
        ],
        [
          select('People in your household', String(p.householdSize)),
          input('Total monthly household income', p.income.toLocaleString('en-US')),
          radio('has_senior', senior ? 'Yes' : 'No'),
        ],
        [
          input('Phone number', who.phone),
          radio('contact_pref', p.contact),
          ...(p.contact === 'Email' ? [input('Email address', who.email)] : []),
        ],
      ],
    };
  },
});

const MOVE_DATES = Array.from({ length: 50 }, (_, i) =>
  new Date(Date.UTC(2027, 1, 3) + i * 86_400_000).toISOString().slice(0, 10),
);

/** Transactional (hard): change of address with a date picker for the moving date. */
export const changeOfAddress = applicationTemplate<{
  personaId: string;
  moveType: string;
  addressId: string;
  date: string;
}>({
  id: 'forms.change-of-address',
  serviceId: 'change-of-address',
  description: 'File a change of address: who moves, old address, new address and moving date (date picker)',
  pool: (data) =>
    data.personas.flatMap((p, i) =>
      ['Individual', 'Family'].flatMap((moveType) =>
        [0, 1, 2].map((k) => ({
          personaId: p.id,
          moveType,
          addressId: data.addresses[(i * 3 + k) % data.addresses.length].id,
          date: MOVE_DATES[hashString(`${p.id}:${k}`) % MOVE_DATES.length],
        })),
      ),
    ),
  plan: (p, who, _f, data) => {
    const a = data.addresses.find((x) => x.id === p.addressId)!;
    const family = p.moveType === 'Family';
    const objective = `${family ? 'My family and I are moving' : "I'm moving on my own (individual move)"}. File a change of address for ${who.first} ${who.last} from ${who.street}, ZIP ${who.zip} to ${a.street}, ${a.city}, ${stateName(a.state)} ${a.zip}, moving on ${longDate(p.date)}. Give me the confirmation number.`;
    const months = Number(p.date.slice(5, 7)) - 2;
    return {
      objective,
      expected: {
        move_type: p.moveType,
        first_name: who.first,
        last_name: who.last,
        old_street: who.street,
        old_zip: who.zip,
        new_street: a.street,
        new_city: a.city,
        new_state: stateName(a.state),
        new_zip: a.zip,
        effective_date: p.date,
      },
      groups: {
        who: ['move_type', 'first_name', 'last_name'],
        oldAddress: ['old_street', 'old_zip'],
        newAddress: ['new_street', 'new_city', 'new_state', 'new_zip'],
        date: ['effective_date'],
      },
      steps: [
        [radio('move_type', p.moveType), input('First name', who.first), input('Last name', who.last)],
        [input('Old street address', who.street), input('Old ZIP code', who.zip)],
        [
          input('New street address', a.street),
          input('New city', a.city),
          select('New state', stateName(a.state)),
          input('New ZIP code', a.zip),
          { kind: 'date', label: 'Moving date', iso: p.date, months },
        ],
      ],
    };
  },
});

/** Transactional (medium): library card, the shortest wizard. */
export const libraryCard = applicationTemplate<{ personaId: string; branch: string }>({
  id: 'forms.library-card',
  serviceId: 'library-card',
  description: 'Apply for a library card with a home branch',
  pool: (data) =>
    data.personas.flatMap((p) => LIBRARY_BRANCHES.map((branch) => ({ personaId: p.id, branch }))),
  plan: (p, who) => ({
    objective: variant(p, [
      `Sign me up for a library card: ${who.first} ${who.last}, born ${who.dob}, email ${who.email}, living at ${who.street}, ZIP ${who.zip}. Make ${p.branch} my home branch and tell me the confirmation number.`,
      `I'd like a library card with ${p.branch} as my home branch. Name ${who.first} ${who.last}, date of birth ${who.dob}, email ${who.email}, address ${who.street}, ZIP ${who.zip}. What's my confirmation number?`,
    ]),
    expected: {
      first_name: who.first,
      last_name: who.last,
      dob: who.dob,
      email: who.email,
      street: who.street,
      zip: who.zip,
      branch: p.branch,
    },
    groups: {
      applicant: ['first_name', 'last_name', 'dob', 'email'],
      address: ['street', 'zip'],
      branch: ['branch'],
    },
    steps: [
      [
        input('First name', who.first),
        input('Last name', who.last),
        input('Date of birth', who.dob),
        input('Email address', who.email),
      ],
      [input('Street address', who.street), input('ZIP code', who.zip), select('Home branch', p.branch)],
    ],
  }),
});

export const PROJECT_DESCRIPTIONS: Record<string, string> = {
  Deck: 'Build a 12 by 16 foot wood deck behind the house',
  Fence: 'Install a 6 foot privacy fence along the back lot line',
  Addition: 'Add a 300 square foot bedroom to the rear of the house',
  'Kitchen remodel': 'Remodel the kitchen with new cabinets and wiring',
  'Roof replacement': 'Replace the asphalt shingle roof',
  Shed: 'Build a 10 by 12 foot storage shed in the backyard',
};

/** Transactional (hard): building permit with a conditional contractor section. */
export const buildingPermit = applicationTemplate<{
  personaId: string;
  projectType: string;
  cost: number;
  contractorId: string;
}>({
  id: 'forms.building-permit',
  serviceId: 'building-permit',
  description: 'Apply for a building permit: project, property parcel, contractor or owner-builder',
  pool: (data) =>
    data.personas.flatMap((p, i) =>
      PROJECT_TYPES.filter((_, k) => (k + i) % 2 === 0).flatMap((projectType) => {
        const cost = 1500 + (hashString(`${p.id}:${projectType}`) % 120) * 250;
        return ['', data.contractors[i % data.contractors.length].id].map((contractorId) => ({
          personaId: p.id,
          projectType,
          cost,
          contractorId,
        }));
      }),
    ),
  plan: (p, who, f, data) => {
    const c = data.contractors.find((x) => x.id === p.contractorId);
    const desc = PROJECT_DESCRIPTIONS[p.projectType];
    const objective = `Apply for a building permit for a ${p.projectType.toLowerCase()} at ${who.street}, ZIP ${who.zip} (parcel ${f.parcel}). Description: "${desc}". Estimated cost: $${p.cost.toLocaleString('en-US')}. ${c ? `The work will be done by ${c.company}, contractor license ${c.license}.` : 'I will do the work myself as the owner-builder.'} Tell me the confirmation number.`;
    const expected: Record<string, string> = {
      project_type: p.projectType,
      description: desc,
      cost: String(p.cost),
      street: who.street,
      zip: who.zip,
      parcel: f.parcel,
      builder: c ? 'Licensed contractor' : 'I am the owner-builder',
    };
    if (c) Object.assign(expected, { license: c.license, company: c.company });
    return {
      objective,
      expected,
      groups: {
        project: ['project_type', 'description', 'cost'],
        property: ['street', 'zip', 'parcel'],
        contractor: c ? ['builder', 'license', 'company'] : ['builder'],
      },
      steps: [
        [
          select('Project type', p.projectType),
          input('Project description', desc),
          input('Estimated cost', String(p.cost)),
        ],
        [input('Street address', who.street), input('ZIP code', who.zip), input('Parcel number', f.parcel)],
        [
          radio('builder', expected.builder),
          ...(c
            ? [input('Contractor license number', c.license), input('Contractor company', c.company)]
            : []),
        ],
      ],
    };
  },
});
