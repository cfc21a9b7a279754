import { DATE_VALUE_RE, STARTS_WITH_MONTH_RE } from '../../../core/text-patterns.ts';
import { isoOf, toLongDate } from '../kit.ts';

/**
 * Reading a webmail request the way a person does: what kind of job it is (reply, forward,
 * label, clean up, settings, look something up), which message it is about (sender and topic),
 * who to write to and what to say. Pure functions over the task text.
 */

export type MailKind =
  | 'signature'
  | 'vacation'
  | 'spam'
  | 'forward'
  | 'relay'
  | 'reply'
  | 'compose'
  | 'mark-read'
  | 'archive'
  | 'label'
  | 'read';

export interface MailPlan {
  kind: MailKind;
  /** Who sent the message the task is about. */
  sender: string | null;
  /** What that message is about ("my flight to Denver", "invoice INV-2234"). */
  topic: string | null;
  /** A subject line: the one to write (compose) or the quoted one to find (spam). */
  subject: string | null;
  /** The person to write to (compose, forward, relay). */
  recipient: string | null;
  /** What to write: reply text, note, message body, signature or auto-reply text. */
  text: string | null;
  /** A label to apply. */
  label: string | null;
  /** Vacation dates, ISO. */
  start: string | null;
  end: string | null;
}

/** A capitalised name: "Harbor Legal Group", "Pixel & Pine Studio", "Atlas Moving Co.", "Booking.com". */
const WORD = String.raw`[\w&'-]*(?:\.[\w&'-]+)*(?:\.(?<=\b(?:Co|Inc|Ltd|Jr|Sr|St)\.))?`;
const NAME = String.raw`[A-Z]${WORD}(?:\s+(?:&|[A-Z0-9]${WORD}))*`;

