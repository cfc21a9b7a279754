import { US_STATES } from '../people.ts';

/** The application wizards of the government services site, declared as data. */

export type FieldKind =
  | 'text'
  | 'date'
  | 'datepicker'
  | 'select'
  | 'radio'
  | 'checkbox'
  | 'textarea'
  | 'zip'
  | 'phone'
  | 'email'
  | 'int'
  | 'money'
  | 'pattern';

export interface FieldDef {
  name: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: string[];
  /** For kind 'pattern': the format and the message shown when it is not met. */
  pattern?: RegExp;
  patternError?: string;
  hint?: string;
  /** Integer bounds for kind 'int'. */
  min?: number;
  max?: number;
  /** First month the date picker shows (ISO day), for kind 'datepicker'. */
  minDate?: string;
  /** Shown (and validated) only when another field has one of these values. */
  showIf?: { field: string; in: string[] };
}

export interface StepDef {
  title: string;
  fields: FieldDef[];
}

export interface ServiceDef {
  id: string;
  name: string;
  category: string;
  /** Confirmation numbers look like `<prefix>-2027-123456`. */
  prefix: string;
  summary: string;
  needs: string[];
  fee: string;
  processing: string;
  steps: StepDef[];
}

const STATE_OPTIONS = US_STATES.map((s) => s.name);

const name = (n: string, label: string): FieldDef => ({ name: n, label, kind: 'text', required: true });
const street = (n = 'street', label = 'Street address'): FieldDef => ({
  name: n,
  label,
  kind: 'text',
  required: true,
});
const zip = (n = 'zip', label = 'ZIP code'): FieldDef => ({
  name: n,
  label,
  kind: 'zip',
  required: true,
  hint: '5 digits, for example 62704',
});
const phone: FieldDef = {
  name: 'phone',
  label: 'Phone number',
  kind: 'phone',
  required: true,
  hint: 'For example (217) 555-0100',
};
const dob: FieldDef = {
  name: 'dob',
  label: 'Date of birth',
  kind: 'date',
  required: true,
  hint: 'MM/DD/YYYY',
};

export const LIBRARY_BRANCHES = [
  'Central Library',
  'Eastside Branch',
  'Westside Branch',
  'Northgate Branch',
  'Riverside Branch',
  'Oak Park Branch',
];
export const PARKING_ZONES = ['Zone A', 'Zone B', 'Zone C', 'Zone D', 'Zone E', 'Zone F', 'Zone G', 'Zone H'];
export const PARKING_DURATIONS = ['3 months', '6 months', '12 months'];
export const BUSINESS_STRUCTURES = ['Sole proprietorship', 'LLC', 'Corporation', 'Partnership'];
export const PROJECT_TYPES = ['Deck', 'Fence', 'Addition', 'Kitchen remodel', 'Roof replacement', 'Shed'];
export const CONTACT_PREFS = ['Phone', 'Email', 'Mail'];

