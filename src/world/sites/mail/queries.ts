import { longDate } from '../../../core/dates.ts';
import type { Rng } from '../../../core/rng.ts';
import { type Phraser as KitPhraser, siteQueries } from '../../query-kit.ts';
import type { RawQuery } from '../../site.ts';
import type { MailData, Message } from './data.ts';
import { MAIL_TEMPLATES } from './templates.ts';
import { inboxFrom } from './templates-organize.ts';

type Phraser = KitPhraser<any, MailData>;

const msgOf = (data: MailData, id: string): Message => data.byId.get(id)!;
const contactName = (data: MailData, id: string) => data.contacts.find((c) => c.id === id)!.name;
const senderName = (data: MailData, email: string) =>
  data.messages.find((m) => m.from.email === email)!.from.name;
/** "my flight to Denver" -> "flight to denver" as people shorten it. */
const short = (about: string) => about.replace(/^(your|the) /, '');

/** How users would type each template's request. */
const PHRASERS: Record<string, Phraser> = {
  'mail.find-code': (p, data, rng) => {
    const m = msgOf(data, p.messageId);
    return rng.pick([
      { text: `whats the confirmation code from ${m.from.short} for my ${short(m.about)}` },
      { text: `${m.from.short} conf code ${short(m.about)}?` },
      {
        text: `need my confirmation number for the ${short(m.about)} - its in an email from ${m.from.short}`,
      },
    ]);
  },
  'mail.attachment-total': (p, data, rng) => {
    const m = msgOf(data, p.messageId);
    const inv = m.facts.invoice;
    return rng.pick([
      { text: `how much is ${m.from.name} invoice ${inv}`, keep: [inv] },
      { text: `total due on ${inv} from ${m.from.name}? its in the pdf`, keep: [inv] },
      { text: `what do i owe ${m.from.name} for ${inv}`, keep: [inv] },
    ]);
  },
  'mail.relay-tracking': (p, data, rng) => {
    const m = msgOf(data, p.messageId);
    const c = contactName(data, p.contactId);
    return rng.pick([
      { text: `send ${c} the tracking number for my ${m.facts.product} order` },
      { text: `email ${c} tracking # of the ${m.facts.product}` },
      { text: `can u find the tracking for the ${m.facts.product} and email it to ${c}` },
    ]);
  },
  'mail.reply': (p, data, rng) => {
    const m = msgOf(data, p.messageId);
    return rng.pick([
      { text: `reply to ${m.from.name} about ${short(m.about)} - say ${p.text}`, keep: [p.text] },
      { text: `respond to ${m.from.name}'s email re ${short(m.about)}: "${p.text}"`, keep: [p.text] },
      { text: `answer ${m.from.name} on the ${short(m.about)} thing, tell them ${p.text}`, keep: [p.text] },
    ]);
  },
  'mail.compose': (p, data, rng) => {
    const c = contactName(data, p.contactId);
    return rng.pick([
      { text: `email ${c} subject ${p.subject}: ${p.body}`, keep: [p.subject, p.body] },
      { text: `write to ${c} "${p.subject}" - ${p.body}`, keep: [p.subject, p.body] },
      { text: `new email to ${c}, subj "${p.subject}", say ${p.body}`, keep: [p.subject, p.body] },
    ]);
  },
  'mail.forward': (p, data, rng) => {
    const m = msgOf(data, p.messageId);
    const c = contactName(data, p.contactId);
    return rng.pick([
      {
        text: `forward the ${m.from.short} email about my ${short(m.about)} to ${c} w/ note ${p.note}`,
        keep: [p.note],
      },
      { text: `fwd ${m.from.short} ${short(m.about)} mail to ${c}, add "${p.note}"`, keep: [p.note] },
    ]);
  },
  'mail.label': (p, data, rng) => {
    const m = msgOf(data, p.messageId);
    return rng.pick([
      { text: `label the ${m.from.short} email about my ${short(m.about)} as ${p.label}` },
      { text: `put ${m.from.short}'s ${short(m.about)} email under ${p.label} label` },
      { text: `tag ${m.from.short} mail re ${short(m.about)} with label ${p.label}` },
    ]);
  },
  'mail.mark-read': (p, data, rng) => {
    const n = senderName(data, p.sender);
    return rng.pick([
      { text: `mark all unread from ${n} as read but leave the rest unread` },
      { text: `mark ${n} emails read, only those` },
      { text: `i already read everything from ${n}, mark as read pls (dont touch other unread)` },
    ]);
  },
  'mail.archive-sender': (p, data, rng) => {
    const n = senderName(data, p.sender);
    return rng.pick([
      { text: `archive all the ${n} emails in my inbox` },
      { text: `move everything from ${n} out of inbox to archive, dont delete` },
      { text: `clean up inbox - archive ${inboxFrom(data, p.sender).length} mails from ${n}` },
    ]);
  },
  'mail.spam-rescue': (p, data, rng) => {
    const m = msgOf(data, p.messageId);
    const tail = p.label ? ` and label it ${p.label}` : '';
    return rng.pick([
      {
        text: `${m.from.name} email "${m.subject}" went to spam, move it back to inbox${tail}`,
        keep: [m.subject],
      },
      { text: `get ${m.subject} from ${m.from.name} out of spam${tail}`, keep: [m.subject] },
    ]);
  },
  'mail.signature': (p, _data, rng) =>
    rng.pick([
      { text: `change my signature to ${p.signature}`, keep: [p.signature] },
      { text: `set email sig: ${p.signature}`, keep: [p.signature] },
      { text: `update signature -> "${p.signature}"`, keep: [p.signature] },
    ]),
  'mail.vacation': (p, _data, rng) => {
    const a = longDate(p.start).replace(', 2027', '');
    const b = longDate(p.end).replace(', 2027', '');
    return rng.pick([
      { text: `set out of office ${a} to ${b} saying ${p.message}`, keep: [p.message, a, b] },
      { text: `vacation responder on from ${a} - ${b}, msg: "${p.message}"`, keep: [p.message, a, b] },
      { text: `im away ${a} thru ${b}, turn on auto reply w/ "${p.message}"`, keep: [p.message, a, b] },
    ]);
  },
};

/** At least 200 messy mail requests, each grounded in a template and its parameters. */
export function mailRawQueries(rng: Rng, data: MailData): RawQuery[] {
  return siteQueries('mail', MAIL_TEMPLATES, PHRASERS, data, rng, 18);
}
