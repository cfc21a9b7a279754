import { answered, cond, containsNumber, containsText } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { dismissOverlays } from '../../solver-steps.ts';
import { poolTemplate, variant } from '../../template-kit.ts';
import type { Fee, FormsData } from './data.ts';
import type { FormsState } from './state.ts';

function fee(data: FormsData, id: string): Fee {
  const f = data.fees.find((x) => x.id === id);
  if (!f) throw new Error(`unknown fee ${id}`);
  return f;
}

/** How a resident would ask about one line of the fee schedule. */
export function feeQuestion(f: Fee): string {
  const parking = /^Residential parking permit, (Zone [A-H]), (\d+) months$/.exec(f.item);
  if (parking) return `a ${parking[2]}-month residential parking permit in ${parking[1]}`;
  const [head, ...rest] = f.item.split(', ');
  return rest.length
    ? `a ${head.toLowerCase()} (${rest.join(', ').toLowerCase()})`
    : `a ${f.item.toLowerCase()}`;
}

/** Information: one fee from the fee schedule, which sits behind category tabs. */
export const feeLookup: TaskTemplate<{ feeId: string }, FormsState, FormsData> = poolTemplate({
  id: 'forms.fee-lookup',
  description: 'Look up a fee in the tabbed fee schedule',
  pool: (data) => data.fees.map((f) => ({ feeId: f.id })),
  splitKey: (p) => p.feeId,
  word: (p, data) => {
    const f = fee(data, p.feeId);
    const q = feeQuestion(f);
    const firstTab = data.fees[0].category;
    return {
      objective: variant(p, [
        `How much does the city charge for ${q}?`,
        `What is the fee for ${q}? Check the city's fee schedule.`,
        `Look up the cost of ${q} on the fee schedule.`,
      ]),
      startPath: '/',
      referenceLength: 2 + (f.category === firstTab ? 0 : 1) + 1,
    };
  },
  verify: (p, _state, answer, data) => {
    const f = fee(data, p.feeId);
    return [answered(answer), cond('answer.fee', containsNumber(answer, f.amount), `expected $${f.amount}`)];
  },
  solve: async (p, d, data) => {
    const f = fee(data, p.feeId);
    await dismissOverlays(d);
    await d.click({ name: 'Fees', tag: 'a' });
    if (f.category !== data.fees[0].category) await d.click({ name: f.category, role: 'tab' });
    await d.done(`The fee is $${f.amount}.`);
  },
});

/** Information: an application's status through the lookup form (format validation applies). */
export const statusLookup: TaskTemplate<{ confirmation: string }, FormsState, FormsData> = poolTemplate({
  id: 'forms.status-lookup',
  description: 'Check the status of an application by confirmation number and last name',
  pool: (data) => data.statuses.map((s) => ({ confirmation: s.confirmation })),
  splitKey: (p) => p.confirmation,
  word: (p, data) => {
    const s = data.statuses.find((x) => x.confirmation === p.confirmation);
    if (!s) return null;
    return {
      objective: variant(p, [
        `What is the status of application ${s.confirmation}? The applicant's last name is ${s.lastName}.`,
        `Check the status of ${s.lastName}'s ${s.service.toLowerCase()} application, confirmation number ${s.confirmation}, and tell me what it says.`,
      ]),
      startPath: '/',
      referenceLength: 6,
    };
  },
  verify: (p, _state, answer, data) => {
    const s = data.statuses.find((x) => x.confirmation === p.confirmation)!;
    return [
      answered(answer),
      cond('answer.status', containsText(answer, s.status), `expected "${s.status}"`),
    ];
  },
  solve: async (p, d, data) => {
    const s = data.statuses.find((x) => x.confirmation === p.confirmation)!;
    await dismissOverlays(d);
    await d.click({ name: 'Check status', tag: 'a' });
    await d.input({ name: 'Confirmation number', tag: 'input' }, s.confirmation);
    await d.input({ name: 'Last name', tag: 'input' }, s.lastName);
    await d.click({ name: 'Check status', tag: 'button' });
    await d.done(`The status is ${s.status}.`);
  },
});
