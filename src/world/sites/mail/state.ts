import type { Attachment, Folder, MailData, Message, Person } from './data.ts';

/** Changes a session made to a seeded message. */
export interface MessagePatch {
  read?: boolean;
  starred?: boolean;
  labels?: string[];
  folder?: Folder;
}

/** A message the user wrote in this session (sent or saved as a draft). */
export interface OutgoingMessage {
  id: string;
  to: Array<{ name: string; email: string }>;
  cc: string;
  subject: string;
  body: string;
  inReplyTo: string | null;
  forwardOf: string | null;
  attachments: Attachment[];
  date: string;
}

export interface VacationSettings {
  enabled: boolean;
  start: string;
  end: string;
  subject: string;
  message: string;
}

/** Per-session mailbox state: patches over the seeded mailbox plus what the user wrote. */
export interface MailState {
  patches: Record<string, MessagePatch>;
  sent: OutgoingMessage[];
  drafts: OutgoingMessage[];
  settings: { signature: string; vacation: VacationSettings };
  /** Bulk actions taken, e.g. `allread:inbox` (lets verifiers explain what went wrong). */
  events: string[];
  promoSubscribed: boolean;
}

export function initialMailState(): MailState {
  return {
    patches: {},
    sent: [],
    drafts: [],
    settings: { signature: '', vacation: { enabled: false, start: '', end: '', subject: '', message: '' } },
    events: [],
    promoSubscribed: false,
  };
}

/** A seeded message with this session's patch applied. */
export function effective(m: Message, state: MailState): Message {
  const p = state.patches[m.id];
  return p ? { ...m, ...p, labels: p.labels ?? m.labels } : m;
}

export function patch(state: MailState, id: string, change: MessagePatch): void {
  state.patches[id] = { ...(state.patches[id] ?? {}), ...change };
}

function outgoingAsMessage(o: OutgoingMessage, me: Person, folder: Folder): Message {
  return {
    id: o.id,
    folder,
    kind: folder === 'sent' ? 'sent' : 'draft',
    from: me,
    to: o.to.map((t) => ({ id: t.email, name: t.name, email: t.email, short: t.name })),
    subject: o.subject,
    body: o.body.split(/\n/),
    date: o.date,
    read: true,
    starred: false,
    labels: [],
    attachments: o.attachments,
    about: o.subject,
    facts: {},
  };
}

/** Every message of the mailbox as this session sees it, newest first. */
export function allMessages(data: MailData, state: MailState): Message[] {
  const own = [
    ...state.sent.map((o) => outgoingAsMessage(o, data.me, 'sent')),
    ...state.drafts.map((o) => outgoingAsMessage(o, data.me, 'drafts')),
  ].reverse();
  return [...own, ...data.messages.map((m) => effective(m, state))];
}

/** One message by id (seeded or written this session), as this session sees it. */
export function findMessage(data: MailData, state: MailState, id: string): Message | undefined {
  const seeded = data.byId.get(id);
  if (seeded) return effective(seeded, state);
  const s = state.sent.find((o) => o.id === id);
  if (s) return outgoingAsMessage(s, data.me, 'sent');
  const d = state.drafts.find((o) => o.id === id);
  return d ? outgoingAsMessage(d, data.me, 'drafts') : undefined;
}

export function inFolder(data: MailData, state: MailState, folder: Folder): Message[] {
  return allMessages(data, state).filter((m) => m.folder === folder);
}

/**
 * Search over sender, recipients, subject and body, every word required (like webmail search);
 * spam and trash are left out as real clients do.
 */
export function searchMessages(data: MailData, state: MailState, q: string): Message[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [];
  return allMessages(data, state).filter((m) => {
    if (m.folder === 'spam' || m.folder === 'trash') return false;
    const hay = [m.from.name, m.from.email, ...m.to.map((t) => `${t.name} ${t.email}`), m.subject, ...m.body]
      .join(' ')
      .toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export function unreadCount(data: MailData, state: MailState, folder: Folder): number {
  return inFolder(data, state, folder).filter((m) => !m.read).length;
}