function clean(name: string | undefined | null): string | null {
  if (!name) return null;
  const n = name
    .replace(/['\u2019]s$/, '')
    .replace(/[.,]$/, (m) => (/\bCo$|\bInc$|\bLtd$/.test(name.slice(0, -1)) ? m : ''))
    .trim();
  return n || null;
}

function first(text: string, patterns: RegExp[]): string | null {
  for (const re of patterns) {
    const m = re.exec(text);
    if (m?.[1]) return m[1];
  }
  return null;
}

/** The value after a cue word: a quoted string, or the rest of the sentence (or text, for the last cue). */
export function valueAfter(text: string, cue: RegExp, toEnd = false): string | null {
  const m = cue.exec(text);
  if (!m) return null;
  const rest = text.slice(m.index + m[0].length).replace(/^\s*[:,-]?\s*/, '');
  const q = rest.match(/^["\u201c]([^"\u201d]+)["\u201d]/);
  if (q) return q[1].trim();
  if (toEnd) return rest.trim() || null;
  const s = rest.match(/^(.+?)(?:\.\s|[.?!]?$)/);
  return s ? s[1].trim() : null;
}

/** The sender of the message the task is about. */
export function senderOf(text: string): string | null {
  const fromName = [...text.matchAll(new RegExp(String.raw`\bfrom (${NAME})`, 'g'))]
    .map((m) => m[1])
    .find((n) => !STARTS_WITH_MONTH_RE.test(n) && !/^(Spam|Inbox|Archive|Trash)\b/.test(n));
  const raw =
    first(text, [
      new RegExp(String.raw`(?:^|\s)(${NAME})['\u2019]s (?:email|e-mail|message|mail)\b`),
      new RegExp(String.raw`\battached to (${NAME})['\u2019]s\b`),
      new RegExp(String.raw`\b(?:owe|pay) (${NAME})`),
      new RegExp(String.raw`\bthe (${NAME}) (?:email|e-mail|message)\b`),
      new RegExp(String.raw`^(${NAME}) (?:emailed|wrote|sent) me\b`),
    ]) ?? fromName;
  return clean(raw?.replace(/^(?:Label|Reply to|Answer|Forward|Open|Send)\s+/, '') ?? null);
}

/** What the message is about, as the task words it. */
export function topicOf(text: string): string | null {
  const about = text.match(
    /\babout ((?:(?!\s(?:with the|and (?:say|tell)|as\s|\(forward))[^?!,(:"])+?)(?=\s+(?:with the|and (?:say|tell)|as\s)|\s*\(|[?!,:]|\.(?:\s|$)|$)/,
  );
  if (about) return about[1].trim();
  const inv = text.match(/\binvoice ([A-Z]{2,}-?\d+)/);
  if (inv) return `invoice ${inv[1]}`;
  const order = text.match(/\bmy (.+?) (?:order|arrives|package|delivery)\b/);
  if (order) return `${order[1]} order`;
  const mine = text.match(/\bfor (my [^.?!,]+)/);
  return mine ? mine[1].trim() : null;
}

/** The person the task wants a message sent to. */
export function recipientOf(text: string): string | null {
  const raw = first(text, [
    new RegExp(String.raw`^(?:Send|Email|E-mail|Write to|Message)\s+(${NAME})\s+(?:the|an?|this)\b`),
    new RegExp(String.raw`^(?:Email|E-mail)\s+(${NAME})[.,:]`),
    new RegExp(
      String.raw`\b(?:email|e-mail|message|write|send)(?: it| them| an email| a new email| a message)? to (${NAME})(?=\s+(?:with|titled|saying|that|about)\b|[.,:;]|$)`,
    ),
    new RegExp(String.raw`\bto (${NAME}) with the (?:note|message|comment)\b`),
    new RegExp(String.raw`^(${NAME}) (?:wants|needs|asked|would like)\b`),
  ]);
  return clean(raw);
}

function labelOfTask(text: string): string | null {
  return clean(
    first(text, [
      /\blabel ["\u201c]([^"\u201d]+)["\u201d]/i,
      /\blabel(?: it| them)?(?: as)? ["\u201c]?([A-Z][\w ]*?)["\u201d]?(?:[.,]|$)/,
      /\bas ["\u201c]?([A-Z][\w ]*?)["\u201d]?\.?$/,
    ]),
  );
}

/** ISO days of the dates the text names, in order. */
export function isoDatesIn(text: string): string[] {
  const re = new RegExp(DATE_VALUE_RE.source, 'gi');
  return [...text.matchAll(re)]
    .map((m) => {
      const long = toLongDate(m[0]);
      return long ? (isoOf(long) ?? '') : '';
    })
    .filter(Boolean);
}

/** The kind of mail job, from the verbs and nouns a person would use. */
export function mailKindOf(text: string): MailKind {
  const t = text.toLowerCase();
  if (/\bsignature\b/.test(t)) return 'signature';
  if (/\bvacation\b|out of (?:the )?office|auto(?:matic)?[- ]?(?:reply|responder)/.test(t)) return 'vacation';
  if (/\bspam\b|\bjunk\b/.test(t)) return 'spam';
  if (/\bforward\b/.test(t)) return 'forward';
  if (/\btracking number\b/.test(t) && /\b(email|e-mail|send|message)\b/.test(t) && recipientOf(text))
    return 'relay';
  if (
    /^(?:reply|answer the email|respond)\b|\breply(?: to)?\b.*["\u201c:]|\bemailed me\b.*\breply\b/i.test(
      text,
    )
  )
    return 'reply';
  if (/\bmark\b.*\bas read\b|\balready (?:seen|read)\b/.test(t)) return 'mark-read';
  if (/\barchive\b/.test(t)) return 'archive';
  if (/\blabel\b/.test(t)) return 'label';
  if (
    /^(?:send an email|email|e-mail|write (?:a new )?(?:email|message)|compose)\b/i.test(text) &&
    recipientOf(text)
  )
    return 'compose';
  return 'read';
}

/** Parses a webmail task. */
export function parseMailTask(text: string): MailPlan {
  const kind = mailKindOf(text);
  const plan: MailPlan = {
    kind,
    sender: null,
    topic: null,
    subject: null,
    recipient: null,
    text: null,
    label: null,
    start: null,
    end: null,
  };
  switch (kind) {
    case 'signature':
      plan.text =
        valueAfter(text, /\bsignature\b[^"\u201c:]*?\b(?:to|reads|say|says)\b/i, true)?.replace(/\.$/, '') ??
        null;
      break;
    case 'vacation': {
      const d = isoDatesIn(text);
      plan.start = d[0] ?? null;
      plan.end = d[1] ?? null;
      plan.text = valueAfter(text, /\b(?:message|saying|says|reads)\b/i, true);
      break;
    }
    case 'spam':
      plan.subject = text.match(/["\u201c]([^"\u201d]+)["\u201d]/)?.[1] ?? null;
      plan.sender = senderOf(text);
      plan.label = /\blabel\b/i.test(text) ? labelOfTask(text) : null;
      break;
    case 'forward':
      plan.recipient = recipientOf(text);
      plan.sender = senderOf(text);
      plan.topic = stripRecipient(topicOf(text), plan.recipient);
      plan.text = valueAfter(text, /\b(?:with the note|with the message|note|add|adding|saying)\b/i, true);
      break;
    case 'relay':
      plan.recipient = recipientOf(text);
      plan.topic = topicOf(text);
      break;
    case 'reply':
      plan.sender = senderOf(text) ?? clean(text.match(new RegExp(String.raw`\b(?:to|from) (${NAME})`))?.[1]);
      plan.topic = topicOf(text);
      plan.text = valueAfter(text, /\b(?:reply|say|saying|answer)\b(?=\s*["\u201c:])/i, true);
      break;
    case 'compose':
      plan.recipient = recipientOf(text);
      plan.subject = valueAfter(text, /\b(?:subject(?: line)?|titled|title)\b/i);
      plan.text = valueAfter(
        text,
        /\b(?:saying|message|body|that says|says)\b(?=\s*["\u201c:]|\s+[A-Z])/i,
        true,
      );
      break;
    case 'mark-read':
    case 'archive':
      plan.sender = senderOf(text);
      break;
    case 'label':
      plan.sender = senderOf(text);
      plan.topic = topicOf(text);
      plan.label = labelOfTask(text);
      break;
    default:
      plan.sender = senderOf(text);
      plan.topic = topicOf(text);
  }
  if (plan.text) plan.text = plan.text.replace(/^["\u201c]|["\u201d]$/g, '').trim();
  return plan;
}

function stripRecipient(topic: string | null, recipient: string | null): string | null {
  if (!topic || !recipient) return topic;
  const at = topic.lastIndexOf(` to ${recipient}`);
  return at > 0 ? topic.slice(0, at) : topic;
}

/**
 * Queries that find the message with a mailbox search. A quick search types the sender's name
 * alone (what most people do first); a careful one (after a note) adds the distinctive fact (an
 * invoice number, a city, a product) so the message is on the first page of results.
 */
export function searchWords(plan: MailPlan, careful = true): string[] {
  const topic = plan.topic ?? '';
  const code = topic.match(/\b[A-Z]{2,}-?\d{2,}\b/)?.[0];
  const proper = topic
    .replace(/^(?:my|your|the|a|an)\s+/i, '')
    .match(/\b[A-Z0-9][\w'&.-]*(?:\s+[A-Z0-9][\w'&.-]*)*/g)
    ?.filter((w) => !/^(I|My)$/.test(w));
  const key = code ?? proper?.sort((a, b) => b.length - a.length)[0] ?? null;
  const out: string[] = [];
  if (plan.kind === 'spam' && plan.subject) out.push(plan.subject);
  // A quick search is the sender alone, and nothing else is tried when it comes up short.
  if (!careful && plan.sender) return [...out, plan.sender];
  if (plan.sender && key) out.push(`${plan.sender} ${key}`);
  if (key) out.push(key);
  if (plan.sender) out.push(plan.sender);
  if (!out.length && topic) out.push(topic.replace(/^(?:my|your|the)\s+/i, ''));
  return [...new Set(out)];
}
