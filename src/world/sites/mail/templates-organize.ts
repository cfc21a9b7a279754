import { cond } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { poolTemplate, variant } from '../../template-kit.ts';
import { LABELS } from './content.ts';
import type { MailData, Message } from './data.ts';
import { PAGE_SIZE } from './pages.ts';
import { dismissPromo, hrefEnds, openFromList, STEPS, search, tick } from './solve.ts';
import { effective, type MailState } from './state.ts';
import { mine, searchWords } from './templates-read.ts';

function msg(data: MailData, id: string): Message {
  const m = data.byId.get(id);
  if (!m) throw new Error(`unknown message ${id}`);
  return m;
}

interface LabelParams {
  messageId: string;
  label: string;
}

/** Transactional: apply a label to one identified message. */
export const applyLabel: TaskTemplate<LabelParams, MailState, MailData> = poolTemplate({
  id: 'mail.label',
  description: 'Apply a label to an email identified by sender and subject matter',
  pool: (data) =>
    data.messages
      .filter((m) => ['flight', 'hotel', 'order', 'invoice', 'work'].includes(m.kind))
      .flatMap((m) =>
        LABELS.filter((l) => !m.labels.includes(l)).map((label) => ({ messageId: m.id, label })),
      ),
  splitKey: (p) => p.messageId,
  word: (p, data) => {
    const m = msg(data, p.messageId);
    const objective = variant(p, [
      `Add the label "${p.label}" to the email from ${m.from.short} about ${mine(m.about)}.`,
      `Label ${m.from.short}'s email about ${mine(m.about)} as ${p.label}.`,
    ]);
    return {
      objective,
      startPath: '/folder/inbox',
      referenceLength: STEPS.promo + STEPS.search + STEPS.open + 3,
    };
  },
  verify: (p, state, _answer, data) => {
    const m = effective(msg(data, p.messageId), state);
    const others = data.messages.filter(
      (x) => x.id !== m.id && !x.labels.includes(p.label) && effective(x, state).labels.includes(p.label),
    );
    return [
      cond('label.applied', m.labels.includes(p.label), `"${p.label}" not on the message`),
      cond('label.onlyTarget', others.length === 0, `also labelled ${others.map((x) => x.id).join(', ')}`),
      cond('message.kept', m.folder !== 'trash', 'the message was deleted'),
    ];
  },
  solve: async (p, d, data) => {
    const m = msg(data, p.messageId);
    await dismissPromo(d);
    await search(d, searchWords(m));
    await openFromList(d, m.id);
    await d.select({ name: 'Label as', tag: 'select' }, p.label);
    await d.click({ name: 'Apply label', tag: 'button' });
    await d.done(`Labelled as ${p.label}.`);
  },
});

interface SenderParams {
  sender: string;
}

function senderName(data: MailData, email: string): string {
  return data.messages.find((m) => m.from.email === email)?.from.name ?? email;
}

const notJunk = (m: Message) =>
  m.folder !== 'spam' && m.folder !== 'trash' && m.kind !== 'sent' && m.kind !== 'draft';

/** Messages from a sender that start unread (spam and trash aside). */
export function unreadFrom(data: MailData, email: string): Message[] {
  return data.messages.filter((m) => m.from.email === email && !m.read && notJunk(m));
}

/** Transactional: mark one sender's unread mail as read; "Mark all as read" is the lookalike trap. */
export const markRead: TaskTemplate<SenderParams, MailState, MailData> = poolTemplate({
  id: 'mail.mark-read',
  description: "Mark one sender's unread emails as read, leaving all other unread mail alone",
  pool: (data) => {
    const senders = [...new Set(data.messages.filter(notJunk).map((m) => m.from.email))];
    return senders
      .filter((s) => {
        const n = unreadFrom(data, s).length;
        const all = data.messages.filter((m) => m.from.email === s && notJunk(m)).length;
        return n >= 1 && n <= 4 && all <= 12;
      })
      .map((sender) => ({ sender }));
  },
  splitKey: (p) => p.sender,
  word: (p, data) => {
    const name = senderName(data, p.sender);
    const objective = variant(p, [
      `Mark every unread email from ${name} as read, without touching my other unread mail.`,
      `I've already seen everything from ${name}. Mark those emails as read but keep the rest of my unread messages unread.`,
    ]);
    return {
      objective,
      startPath: '/folder/inbox',
      referenceLength: STEPS.promo + STEPS.search + unreadFrom(data, p.sender).length + 2,
    };
  },
  verify: (p, state, _answer, data) => {
    const targets = unreadFrom(data, p.sender);
    const stillUnread = targets.filter((m) => !effective(m, state).read);
    const othersRead = data.messages.filter(
      (m) => m.from.email !== p.sender && !m.read && notJunk(m) && effective(m, state).read,
    );
    return [
      cond(
        'target.read',
        stillUnread.length === 0,
        `${stillUnread.length} of ${targets.length} still unread`,
      ),
      cond(
        'others.unread',
        othersRead.length === 0,
        `${othersRead.length} other unread emails were marked read${state.events.some((e) => e.startsWith('allread')) ? ' (Mark all as read was used)' : ''}`,
      ),
    ];
  },
  solve: async (p, d, data) => {
    await dismissPromo(d);
    await search(d, senderName(data, p.sender));
    for (const m of unreadFrom(data, p.sender)) await tick(d, m.id);
    await d.click({ name: 'Mark as read', tag: 'button' });
    await d.done('Marked as read.');
  },
});

