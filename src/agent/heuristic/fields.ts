import { normalizeText, textTokens } from '../../core/action-equivalence.ts';
import type { Element } from '../../core/observation.ts';
import { DATE_VALUE_RE, PHONE_RE } from '../../core/text-patterns.ts';

/**
 * Reading form values out of a task's text the way a person does: find the field's label (or a
 * synonym) in the text and take what follows it, or recognise the value by its shape (an email, a
 * phone number, a ZIP code, a date, an address). Pure functions over strings.
 */

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;
const DATE = new RegExp(DATE_VALUE_RE.source, 'gi');
const ADDRESS =
  /(\d+ [A-Z][\w.]*(?: [A-Z][\w.]*)*(?: (?:Apt|Unit|Suite) \w+)?),? ([A-Z][a-z]+(?: [A-Z][a-z]+)*),? ([A-Z][a-z]+(?: [A-Z][a-z]+)*|[A-Z]{2}) (\d{5})/;

/** Label words that mean the same field. */
const SYNONYMS: Array<[RegExp, string[]]> = [
  [/\b(zip|postal|postcode)\b/i, ['zip', 'postal code', 'zip code']],
  [/\b(phone|telephone|mobile|tel)\b/i, ['phone', 'telephone', 'mobile']],
  [/\b(message|body|note)\b/i, ['message', 'add', 'saying', 'note', 'reply', 'body']],
  [/\bsubject\b/i, ['subject']],
  [/\b(birth|dob|born)\b/i, ['born', 'date of birth', 'birth']],
  [/\b(street|address)\b/i, ['address', 'street']],
  [/\b(full name|your name|name)\b/i, ['name', 'resident', 'guest', 'i am', "i'm", 'for']],
  [/\b(employees?)\b/i, ['employees']],
  [/\b(ein|tax id)\b/i, ['ein']],
  [/\b(cost|amount|price|income)\b/i, ['cost', 'income', 'amount']],
  [/\b(description|describe)\b/i, ['description']],
  [/\b(plate|license plate)\b/i, ['plate']],
  [/\b(parcel)\b/i, ['parcel']],
  [/\b(passport number)\b/i, ['passport number']],
  [/\b(household|people)\b/i, ['household of', 'people']],
  [/\b(coupon|promo)\b/i, ['coupon']],
  [/\b(start|starting|move date|moving)\b/i, ['starting', 'moving on', 'start']],
];

/** Words of a field's label: name, aria-label, placeholder, name attribute. */
export function fieldLabel(e: Element): string {
  return [
    e.name,
    e.attributes['aria-label'],
    e.attributes.placeholder,
    e.attributes.name?.replace(/[_-]/g, ' '),
  ]
    .filter(Boolean)
    .join(' ');
}

function cutValue(rest: string): string {
  const s = rest.replace(/^\s*(?::|is|are|of|=|-)\s*/i, '').trimStart();
  const q = s.match(/^["\u201c]([^"\u201d]+)["\u201d]/);
  if (q) return q[1];
  // The value runs to the next clause: a comma or semicolon, or a sentence end.
  const m = s.match(/^(.+?)(?:[,;](?=\s)|\.(?=\s+[A-Z(])|\.$|\s+and\s+(?=[a-z])|$)/);
  return (m ? m[1] : s).trim().replace(/[.?!]$/, '');
}

function anchoredValue(text: string, anchors: string[]): string | null {
  for (const a of anchors) {
    const re = new RegExp(`\\b${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i');
    const m = re.exec(text);
    if (!m) continue;
    const v = cutValue(text.slice(m.index + m[0].length));
    if (v && v.length <= 200) return v;
  }
  return null;
}

function datesIn(text: string): Array<{ value: string; at: number }> {
  return [...text.matchAll(DATE)].map((m) => ({ value: m[0], at: m.index ?? 0 }));
}

/** The date in the text nearest after one of the label's cue words, else the first date. */
function dateFor(label: string, text: string): string | null {
  const dates = datesIn(text);
  if (!dates.length) return null;
  const l = label.toLowerCase();
  const cues = /birth|born|dob/.test(l)
    ? ['born', 'birth']
    : /check.?out|end|return|through|until|to\b/.test(l)
      ? ['to', 'through', 'until', 'returning']
      : /start|from|check.?in|depart|moving|move/.test(l)
        ? ['starting', 'from', 'on', 'moving on', 'away']
        : [];
  for (const c of cues) {
    const re = new RegExp(`\\b${c}\\b`, 'gi');
    for (const m of text.matchAll(re)) {
      const after = dates.find((d) => d.at >= (m.index ?? 0) && d.at - (m.index ?? 0) < 40);
      if (after) return after.value;
    }
  }
  return dates[0].value;
}

function personName(text: string): string | null {
  const m =
    text.match(/\b(?:Name|Resident|Guest|Applicant):?\s+([A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2})/) ??
    text.match(/\b(?:I'm|I am|for me:|me,)\s+([A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2})/) ??
    text.match(/\bfor ([A-Z][a-z'-]+ [A-Z][a-z'-]+)(?=[,.\s]|$)/);
  return m ? m[1] : null;
}

/**
 * The value the task gives for a form field, or null. `type` is the input type attribute.
 */
export function valueForField(label: string, type: string, text: string): string | null {
  const l = label.toLowerCase();
  if (type === 'email' || /e-?mail/.test(l)) return text.match(EMAIL)?.[0] ?? null;
  if (type === 'tel' || /phone|telephone|mobile/.test(l)) return text.match(PHONE_RE)?.[0] ?? null;
  if (type === 'date' || /\bdate\b|birth|born|\bdob\b|check.?in|check.?out|arriv|depart/.test(l)) {
    const d = dateFor(l, text);
    if (d) return d;
  }
  const addr = text.match(ADDRESS);
  if (/\bzip|postal/.test(l))
    return (
      anchoredValue(text, ['zip', 'zip code'])?.match(/\d{5}/)?.[0] ??
      addr?.[4] ??
      text.match(/\b\d{5}\b/)?.[0] ??
      null
    );
  if (/\bcity\b/.test(l)) return addr?.[2] ?? null;
  if (/\bstate\b/.test(l)) return addr?.[3] ?? null;
  if (/street|address/.test(l))
    return addr?.[1] ?? anchoredValue(text, ['address', 'street'])?.replace(/,?\s*zip.*$/i, '') ?? null;
  if (/\bname\b/.test(l) && !/user|business|company|pet|collection|list/.test(l)) {
    const n = personName(text);
    if (n) {
      if (/first/.test(l)) return n.split(' ')[0];
      if (/last|sur/.test(l)) return n.split(' ').slice(-1)[0];
      return n;
    }
  }
  for (const [re, anchors] of SYNONYMS) {
    if (re.test(l)) {
      const v = anchoredValue(text, anchors);
      if (v) return v;
    }
  }
  // The label itself as the anchor ("Subject: ...", "plate CKT0117").
  const words = textTokens(label).filter((w) => w.length > 2);
  if (words.length) {
    const v = anchoredValue(text, [words.join(' '), ...words.slice(-1)]);
    if (v) return v;
  }
  return null;
}

/** The option whose text the task mentions (longest mention wins), or null. */
export function mentionedOption(options: readonly string[], text: string): string | null {
  const t = ` ${normalizeText(text)} `;
  let best: string | null = null;
  let bestLen = 0;
  for (const o of options) {
    const n = normalizeText(o);
    if (!n || /^(select|choose|any|all|--)/.test(n)) continue;
    if (t.includes(` ${n} `) && n.length > bestLen) {
      best = o;
      bestLen = n.length;
    }
  }
  return best;
}
