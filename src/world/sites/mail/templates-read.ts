import { answered, cond, containsCode, containsNumber } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { poolTemplate, variant } from '../../template-kit.ts';
import type { MailData, Message } from './data.ts';
import { dismissPromo, hrefEnds, openFromList, pickContact, STEPS, search, switchToTab } from './solve.ts';
import type { MailState } from './state.ts';

/** "your flight to Denver" in the user's own voice. */
export function mine(about: string): string {
  return about.replace(/^your /, 'my ');
}

/** Words that find a message with the mailbox search (sender plus a distinctive fact). */
export function searchWords(m: Message): string {
  const f = m.facts;
  const extra = f.invoice ?? f.product ?? f.city ?? f.topic ?? '';
  return `${m.from.short} ${extra}`.trim();
}

function msg(data: MailData, id: string): Message {
  const m = data.byId.get(id);
  if (!m) throw new Error(`unknown message ${id}`);
  return m;
}

interface MessageParams {
  messageId: string;
}

/** Information: a confirmation code from a flight or hotel email (search, open, read). */
export const findCode: TaskTemplate<MessageParams, MailState, MailData> = poolTemplate({
  id: 'mail.find-code',
  description: 'Find the confirmation code in a travel email identified by sender and trip',
  pool: (data) =>
    data.messages.filter((m) => m.kind === 'flight' || m.kind === 'hotel').map((m) => ({ messageId: m.id })),
  splitKey: (p) => p.messageId,
  word: (p, data) => {
    const m = msg(data, p.messageId);
    const s = m.from.short;
    const objective = variant(p, [
      `What is the confirmation code in the email from ${s} about ${mine(m.about)}?`,
      `Find the ${s} email about ${mine(m.about)} and tell me the confirmation code.`,
      `I need the confirmation number for ${mine(m.about)}. It's in an email from ${s}. What is it?`,
    ]);
    return {
      objective,
      startPath: '/folder/inbox',
      referenceLength: STEPS.promo + STEPS.search + STEPS.open + 1,
    };
  },
  verify: (p, _state, answer, data) => {
    const m = msg(data, p.messageId);
    return [
      answered(answer),
      cond('answer.code', containsCode(answer, m.facts.code), `expected ${m.facts.code}`),
    ];
  },
  solve: async (p, d, data) => {
    const m = msg(data, p.messageId);
    await dismissPromo(d);
    await search(d, searchWords(m));
    await openFromList(d, m.id);
    await d.done(`The confirmation code is ${m.facts.code}.`);
  },
});

/** Information: the total on an invoice PDF that opens in a new tab. */
export const attachmentTotal: TaskTemplate<MessageParams, MailState, MailData> = poolTemplate({
  id: 'mail.attachment-total',
  description: 'Open an invoice attachment (new tab) and report its total',
  pool: (data) => data.messages.filter((m) => m.kind === 'invoice').map((m) => ({ messageId: m.id })),
  splitKey: (p) => p.messageId,
  word: (p, data) => {
    const m = msg(data, p.messageId);
    const v = m.from.name;
    const inv = m.facts.invoice;
    const objective = variant(p, [
      `What is the total due on invoice ${inv} from ${v}? The invoice is attached to their email.`,
      `Open the PDF attached to ${v}'s email about invoice ${inv} and tell me the total amount due.`,
      `How much do I owe ${v} for invoice ${inv}? Check the attached invoice.`,
    ]);
    return {
      objective,
      startPath: '/folder/inbox',
      referenceLength: STEPS.promo + STEPS.search + STEPS.open + 2,
    };
  },
  verify: (p, _state, answer, data) => {
    const m = msg(data, p.messageId);
    return [
      answered(answer),
      cond('answer.total', containsNumber(answer, Number(m.facts.total)), `expected ${m.facts.total}`),
    ];
  },
  solve: async (p, d, data) => {
    const m = msg(data, p.messageId);
    await dismissPromo(d);
    await search(d, m.facts.invoice);
    await openFromList(d, m.id);
    await d.click(hrefEnds(`/attachment/${m.id}/0`));
    await switchToTab(d, `/attachment/${m.id}/0`);
    await d.done(`The total due on ${m.facts.invoice} is $${m.facts.total}.`);
  },
});

interface RelayParams {
  messageId: string;
  contactId: string;
}

/** Transactional: read a tracking number, then email it to a contact (autocomplete). */
export const relayTracking: TaskTemplate<RelayParams, MailState, MailData> = poolTemplate({
  id: 'mail.relay-tracking',
  description: 'Find a tracking number in a shipping email and send it to a contact',
  pool: (data) =>
    data.messages
      .filter((m) => m.kind === 'order')
      .flatMap((m) =>
        data.contacts.filter((_, i) => i % 3 === 0).map((c) => ({ messageId: m.id, contactId: c.id })),
      ),
  splitKey: (p) => p.messageId,
  word: (p, data) => {
    const m = msg(data, p.messageId);
    const c = data.contacts.find((x) => x.id === p.contactId);
    if (!c) return null;
    const objective = variant(p, [
      `Find the tracking number for my ${m.facts.product} order and email it to ${c.name}.`,
      `Send ${c.name} an email with the tracking number of my ${m.facts.product} order.`,
      `${c.name} wants to know when my ${m.facts.product} arrives. Email them the tracking number from the shipping email.`,
    ]);
    const steps = STEPS.promo + STEPS.search + STEPS.open + 1 + STEPS.pick + 4;
    return { objective, startPath: '/folder/inbox', referenceLength: steps };
  },
  verify: (p, state, _answer, data) => {
    const m = msg(data, p.messageId);
    const c = data.contacts.find((x) => x.id === p.contactId)!;
    const toC = state.sent.filter((s) => s.to.some((t) => t.email === c.email));
    return [
      cond('sent.to', toC.length > 0, `nothing sent to ${c.email}`),
      cond(
        'sent.tracking',
        toC.some((s) => containsCode(`${s.subject} ${s.body}`, m.facts.tracking)),
        `tracking ${m.facts.tracking} not in a message to ${c.name}`,
      ),
    ];
  },
  solve: async (p, d, data) => {
    const m = msg(data, p.messageId);
    const c = data.contacts.find((x) => x.id === p.contactId)!;
    await dismissPromo(d);
    await search(d, m.facts.product);
    await openFromList(d, m.id);
    await d.click({ name: 'Compose', tag: 'a' });
    await pickContact(d, c);
    await d.input({ name: 'Subject', tag: 'input' }, 'Tracking number');
    await d.input(
      { name: 'Message', tag: 'textarea' },
      `Here is the tracking number for the ${m.facts.product}: ${m.facts.tracking}`,
    );
    await d.click({ name: 'Send', tag: 'button' });
    await d.done('Sent the tracking number.');
  },
});
