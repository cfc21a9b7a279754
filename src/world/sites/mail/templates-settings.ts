import { longDate } from '../../../core/dates.ts';
import { cond, containsText, sameText } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { poolTemplate, variant } from '../../template-kit.ts';
import { JOB_TITLES, VACATION_MESSAGES } from './content.ts';
import type { MailData } from './data.ts';
import { dismissPromo, STEPS } from './solve.ts';
import type { MailState } from './state.ts';

interface SignatureParams {
  signature: string;
}

const SIGNATURE_FORMATS = [
  (t: string) => `Alex Morgan | ${t} | Northwind Labs`,
  (t: string) => `Best, Alex Morgan, ${t}`,
  (t: string) => `Alex Morgan - ${t}`,
  (t: string, i: number) => `Alex Morgan, ${t}, (312) 555-01${String(i).padStart(2, '0')}`,
  (t: string) => `Thanks, Alex (${t}, Northwind Labs)`,
  (t: string, i: number) => `Alex Morgan | ${t} | ext. ${410 + i}`,
];

/** Transactional: change the signature in Settings. */
export const signature: TaskTemplate<SignatureParams, MailState, MailData> = poolTemplate({
  id: 'mail.signature',
  description: 'Set the email signature in Settings',
  pool: () => JOB_TITLES.flatMap((t, i) => SIGNATURE_FORMATS.map((f) => ({ signature: f(t, i) }))),
  splitKey: (p) => p.signature,
  word: (p) => ({
    objective: variant(p, [
      `Change my email signature to: ${p.signature}`,
      `Set my Postbox signature to "${p.signature}".`,
      `Update the signature in my mail settings so it reads: ${p.signature}`,
    ]),
    startPath: '/folder/inbox',
    referenceLength: STEPS.promo + 4,
  }),
  verify: (p, state) => [
    cond(
      'settings.signature',
      sameText(state.settings.signature, p.signature),
      `signature is "${state.settings.signature}"`,
    ),
  ],
  solve: async (p, d) => {
    await dismissPromo(d);
    await d.click({ name: 'Settings', tag: 'a' });
    await d.input({ name: 'Signature', tag: 'textarea' }, p.signature);
    await d.click({ name: 'Save changes', tag: 'button' });
    await d.done('Signature saved.');
  },
});

interface VacationParams {
  start: string;
  end: string;
  message: string;
}

function addDays(iso: string, n: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** Months the picker has to move forward from February 2027 (its first month) to reach a day. */
function monthsFromFeb(iso: string): number {
  const [y, m] = iso.split('-').map(Number);
  return (y - 2027) * 12 + (m - 2);
}

async function pickDate(d: Parameters<TaskTemplate['solve']>[1], field: string, iso: string): Promise<void> {
  await d.click({ name: field, tag: 'input' });
  for (let i = 0; i < monthsFromFeb(iso); i++) await d.click({ name: 'Next month', tag: 'button' });
  await d.click({ name: longDate(iso), tag: 'button' });
}

/** Transactional (hard): the vacation responder with two date pickers, a radio and a message. */
export const vacation: TaskTemplate<VacationParams, MailState, MailData> = poolTemplate({
  id: 'mail.vacation',
  description: 'Turn on the vacation responder for a date range with a message',
  pool: () => {
    const out: VacationParams[] = [];
    for (let i = 7; i < 88; i++) {
      const start = addDays('2027-02-01', i);
      for (const [k, message] of VACATION_MESSAGES.entries())
        out.push({ start, end: addDays(start, 3 + ((i + k) % 9)), message });
    }
    return out;
  },
  splitKey: (p) => p.start,
  word: (p) => ({
    objective: variant(p, [
      `Turn on my vacation responder from ${longDate(p.start)} to ${longDate(p.end)} with the message: "${p.message}"`,
      `I'm away ${longDate(p.start)} through ${longDate(p.end)}. Set up an automatic vacation reply for those dates saying "${p.message}"`,
    ]),
    startPath: '/folder/inbox',
    referenceLength: STEPS.promo + 4 + monthsFromFeb(p.start) + 2 + monthsFromFeb(p.end) + 4,
  }),
  verify: (p, state) => {
    const v = state.settings.vacation;
    return [
      cond('vacation.enabled', v.enabled, 'the responder is off'),
      cond('vacation.start', v.start === p.start, `first day is ${v.start || 'empty'}`),
      cond('vacation.end', v.end === p.end, `last day is ${v.end || 'empty'}`),
      cond('vacation.message', containsText(v.message, p.message), 'message differs'),
    ];
  },
  solve: async (p, d) => {
    await dismissPromo(d);
    await d.click({ name: 'Settings', tag: 'a' });
    await d.click({ name: 'Vacation responder', role: 'tab' });
    await d.click({ name: 'Vacation responder on', tag: 'input' });
    await pickDate(d, 'First day', p.start);
    await pickDate(d, 'Last day', p.end);
    await d.input({ name: 'Message', tag: 'textarea' }, p.message);
    await d.click({ name: 'Save changes', tag: 'button' });
    await d.done('Vacation responder is on.');
  },
});