export const SERVICES: ServiceDef[] = [
  {
    id: 'passport-renewal',
    name: 'Passport renewal',
    category: 'Travel and ID',
    prefix: 'PPR',
    summary: 'Renew an adult passport that was issued in the last 15 years.',
    needs: ['Your most recent passport', 'A mailing address', 'Payment for the fee'],
    fee: '$130 routine, $190 expedited; passport card add $30',
    processing: 'Routine 6-8 weeks, expedited 2-3 weeks',
    steps: [
      {
        title: 'Applicant and current passport',
        fields: [
          name('first_name', 'First name'),
          name('last_name', 'Last name'),
          dob,
          {
            name: 'passport_number',
            label: 'Current passport number',
            kind: 'pattern',
            required: true,
            pattern: /^\d{9}$/,
            patternError: 'Passport numbers have exactly 9 digits.',
            hint: '9 digits',
          },
          {
            name: 'name_changed',
            label: 'Has your name changed since your passport was issued?',
            kind: 'radio',
            required: true,
            options: ['Yes', 'No'],
          },
          {
            name: 'previous_last_name',
            label: 'Last name on your current passport',
            kind: 'text',
            required: true,
            showIf: { field: 'name_changed', in: ['Yes'] },
          },
        ],
      },
      {
        title: 'Mailing address',
        fields: [
          street(),
          { name: 'city', label: 'City', kind: 'text', required: true },
          { name: 'state', label: 'State', kind: 'select', required: true, options: STATE_OPTIONS },
          zip(),
        ],
      },
      {
        title: 'Service options',
        fields: [
          {
            name: 'processing',
            label: 'Processing speed',
            kind: 'radio',
            required: true,
            options: ['Routine', 'Expedited'],
          },
          { name: 'passport_card', label: 'Also request a passport card (+$30)', kind: 'checkbox' },
        ],
      },
    ],
  },
  {
    id: 'business-license',
    name: 'Business license',
    category: 'Business',
    prefix: 'BL',
    summary: 'Register a new business to operate in the city.',
    needs: ['Business name and structure', 'EIN for LLCs, corporations and partnerships', 'Business address'],
    fee: '$50 to $150 depending on structure',
    processing: '5-10 business days',
    steps: [
      {
        title: 'Business details',
        fields: [
          { name: 'business_name', label: 'Business name', kind: 'text', required: true },
          {
            name: 'structure',
            label: 'Business structure',
            kind: 'select',
            required: true,
            options: BUSINESS_STRUCTURES,
          },
          {
            name: 'ein',
            label: 'Employer Identification Number (EIN)',
            kind: 'pattern',
            required: true,
            pattern: /^\d{2}-\d{7}$/,
            patternError: 'Enter the EIN as 12-3456789.',
            hint: 'Format 12-3456789',
            showIf: { field: 'structure', in: ['LLC', 'Corporation', 'Partnership'] },
          },
          {
            name: 'start_date',
            label: 'Business start date',
            kind: 'date',
            required: true,
            hint: 'MM/DD/YYYY',
          },
        ],
      },
      {
        title: 'Location and contact',
        fields: [
          street('street', 'Business street address'),
          zip(),
          {
            name: 'home_based',
            label: 'Is this a home-based business?',
            kind: 'radio',
            required: true,
            options: ['Yes', 'No'],
          },
          phone,
        ],
      },
      {
        title: 'Employees',
        fields: [
          {
            name: 'has_employees',
            label: 'Will the business have employees?',
            kind: 'radio',
            required: true,
            options: ['Yes', 'No'],
          },
          {
            name: 'employee_count',
            label: 'Number of employees',
            kind: 'int',
            required: true,
            min: 1,
            max: 500,
            showIf: { field: 'has_employees', in: ['Yes'] },
          },
        ],
      },
    ],
  },
  {
    id: 'parking-permit',
    name: 'Residential parking permit',
    category: 'Transportation',
    prefix: 'RPP',
    summary: 'Park on your street in a permit zone without time limits.',
    needs: ['Vehicle registered at your address', 'Proof of residency'],
    fee: 'Depends on zone and length, see the fee schedule',
    processing: 'Permits are mailed within 7 days',
    steps: [
      {
        title: 'Permit',
        fields: [
          { name: 'zone', label: 'Permit zone', kind: 'select', required: true, options: PARKING_ZONES },
          {
            name: 'duration',
            label: 'Permit length',
            kind: 'radio',
            required: true,
            options: PARKING_DURATIONS,
          },
        ],
      },
      {
        title: 'Vehicle',
        fields: [
          {
            name: 'plate',
            label: 'License plate',
            kind: 'pattern',
            required: true,
            pattern: /^[A-Z0-9]{2,8}$/i,
            patternError: 'Plates have 2 to 8 letters or digits, no spaces.',
          },
          {
            name: 'plate_state',
            label: 'Plate state',
            kind: 'select',
            required: true,
            options: STATE_OPTIONS,
          },
          { name: 'make', label: 'Make', kind: 'text', required: true },
          { name: 'model', label: 'Model', kind: 'text', required: true },
          { name: 'year', label: 'Year', kind: 'int', required: true, min: 1980, max: 2027 },
        ],
      },
      {
        title: 'Resident',
        fields: [name('first_name', 'First name'), name('last_name', 'Last name'), street(), zip(), phone],
      },
    ],
  },
  {
    id: 'food-assistance',
    name: 'Food assistance (SNAP)',
    category: 'Benefits',
    prefix: 'FA',
    summary: 'Apply for monthly food benefits for your household.',
    needs: ['Last 4 digits of your Social Security number', 'Household size and monthly income'],
    fee: 'Free',
    processing: 'A decision within 30 days',
    steps: [
      {
        title: 'Applicant',
        fields: [
          name('first_name', 'First name'),
          name('last_name', 'Last name'),
          dob,
          {
            name: 'ssn_last4',
            label: 'Last 4 digits of SSN',
            kind: 'pattern',
            required: true,
            pattern: /^\d{4}$/,
            patternError: 'Enter exactly 4 digits.',
          },
        ],
      },
      {
        title: 'Household',
        fields: [
          {
            name: 'household_size',
            label: 'People in your household',
            kind: 'select',
            required: true,
            options: ['1', '2', '3', '4', '5', '6', '7', '8'],
          },
          {
            name: 'monthly_income',
            label: 'Total monthly household income',
            kind: 'money',
            required: true,
            hint: 'Before taxes, for example 1,850',
          },
          {
            name: 'has_senior',
            label: 'Is anyone in your household 60 or older?',
            kind: 'radio',
            required: true,
            options: ['Yes', 'No'],
          },
        ],
      },
      {
        title: 'Contact',
        fields: [
          phone,
          {
            name: 'contact_pref',
            label: 'How should we contact you?',
            kind: 'radio',
            required: true,
            options: CONTACT_PREFS,
          },
          {
            name: 'email',
            label: 'Email address',
            kind: 'email',
            required: true,
            showIf: { field: 'contact_pref', in: ['Email'] },
          },
        ],
      },
    ],
  },
  {
    id: 'change-of-address',
    name: 'Change of address',
    category: 'Moving',
    prefix: 'COA',
    summary: 'Update your address for city records, voter registration and utilities.',
    needs: ['Your old and new addresses', 'The date you move'],
    fee: 'Free',
    processing: 'Updated within 2 business days',
    steps: [
      {
        title: 'Who is moving',
        fields: [
          {
            name: 'move_type',
            label: 'Who is moving?',
            kind: 'radio',
            required: true,
            options: ['Individual', 'Family'],
          },
          name('first_name', 'First name'),
          name('last_name', 'Last name'),
        ],
      },
      {
        title: 'Old address',
        fields: [street('old_street', 'Old street address'), zip('old_zip', 'Old ZIP code')],
      },
      {
        title: 'New address',
        fields: [
          street('new_street', 'New street address'),
          { name: 'new_city', label: 'New city', kind: 'text', required: true },
          { name: 'new_state', label: 'New state', kind: 'select', required: true, options: STATE_OPTIONS },
          zip('new_zip', 'New ZIP code'),
          {
            name: 'effective_date',
            label: 'Moving date',
            kind: 'datepicker',
            required: true,
            minDate: '2027-02-01',
          },
        ],
      },
    ],
  },
  {
    id: 'library-card',
    name: 'Library card',
    category: 'Community',
    prefix: 'LIB',
    summary: 'Get a free library card to borrow books, movies and e-books.',
    needs: ['An address in the city', 'An email address'],
    fee: 'Free (replacement cards $5)',
    processing: 'Pick up your card at your home branch in 2 days',
    steps: [
      {
        title: 'About you',
        fields: [
          name('first_name', 'First name'),
          name('last_name', 'Last name'),
          dob,
          { name: 'email', label: 'Email address', kind: 'email', required: true },
        ],
      },
      {
        title: 'Address and branch',
        fields: [
          street(),
          zip(),
          { name: 'branch', label: 'Home branch', kind: 'select', required: true, options: LIBRARY_BRANCHES },
        ],
      },
    ],
  },
  {
    id: 'building-permit',
    name: 'Building permit',
    category: 'Housing and property',
    prefix: 'BP',
    summary: 'Get a permit for construction, additions, decks, fences and remodels.',
    needs: ['Parcel number of the property', 'Estimated project cost', 'Contractor license, if you use one'],
    fee: 'See the fee schedule (by project type)',
    processing: '2-4 weeks after a complete application',
    steps: [
      {
        title: 'Project',
        fields: [
          {
            name: 'project_type',
            label: 'Project type',
            kind: 'select',
            required: true,
            options: PROJECT_TYPES,
          },
          { name: 'description', label: 'Project description', kind: 'textarea', required: true },
          {
            name: 'cost',
            label: 'Estimated cost',
            kind: 'money',
            required: true,
            hint: 'In dollars, for example 12,500',
          },
        ],
      },
      {
        title: 'Property',
        fields: [
          street(),
          zip(),
          {
            name: 'parcel',
            label: 'Parcel number',
            kind: 'pattern',
            required: true,
            pattern: /^\d{3}-\d{2}-\d{3}$/,
            patternError: 'Parcel numbers look like 123-45-678.',
            hint: 'Format 123-45-678',
          },
        ],
      },
      {
        title: 'Contractor',
        fields: [
          {
            name: 'builder',
            label: 'Who will do the work?',
            kind: 'radio',
            required: true,
            options: ['Licensed contractor', 'I am the owner-builder'],
          },
          {
            name: 'license',
            label: 'Contractor license number',
            kind: 'pattern',
            required: true,
            pattern: /^C-\d{6}$/i,
            patternError: 'License numbers look like C-123456.',
            showIf: { field: 'builder', in: ['Licensed contractor'] },
          },
          {
            name: 'company',
            label: 'Contractor company',
            kind: 'text',
            required: true,
            showIf: { field: 'builder', in: ['Licensed contractor'] },
          },
        ],
      },
    ],
  },
];

export function service(id: string): ServiceDef | undefined {
  return SERVICES.find((s) => s.id === id);
}

/** Whether a field applies given the answers so far (conditional sections). */
export function fieldApplies(f: FieldDef, answers: Record<string, string>): boolean {
  return !f.showIf || f.showIf.in.includes(answers[f.showIf.field] ?? '');
}
