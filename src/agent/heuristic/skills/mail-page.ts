import { textTokens } from '../../../core/action-equivalence.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import type { HistoryEntry } from '../../agent.ts';
import { phraseMatch } from '../goal.ts';
import type { Choice } from '../kit.ts';
import { isClickable, isEditable, isSearchBox, isToggle, labelOf, pageTexts } from '../page.ts';

/**
 * What a person recognises on a webmail page: the message list and its rows, an open message
 * with its actions, the compose form, the settings. Readers over the observation only.
 */

/** A click with the goal it serves. */
export const click = (e: Element, goal: string): Choice => ({
  action: { type: 'click', index: e.index },
  goal,
});

/** Finishing: the answer or a short confirmation. */
export const done = (text: string, success = true): Choice => ({
  action: { type: 'done', text, success },
  goal: success ? 'Finish the task' : 'Give up',
});

/** Clicks the clickable whose label matches, or null when there is none. */
export function clickOr(obs: Observation, re: RegExp, goal: string): Choice | null {
  const e = clickable(obs, re);
  return e ? click(e, goal) : null;
}

export type MailPage = 'list' | 'message' | 'compose' | 'settings' | 'other';

const clickable = (obs: Observation, re: RegExp) =>
  obs.elements.find((e) => isClickable(e) && re.test(labelOf(e).trim()));

/** Whether this looks like a webmail client (a Compose button beside a mail search box). */
export function isWebmail(obs: Observation): boolean {
  return !!clickable(obs, /^compose$/i) && obs.elements.some(isSearchBox);
}

export function mailPage(obs: Observation): MailPage {
  if (composeField(obs, 'to') && clickable(obs, /^send$/i)) return 'compose';
  if (clickable(obs, /^reply$/i) && clickable(obs, /^forward$/i)) return 'message';
  if (obs.elements.some((e) => /^signature$/i.test(labelOf(e))) || clickable(obs, /^vacation responder$/i))
    return 'settings';
  if (rows(obs).length || clickable(obs, /^mark as read$/i)) return 'list';
  return 'other';
}

export function findClickable(obs: Observation, re: RegExp): Element | undefined {
  return clickable(obs, re);
}

/** A field of the compose form by its role: to, subject, message. */
export function composeField(
  obs: Observation,
  which: 'to' | 'subject' | 'message' | 'signature',
): Element | undefined {
  const re = { to: /^to$/i, subject: /^subject$/i, message: /^(message|body)$/i, signature: /^signature$/i }[
    which
  ];
  return obs.elements.find(
    (e) => isEditable(e) && !isSearchBox(e) && re.test((e.name || e.attributes['aria-label'] || '').trim()),
  );
}

export interface MailRow {
  /** The row's select checkbox ("Select: Sender - Subject"). */
  box: Element;
  /** The link that opens the message. */
  link: Element | undefined;
  who: string;
  subject: string;
  /** Everything the row shows: sender, subject, snippet, labels. */
  text: string;
  sent: boolean;
}

/** The rows of a message list, from their select checkboxes and the links beside them. */
export function rows(obs: Observation): MailRow[] {
  const out: MailRow[] = [];
  const els = obs.elements;
  for (let i = 0; i < els.length; i++) {
    const e = els[i];
    if (!isToggle(e)) continue;
    const m = /^Select:\s*(.+?) - (.+)$/.exec((e.name || e.text || '').trim());
    if (!m) continue;
    const link = els.slice(i + 1, i + 4).find((x) => x.tag === 'a');
    out.push({
      box: e,
      link,
      who: m[1].trim(),
      subject: m[2].trim(),
      text: link ? labelOf(link) : `${m[1]} ${m[2]}`,
      sent: /^to:/i.test(m[1].trim()),
    });
  }
  return out;
}

const STOP = new Set([
  'my',
  'your',
  'the',
  'a',
  'an',
  'to',
  'for',
  'about',
  'of',
  'in',
  'on',
  'from',
  'with',
]);

