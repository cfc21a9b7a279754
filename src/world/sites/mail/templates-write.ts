import { cond, containsText, sameText } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { poolTemplate, variant } from '../../template-kit.ts';
import { COMPOSE_LINES, FORWARD_NOTES, REPLY_LINES } from './content.ts';
import type { MailData, Message, Person } from './data.ts';
import { dismissPromo, openFromList, pickContact, STEPS, search } from './solve.ts';
import type { MailState, OutgoingMessage } from './state.ts';
import { searchWords } from './templates-read.ts';

function msg(data: MailData, id: string): Message {
  const m = data.byId.get(id);
  if (!m) throw new Error(`unknown message ${id}`);
  return m;
}

function contact(data: MailData, id: string): Person {
  const c = data.contacts.find((x) => x.id === id);
  if (!c) throw new Error(`unknown contact ${id}`);
  return c;
}

function sentTo(state: MailState, email: string): OutgoingMessage[] {
  return state.sent.filter((s) => s.to.some((t) => t.email.toLowerCase() === email.toLowerCase()));
}

interface ReplyParams {
  messageId: string;
  text: string;
}

/** Transactional: reply in-thread to a colleague's or friend's email with a given line. */
export const reply: TaskTemplate<ReplyParams, MailState, MailData> = poolTemplate({
  id: 'mail.reply',
  description: 'Reply to an email identified by sender and topic with a given message',
  pool: (data) =>
    data.messages
      .filter((m) => (m.kind === 'work' || m.kind === 'personal') && m.folder !== 'spam')
      .flatMap((m) => REPLY_LINES.map((text) => ({ messageId: m.id, text }))),
  splitKey: (p) => p.messageId,
  word: (p, data) => {
    const m = msg(data, p.messageId);
    const objective = variant(p, [
      `Reply to ${m.from.name}'s email about ${m.about} and say: "${p.text}"`,
      `Answer the email from ${m.from.name} about ${m.about} with the reply "${p.text}"`,
      `${m.from.name} emailed me about ${m.about}. Reply: ${p.text}`,
    ]);
    return {
      objective,
      startPath: '/folder/inbox',
      referenceLength: STEPS.promo + STEPS.search + STEPS.open + 4,
    };
  },
  verify: (p, state, _answer, data) => {
    const m = msg(data, p.messageId);
    const replies = state.sent.filter((s) => s.inReplyTo === m.id);
    const toSender = sentTo(state, m.from.email);
    const all = [...replies, ...toSender];
    return [
      cond('reply.sent', replies.length > 0, 'no reply in this thread (use Reply on the message)'),
      cond('reply.to', toSender.length > 0, `nothing sent to ${m.from.email}`),
      cond(
        'reply.subject',
        all.some((s) => containsText(s.subject, m.subject)),
        `subject should keep "${m.subject}"`,
      ),
      cond(
        'reply.body',
        all.some((s) => containsText(s.body, p.text)),
        `body should say "${p.text}"`,
      ),
    ];
  },
  solve: async (p, d, data) => {
    const m = msg(data, p.messageId);
    await dismissPromo(d);
    await search(d, `${m.from.name} ${m.facts.topic ?? ''}`.trim());
    await openFromList(d, m.id);
    await d.click({ name: 'Reply', tag: 'a' });
    await d.input({ name: 'Message', tag: 'textarea' }, p.text);
    await d.click({ name: 'Send', tag: 'button' });
    await d.done('Reply sent.');
  },
});

interface ComposeParams {
  contactId: string;
  subject: string;
  body: string;
}

