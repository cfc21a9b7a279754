import type { Rng } from '../../../core/rng.ts';
import { type Phraser, siteQueries } from '../../query-kit.ts';
import type { RawQuery } from '../../site.ts';
import type { FormsData } from './data.ts';
import { FORMS_TEMPLATES } from './templates.ts';
import { feeQuestion } from './templates-info.ts';

const who = (data: FormsData, id: string) => {
  const p = data.personas.find((x) => x.id === id)!;
  return `${p.first} ${p.last}`;
};

/** How residents type each forms request. */
const PHRASERS: Record<string, Phraser<any, FormsData>> = {
  'forms.fee-lookup': (p, data, rng) => {
    const q = feeQuestion(data.fees.find((f) => f.id === p.feeId)!).replace(/^an? /, '');
    return rng.pick([
      { text: `how much is ${q}` },
      { text: `fee for ${q}?` },
      { text: `whats the cost of ${q} from the city` },
    ]);
  },
  'forms.status-lookup': (p, data, rng) => {
    const s = data.statuses.find((x) => x.confirmation === p.confirmation)!;
    return rng.pick([
      { text: `status of application ${s.confirmation} last name ${s.lastName}`, keep: [s.confirmation] },
      { text: `check my app ${s.confirmation} (${s.lastName})`, keep: [s.confirmation] },
      { text: `is ${s.confirmation} approved yet? name ${s.lastName}`, keep: [s.confirmation] },
    ]);
  },
  'forms.library-card': (p, data, rng) =>
    rng.pick([
      { text: `get a library card for ${who(data, p.personaId)} at ${p.branch}` },
      { text: `sign ${who(data, p.personaId)} up for library card, home branch ${p.branch}` },
    ]),
  'forms.business-license': (p, data, rng) => {
    const where = p.location === 'home' ? 'home based' : 'commercial space';
    const emp = p.employees ? `${p.employees} employees` : 'no employees';
    return rng.pick([
      {
        text: `business license for ${p.businessName}, ${p.structure}, starting ${p.startDate}, ${where}, ${emp}, owner ${who(data, p.personaId)}`,
        keep: [p.businessName, p.startDate],
      },
      {
        text: `register my ${p.structure} "${p.businessName}" opening ${p.startDate} - ${where} w/ ${emp} (${who(data, p.personaId)})`,
        keep: [p.businessName, p.startDate],
      },
    ]);
  },
  'forms.building-permit': (p, data, rng) => {
    const c = data.contractors.find((x) => x.id === p.contractorId);
    const by = c ? `contractor ${c.company}` : 'doing it myself';
    return rng.pick([
      {
        text: `building permit for ${p.projectType} at ${who(data, p.personaId)}'s place, cost ${p.cost}, ${by}`,
      },
      {
        text: `need a permit for a ${p.projectType} ~$${p.cost.toLocaleString('en-US')} for ${who(data, p.personaId)}, ${by}`,
      },
    ]);
  },
  'forms.food-assistance': (p, data, rng) =>
    rng.pick([
      {
        text: `apply for snap for ${who(data, p.personaId)} household of ${p.householdSize} income ${p.income}/mo contact by ${p.contact}`,
      },
      {
        text: `food stamps application ${who(data, p.personaId)}, ${p.householdSize} people, $${p.income} a month, prefer ${p.contact}`,
      },
    ]),
  'forms.passport-renewal': (p, data, rng) => {
    const card = p.card === 'book and card' ? 'book and card' : 'book only';
    const prev = p.previousName ? `, name changed (was ${p.previousName})` : ', same name';
    return rng.pick([
      { text: `renew passport for ${who(data, p.personaId)} ${p.processing} ${card}${prev}` },
      { text: `passport renewal ${who(data, p.personaId)} - ${p.processing} processing, ${card}${prev}` },
    ]);
  },
  'forms.change-of-address': (p, data, rng) => {
    const a = data.addresses.find((x) => x.id === p.addressId)!;
    const [y, m, d] = p.date.split('-').map(Number);
    const when = `${m}/${d}/${y}`;
    const kind = p.moveType === 'Family' ? 'family' : 'individual';
    return rng.pick([
      {
        text: `change of address ${who(data, p.personaId)} moving to ${a.street} ${a.city} on ${when}, ${kind} move`,
        keep: [a.street, when],
      },
      {
        text: `${kind} move for ${who(data, p.personaId)} -> ${a.street}, ${a.city} ${a.zip} effective ${when}`,
        keep: [a.street, when],
      },
    ]);
  },
  'forms.parking-permit': (p, data, rng) => {
    const v = data.vehicles.find((x) => x.id === p.vehicleId)!;
    return rng.pick([
      { text: `parking permit ${p.zone} ${p.duration} for ${who(data, p.personaId)}'s ${v.make} ${v.model}` },
      {
        text: `need a ${p.duration} residential parking permit in ${p.zone}, ${who(data, p.personaId)}, car ${v.year} ${v.make} ${v.model}`,
      },
    ]);
  },
};

/** At least 200 messy government-services requests, grounded in templates and parameters. */
export function formsRawQueries(rng: Rng, data: FormsData): RawQuery[] {
  return siteQueries('forms', FORMS_TEMPLATES, PHRASERS, data, rng, 24);
}