/** Content words of a topic; words holding digits must all appear (invoice and order numbers). */
function topicWords(topic: string): { words: string[]; names: string[]; codes: string[] } {
  const words = textTokens(topic).filter((t) => !STOP.has(t));
  // Proper names (a city, a product) and numbers (invoice, order) that identify the message.
  const names = (topic.match(/\b[A-Z][\w'-]*(?:\s+[A-Z0-9][\w'-]*)*/g) ?? [])
    .filter((c) => !/^(I|My|The|A|An)$/.test(c) && !/\d/.test(c))
    .map((c) => textTokens(c).join(' '));
  const codes = (topic.match(/\b[\w-]*\d[\w-]*\b/g) ?? []).map((c) => textTokens(c).join(' '));
  return { words, names, codes };
}

/**
 * How well a row (or an open message) matches the sender and topic the task names: 0 when the
 * sender differs (or, read carefully, a number or name of the topic is missing), else the share
 * of topic words present.
 */
export function matchScore(
  text: string,
  who: string,
  sender: string | null,
  topic: string | null,
  careful = true,
): number {
  if (sender && phraseMatch(sender, who).recall < 0.99) return 0;
  if (!topic) return 1;
  const { words, names, codes } = topicWords(topic);
  const hay = ` ${textTokens(text).join(' ')} `;
  // Names must appear; a quick reader then goes by the share of words, a careful one also
  // insists on every number (INV-2234 is not INV-2212).
  if (names.some((c) => !hay.includes(` ${c} `))) return 0;
  if (careful && codes.some((c) => !hay.includes(` ${c} `))) return 0;
  // A quick reader trusts the first message of the right sender once its names fit; only a
  // careful one (after a note) weighs the rest of the topic's words.
  if (!careful && sender) return 1;
  if (!words.length) return 1;
  const hit = words.filter((w) => hay.includes(` ${w} `) || hay.includes(` ${w}s `)).length;
  return hit / words.length;
}

/** The open message: subject (h1), sender line and body text. */
export function openMessage(obs: Observation): { subject: string; who: string; text: string } {
  const subject = obs.texts.find((t) => t.tag === 'h1')?.text ?? '';
  const texts = obs.texts.map((t) => t.text);
  const who = texts.find((t) => /<[^>]+@[^>]+>/.test(t)) ?? '';
  return { subject, who, text: `${subject} ${texts.join(' ')}` };
}

/** A "Label: value" line on the page whose label matches `ask` (e.g. "Confirmation code: 4KQ2ZP"). */
export function labelledValue(obs: Observation, ask: RegExp): string | null {
  for (const t of pageTexts(obs)) {
    for (const line of t.split(/\n/)) {
      const m = /^\s*([^:]{2,40}):\s*(.+?)\s*$/.exec(line);
      if (m && ask.test(m[1])) return m[2].replace(/\.$/, '');
    }
  }
  return null;
}

/** A labelled value from any page seen so far in this episode (newest first), then this one. */
export function seenValue(obs: Observation, history: HistoryEntry[], ask: RegExp): string | null {
  const here = labelledValue(obs, ask);
  if (here) return here;
  for (let i = history.length - 1; i >= 0; i--) {
    const v = labelledValue(history[i].observation, ask);
    if (v) return v;
  }
  return null;
}

/** What the task asks to read, as a pattern over "Label:" words on the page. */
export function askPattern(objective: string): RegExp {
  const t = objective.toLowerCase();
  if (/confirmation (?:code|number)|booking (?:code|reference)/.test(t))
    return /confirmation (code|number)|booking (code|reference)|record locator/i;
  if (/tracking/.test(t)) return /tracking/i;
  if (/\btotal\b|\bowe\b|amount due|\bbalance\b/.test(t))
    return /^(total|total due|amount due|balance due|total amount)/i;
  if (/\bdue date\b|when is .* due/.test(t)) return /due date/i;
  const m = t.match(/\bthe ([a-z ]+?) (?:in|from|of|on)\b/);
  return m ? new RegExp(m[1].split(' ').slice(-2).join(' '), 'i') : /$^/;
}