/** Inbox messages from a sender at the start. */
export function inboxFrom(data: MailData, email: string): Message[] {
  return data.messages.filter((m) => m.from.email === email && m.folder === 'inbox');
}

/** Transactional: archive every inbox email from one sender, and nothing else. */
export const archiveSender: TaskTemplate<SenderParams, MailState, MailData> = poolTemplate({
  id: 'mail.archive-sender',
  description: 'Archive all inbox emails from one sender',
  pool: (data) => {
    const senders = [...new Set(data.messages.filter((m) => m.folder === 'inbox').map((m) => m.from.email))];
    return senders
      .filter((s) => {
        const n = inboxFrom(data, s).length;
        return (
          n >= 2 &&
          n <= 6 &&
          data.messages.filter((m) => m.from.email === s || m.to.some((t) => t.email === s)).length <= 16
        );
      })
      .map((sender) => ({ sender }));
  },
  splitKey: (p) => p.sender,
  word: (p, data) => {
    const name = senderName(data, p.sender);
    const objective = variant(p, [
      `Archive all the emails from ${name} that are in my inbox.`,
      `Clean up my inbox: move every email from ${name} to the archive (don't delete them).`,
    ]);
    return {
      objective,
      startPath: '/folder/inbox',
      referenceLength: STEPS.promo + STEPS.search + inboxFrom(data, p.sender).length + 2,
    };
  },
  verify: (p, state, _answer, data) => {
    const targets = inboxFrom(data, p.sender).map((m) => effective(m, state));
    const left = targets.filter((m) => m.folder === 'inbox');
    const deleted = targets.filter((m) => m.folder === 'trash');
    const moved = data.messages.filter(
      (m) => m.folder === 'inbox' && m.from.email !== p.sender && effective(m, state).folder !== 'inbox',
    );
    return [
      cond(
        'archived.all',
        left.length === 0 && deleted.length === 0,
        `${left.length} still in the inbox, ${deleted.length} deleted`,
      ),
      cond('archived.notDeleted', deleted.length === 0, `${deleted.length} went to Trash instead of Archive`),
      cond('others.inbox', moved.length === 0, `${moved.length} other emails left the inbox`),
    ];
  },
  solve: async (p, d, data) => {
    await dismissPromo(d);
    await search(d, senderName(data, p.sender));
    for (const m of inboxFrom(data, p.sender)) await tick(d, m.id);
    await d.click({ name: 'Archive', tag: 'button' });
    await d.done('Archived.');
  },
});

interface SpamParams {
  messageId: string;
  label: string;
}

function spamPage(data: MailData, id: string): number {
  const spam = data.messages.filter((m) => m.folder === 'spam');
  return Math.floor(spam.findIndex((m) => m.id === id) / PAGE_SIZE) + 1;
}

/** Transactional: find a legitimate email in Spam (maybe on page 2), restore it, maybe label it. */
export const spamRescue: TaskTemplate<SpamParams, MailState, MailData> = poolTemplate({
  id: 'mail.spam-rescue',
  description: 'Move a legitimate email out of Spam back to the inbox, optionally labelling it',
  pool: (data) =>
    data.messages
      .filter((m) => m.kind === 'misfiled')
      .flatMap((m) => ['', ...LABELS].map((label) => ({ messageId: m.id, label }))),
  splitKey: (p) => p.messageId,
  word: (p, data) => {
    const m = msg(data, p.messageId);
    const tail = p.label ? ` and label it ${p.label}` : '';
    const objective = variant(p, [
      `The email from ${m.from.name} ("${m.subject}") ended up in Spam. Move it back to my inbox${tail}.`,
      `Rescue "${m.subject}" from ${m.from.name} out of the Spam folder into the inbox${tail}.`,
    ]);
    const steps = STEPS.promo + 1 + (spamPage(data, m.id) - 1) + STEPS.open + 1 + (p.label ? 2 : 0) + 1;
    return { objective, startPath: '/folder/inbox', referenceLength: steps };
  },
  verify: (p, state, _answer, data) => {
    const m = effective(msg(data, p.messageId), state);
    const out = [cond('message.inInbox', m.folder === 'inbox', `it is in ${m.folder}`)];
    if (p.label) out.push(cond('message.label', m.labels.includes(p.label), `"${p.label}" not applied`));
    return out;
  },
  solve: async (p, d, _data) => {
    await dismissPromo(d);
    await d.click(hrefEnds('/folder/spam'));
    await openFromList(d, p.messageId);
    await d.click({ name: 'Not spam', tag: 'button' });
    if (p.label) {
      await d.select({ name: 'Label as', tag: 'select' }, p.label);
      await d.click({ name: 'Apply label', tag: 'button' });
    }
    await d.done('Moved back to the inbox.');
  },
});