/** Transactional: a new email to a contact picked from the autocomplete (lookalike names exist). */
export const compose: TaskTemplate<ComposeParams, MailState, MailData> = poolTemplate({
  id: 'mail.compose',
  description: 'Compose a new email to a contact chosen through the To autocomplete',
  pool: (data) =>
    data.contacts.flatMap((c) =>
      COMPOSE_LINES.map(([subject, body]) => ({ contactId: c.id, subject, body })),
    ),
  splitKey: (p) => p.contactId,
  word: (p, data) => {
    const c = contact(data, p.contactId);
    const objective = variant(p, [
      `Send an email to ${c.name} with the subject "${p.subject}" saying: ${p.body}`,
      `Email ${c.name}. Subject: ${p.subject}. Message: ${p.body}`,
      `Write a new email to ${c.name} titled "${p.subject}" that says "${p.body}"`,
    ]);
    return { objective, startPath: '/folder/inbox', referenceLength: STEPS.promo + 1 + STEPS.pick + 4 };
  },
  verify: (p, state, _answer, data) => {
    const c = contact(data, p.contactId);
    const mine = sentTo(state, c.email);
    const wrong = state.sent.filter(
      (s) => !s.to.some((t) => t.email === c.email) && sameText(s.subject, p.subject),
    );
    return [
      cond('sent.to', mine.length > 0, `nothing sent to ${c.name} <${c.email}>`),
      cond(
        'sent.subject',
        mine.some((s) => sameText(s.subject, p.subject)),
        `subject should be "${p.subject}"`,
      ),
      cond(
        'sent.body',
        mine.some((s) => containsText(s.body, p.body)),
        `body should say "${p.body}"`,
      ),
      cond(
        'sent.noWrongRecipient',
        wrong.length === 0,
        `sent to ${wrong.flatMap((s) => s.to.map((t) => t.email)).join(', ')} instead`,
      ),
    ];
  },
  solve: async (p, d, data) => {
    await dismissPromo(d);
    await d.click({ name: 'Compose', tag: 'a' });
    await pickContact(d, contact(data, p.contactId));
    await d.input({ name: 'Subject', tag: 'input' }, p.subject);
    await d.input({ name: 'Message', tag: 'textarea' }, p.body);
    await d.click({ name: 'Send', tag: 'button' });
    await d.done('Email sent.');
  },
});

interface ForwardParams {
  messageId: string;
  contactId: string;
  note: string;
}

/** Transactional: forward an email (attachments travel with it) to a contact with a short note. */
export const forward: TaskTemplate<ForwardParams, MailState, MailData> = poolTemplate({
  id: 'mail.forward',
  description: 'Forward an email to a contact with a note',
  pool: (data) => {
    const people = data.contacts.filter((_, i) => i % 4 === 1);
    return data.messages
      .filter((m) => ['invoice', 'order', 'flight', 'hotel'].includes(m.kind))
      .flatMap((m) =>
        people.flatMap((c) => FORWARD_NOTES.map((note) => ({ messageId: m.id, contactId: c.id, note }))),
      );
  },
  splitKey: (p) => p.messageId,
  word: (p, data) => {
    const m = msg(data, p.messageId);
    const c = contact(data, p.contactId);
    const objective = variant(p, [
      `Forward the email from ${m.from.short} about ${m.about.replace(/^your /, 'my ')} to ${c.name} with the note "${p.note}"`,
      `Send ${c.name} the ${m.from.short} email about ${m.about.replace(/^your /, 'my ')} (forward it) and add: ${p.note}`,
    ]);
    return {
      objective,
      startPath: '/folder/inbox',
      referenceLength: STEPS.promo + STEPS.search + STEPS.open + 1 + STEPS.pick + 3,
    };
  },
  verify: (p, state, _answer, data) => {
    const m = msg(data, p.messageId);
    const c = contact(data, p.contactId);
    const fwd = state.sent.filter((s) => s.forwardOf === m.id);
    const mine = fwd.filter((s) => s.to.some((t) => t.email === c.email));
    return [
      cond('forward.sent', fwd.length > 0, 'the message was not forwarded (use Forward on it)'),
      cond('forward.to', mine.length > 0, `not forwarded to ${c.name} <${c.email}>`),
      cond(
        'forward.note',
        mine.some((s) => containsText(s.body, p.note)),
        `note "${p.note}" missing`,
      ),
    ];
  },
  solve: async (p, d, data) => {
    const m = msg(data, p.messageId);
    await dismissPromo(d);
    await search(d, searchWords(m));
    await openFromList(d, m.id);
    await d.click({ name: 'Forward', tag: 'a' });
    await pickContact(d, contact(data, p.contactId));
    await d.input({ name: 'Message', tag: 'textarea' }, p.note);
    await d.click({ name: 'Send', tag: 'button' });
    await d.done('Forwarded.');
  },
});
