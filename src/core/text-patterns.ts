import { MONTH_NAMES } from './dates.ts';

/**
 * The text shapes several modules recognise - dates, phone numbers, the controls that dismiss an
 * overlay - written once. Fragments (`*_SOURCE`) compose into a module's own expression where it
 * needs a different anchor or flag; the ready expressions are for plain tests.
 *
 * These are the shapes themselves. A consumer that deliberately recognises less (the teacher's
 * note-correctable weaknesses, agent/heuristic) narrows them where it uses them and says so there.
 */

/** "january|february|...|december". */
export const MONTH_NAME_SOURCE = MONTH_NAMES.map((m) => m.toLowerCase()).join('|');
/** Month abbreviations, "sept" included; follow with `[a-z]*` to accept the full name too. */
export const MONTH_ABBR_SOURCE = 'jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec';
/** 2027-03-05 */
export const ISO_DATE_SOURCE = String.raw`\d{4}-\d{2}-\d{2}`;
/** 3/5/2027, 03/05/2027 */
export const US_DATE_SOURCE = String.raw`\d{1,2}/\d{1,2}/\d{4}`;
/** March 5, 2027 (case-insensitive with the `i` flag). */
export const LONG_DATE_SOURCE = String.raw`(?:${MONTH_NAME_SOURCE}) \d{1,2}, \d{4}`;
/** (555) 123-4567, 555-123-4567, 555.123.4567 */
export const PHONE_SOURCE = String.raw`\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}`;

/** A phone number anywhere in a text. */
export const PHONE_RE = new RegExp(PHONE_SOURCE);
/** A full date (US, ISO or long form) as whole words; add `g` via `new RegExp(DATE_VALUE_RE.source, 'gi')`. */
export const DATE_VALUE_RE = new RegExp(
  String.raw`\b(?:${US_DATE_SOURCE}|${ISO_DATE_SOURCE}|${LONG_DATE_SOURCE})\b`,
  'i',
);
/** The parts of each date form: [, month, day, year] for US and long, [, year, month, day] for ISO. */
export const US_DATE_PARTS_RE = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/;
export const ISO_DATE_PARTS_RE = /(\d{4})-(\d{2})-(\d{2})/;
export const LONG_DATE_PARTS_RE = new RegExp(String.raw`(${MONTH_NAME_SOURCE}) (\d{1,2}), (\d{4})`, 'i');
/** A text that starts with a month name. */
export const STARTS_WITH_MONTH_RE = new RegExp(String.raw`^(${MONTH_NAME_SOURCE})\b`, 'i');

/**
 * Words of the controls that dismiss an overlay (cookie banners, promo modals, dialogs), as they
 * appear inside a label ("Close dialog", "No thanks, maybe later"), plus the bare close marks.
 */
export const DISMISS_WORDS = [
  'accept',
  'agree',
  'close',
  'decline',
  'dismiss',
  'got it',
  'later',
  'no thanks',
  'not now',
  'ok',
  'reject',
] as const;
/** Close marks shown alone on a button. */
export const CLOSE_MARKS = ['x', '×', '✕', '✖'] as const;
/** A label that contains a dismiss word, or is a close mark (lower-cased or not). */
export const DISMISS_WORD_RE = new RegExp(
  String.raw`\b(?:${DISMISS_WORDS.join('|')})\b|^\s*[${CLOSE_MARKS.join('')}]\s*$`,
  'i',
);
/**
 * Whole labels that are nothing but a dismiss control ("Accept all", "No thanks", "×"): stricter
 * than DISMISS_WORD_RE, for agents that click what they match.
 */
export const DISMISS_LABEL_RE =
  /^(accept all|accept|accept cookies|i agree|got it|ok|close|no thanks|dismiss|×|continue without subscribing)$/i;
