import { textTokens } from '../../../core/action-equivalence.ts';
import { PHONE_RE } from '../../../core/text-patterns.ts';
import { valueForField } from '../fields.ts';

/**
 * Reading the answer to one form question out of the task text, the way a person filling a
 * government form does: names, dates and numbers by their shape, addresses by which one the
 * question means (old, new, mailing, business), yes/no questions by the sentence that talks about
 * the same thing and whether it is negated, choices by the option the task mentions.
 */

export interface Address {
  street: string;
  city: string | null;
  state: string | null;
  zip: string | null;
  at: number;
}

/** A street line: number, name words ending in a street type, then an optional unit. */
export const STREET =
  /\b\d{1,6} (?:[NSEW]\.? )?(?:[A-Z][a-z]+ ){1,3}?(?:St|Street|Ave|Avenue|Rd|Road|Ln|Lane|Way|Dr|Drive|Ct|Court|Blvd|Boulevard|Pl|Place|Ter|Terrace|Cir|Circle|Pkwy|Parkway|Hwy|Highway|Loop|Trail|Trl|Row|Sq|Square|Pike|Run|Path|Walk)\.?(?: (?:Apt|Unit|Suite|#) ?[\w-]+)?(?=,|\.|\s|$)/g;

/** Street addresses in the text with the city, state and ZIP that follow them. */
export function addressesIn(text: string): Address[] {
  const out: Address[] = [];
  for (const m of text.matchAll(STREET)) {
    const at = m.index ?? 0;
    const rest = text.slice(at + m[0].length, at + m[0].length + 60);
    const full =
      /^,? ([A-Z][a-z]+(?: [A-Z][a-z]+)*),? ([A-Z][a-z]+(?: [A-Z][a-z]+)*|[A-Z]{2}),? (\d{5})\b/.exec(rest);
    const zip = /^,? (?:ZIP|zip|ZIP code)? ?(\d{5})\b/.exec(rest);
    out.push({
      street: m[0].replace(/[.,]$/, ''),
      city: full?.[1] ?? null,
      state: full?.[2] ?? null,
      zip: full?.[3] ?? zip?.[1] ?? null,
      at,
    });
  }
  return out;
}

/** Which of the task's addresses a field means, from words in its label ("Old", "New", "Mailing"). */
export function addressFor(label: string, text: string): Address | null {
  const all = addressesIn(text);
  if (!all.length) return null;
  const l = label.toLowerCase();
  const after = (re: RegExp) => {
    const m = re.exec(text);
    return m
      ? all.find((a) => a.at >= (m.index ?? 0) && a.at - (m.index ?? 0) <= m[0].length + 3)
      : undefined;
  };
  if (/\b(old|previous|current|former)\b/.test(l)) return after(/\bfrom\b/i) ?? all[0];
  if (/\bnew\b/.test(l)) return after(/\bto\b/i) ?? all.at(-1) ?? null;
  if (/\bmail(ing)?\b/.test(l)) return after(/\b(?:mail|send|ship)\b[^.]*?\bto\b/i) ?? all[0];
  if (/\bbusiness\b/.test(l)) return after(/\bbusiness address(?: is)?\b/i) ?? all[0];
  return all[0];
}

const STATES: Array<[string, string]> = [
  ['AL', 'Alabama'],
  ['AK', 'Alaska'],
  ['AZ', 'Arizona'],
  ['AR', 'Arkansas'],
  ['CA', 'California'],
  ['CO', 'Colorado'],
  ['CT', 'Connecticut'],
  ['DE', 'Delaware'],
  ['FL', 'Florida'],
  ['GA', 'Georgia'],
  ['HI', 'Hawaii'],
  ['ID', 'Idaho'],
  ['IL', 'Illinois'],
  ['IN', 'Indiana'],
  ['IA', 'Iowa'],
  ['KS', 'Kansas'],
  ['KY', 'Kentucky'],
  ['LA', 'Louisiana'],
  ['ME', 'Maine'],
  ['MD', 'Maryland'],
  ['MA', 'Massachusetts'],
  ['MI', 'Michigan'],
  ['MN', 'Minnesota'],
  ['MS', 'Mississippi'],
  ['MO', 'Missouri'],
  ['MT', 'Montana'],
  ['NE', 'Nebraska'],
  ['NV', 'Nevada'],
  ['NH', 'New Hampshire'],
  ['NJ', 'New Jersey'],
  ['NM', 'New Mexico'],
  ['NY', 'New York'],
  ['NC', 'North Carolina'],
  ['ND', 'North Dakota'],
  ['OH', 'Ohio'],
  ['OK', 'Oklahoma'],
  ['OR', 'Oregon'],
  ['PA', 'Pennsylvania'],
  ['RI', 'Rhode Island'],
  ['SC', 'South Carolina'],
  ['SD', 'South Dakota'],
  ['TN', 'Tennessee'],
  ['TX', 'Texas'],
  ['UT', 'Utah'],
  ['VT', 'Vermont'],
  ['VA', 'Virginia'],
  ['WA', 'Washington'],
  ['WV', 'West Virginia'],
  ['WI', 'Wisconsin'],
  ['WY', 'Wyoming'],
  ['DC', 'District of Columbia'],
];

/** A state option for a state name or postal code. */
export function stateOption(state: string, options: string[]): string | null {
  const full = STATES.find(
    ([code, name]) => code === state.toUpperCase() || name.toLowerCase() === state.toLowerCase(),
  );
  const want = (full?.[1] ?? state).toLowerCase();
  return options.find((o) => o.toLowerCase() === want || o.toUpperCase() === full?.[0]) ?? null;
}

/** Clauses of the task: sentences, split again at ", and" / ";" so each says one thing. */
export function clausesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z"])|;\s*|,\s+and\s+|:\s+(?=[A-Z])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const STOP = new Set(
  'a an the is are was be been your you my i me we our this that it of to in on for with by at as or and do does did will would has have had any anyone since from how what who which should please also request add'.split(
    ' ',
  ),
);

/** A light stemmer: "licensed", "licenses" and "license" all become "licens". */
export const stem = (w: string) =>
  w.length <= 3 ? w : w.replace(/ies$/, 'y').replace(/(?:ing|ed|es|s|e)$/, '');

function contentWords(s: string): string[] {
  return textTokens(s)
    .filter((w) => !STOP.has(w) && w.length > 1)
    .map(stem);
}

/** The clause of the task that talks about the same thing as a question (rarer shared words weigh more). */
export function clauseFor(question: string, text: string): string | null {
  const clauses = clausesOf(text);
  const words = [...new Set(contentWords(question))];
  const df = new Map(words.map((w) => [w, clauses.filter((c) => contentWords(c).includes(w)).length]));
  let best: string | null = null;
  let bestScore = 0;
  for (const c of clauses) {
    const cw = new Set(contentWords(c));
    const score = words.filter((w) => cw.has(w)).reduce((s, w) => s + 1 / (df.get(w) || 1), 0);
    if (score > bestScore + 1e-9) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}

const NEGATION = /\b(not|no|nobody|none|never|nothing|without|neither|nor)\b|n['\u2019]t\b/i;

/**
 * Yes or No for a yes/no question, from the clause that answers it. A quick read takes a clause
 * that talks about the question as a yes ("My name has not changed" -> changed -> Yes), the
 * lexical reader's classic slip; a careful read (after a reflection note) honours the negation.
 */
export function yesNo(question: string, text: string, careful = true): 'Yes' | 'No' | null {
  const c = clauseFor(question, text);
  if (!c) return null;
  return careful && NEGATION.test(c) ? 'No' : 'Yes';
}

/** How much of an option's wording a passage contains (stemmed content-word recall). */
function optionRecall(option: string, passage: string): number {
  const ow = textTokens(option).map(stem);
  if (!ow.length) return 0;
  const pt = textTokens(passage).map(stem);
  // The option's words in a row ("zone b", "12 month") count fully; scattered words count less.
  if (` ${pt.join(' ')} `.includes(` ${ow.join(' ')} `)) return 1;
  const pw = new Set(pt);
  return (0.9 * ow.filter((w) => pw.has(w)).length) / ow.length;
}

/**
 * The option a task means for a choice question: the option named in the clause about the
 * question, else the option the whole task names most completely.
 */
export function chooseOption(
  question: string,
  options: string[],
  text: string,
  careful = true,
): string | null {
  const real = options.filter((o) => o.trim() && !/^(-+\s*)?(select|choose|any)\b/i.test(o.trim()));
  if (real.length === 2 && real.every((o) => /^(yes|no)$/i.test(o))) {
    const yn = yesNo(question, text, careful);
    return yn ? (real.find((o) => o.toLowerCase() === yn.toLowerCase()) ?? null) : null;
  }
  const clause = clauseFor(question, text);
  for (const passage of clause ? [clause, text] : [text]) {
    let best: string | null = null;
    let score = 0.5;
    for (const o of real) {
      const r = optionRecall(o, passage);
      // Ties go to the longer option ("Zone B" over "B", "West Virginia" over "Virginia").
      if (r > score + 1e-9 || (best && Math.abs(r - score) < 1e-9 && r >= 0.99 && o.length > best.length)) {
        best = o;
        score = r;
      }
    }
    if (best && score >= 0.99) return best;
    if (best && passage === clause) return best;
  }
  return null;
}

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;

function personName(text: string): string | null {
  const m =
    text.match(
      /\b(?:Name|Resident|Applicant|Owner|[Mm]y name(?: is)?|[Mm]y details):?\s+([A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2})/,
    ) ??
    text.match(/\b(?:I'm|I am|for me:|me,|for)\s+([A-Z][a-z'-]+ [A-Z][a-z'-]+)(?=[,.\s]|$)/) ??
    text.match(/\bfor ([A-Z][a-z'-]+ [A-Z][a-z'-]+)\b/);
  return m ? m[1] : null;
}

function money(label: string, text: string): string | null {
  const clause = clauseFor(label, text) ?? text;
  const m = clause.match(/\$\s?([\d,]+(?:\.\d{2})?)/) ?? text.match(/\$\s?([\d,]+(?:\.\d{2})?)/);
  return m ? m[1] : null;
}

function vehicle(text: string): { year: string; make: string; model: string } | null {
  const m =
    /\b((?:19|20)\d{2}) ([A-Z][\w-]*) ([A-Z0-9][\w-]*(?: [A-Z0-9][\w-]*)*?)(?=,|\.|\s+\(|\s+plate|\s+with|$)/.exec(
      text,
    );
  return m ? { year: m[1], make: m[2], model: m[3] } : null;
}

/** The value for a free-text form field with this label, or null when the task does not give one. */
export function textFor(label: string, text: string, type = 'text'): string | null {
  const l = label.toLowerCase();
  if (type === 'email' || /e-?mail/.test(l)) return text.match(EMAIL)?.[0] ?? null;
  if (type === 'tel' || /phone|telephone|mobile/.test(l)) return text.match(PHONE_RE)?.[0] ?? null;
  if (/(last name|surname) on|previous (last )?name|former name|maiden|old (last )?name/.test(l))
    return text.match(/\b(?:old|previous|former|maiden) (?:last )?name,?\s+([A-Z][a-z'-]+)/)?.[1] ?? null;
  if (/\b(first|given) name\b/.test(l)) return personName(text)?.split(' ')[0] ?? null;
  if (/\b(last|family) name\b|surname/.test(l)) return personName(text)?.split(' ').slice(-1)[0] ?? null;
  if (/\b(full name|your name|applicant name)\b|^name$/.test(l)) return personName(text);
  if (/passport (number|no)/.test(l))
    return text.match(/passport (?:number|no\.?)\D{0,8}(\d{6,12})/i)?.[1] ?? null;
  if (/\bssn\b|social security/.test(l))
    return text.match(/\b(?:SSN|social security(?: number)?)\D{0,20}?(\d{4})\b/i)?.[1] ?? null;
  if (/\bein\b|employer identification/.test(l)) return text.match(/\b\d{2}-\d{7}\b/)?.[0] ?? null;
  if (/parcel/.test(l)) return text.match(/\b\d{3}-\d{2}-\d{3}\b/)?.[0] ?? null;
  if (/license (number|no)|licen[cs]e #/.test(l)) return text.match(/\b[A-Z]{1,2}-\d{4,}\b/)?.[0] ?? null;
  if (/\bcompany\b|contractor name|builder name/.test(l))
    return (
      text.match(/\b(?:done by|by|contractor(?: is)?)\s+([A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*)*)(?=,|\.)/)?.[1] ??
      null
    );
  if (/business name|name of (the )?business/.test(l))
    return text.match(/["\u201c]([^"\u201d]+)["\u201d]/)?.[1] ?? null;
  if (/\bplate\b/.test(l) && !/state/.test(l))
    return text.match(/\bplate(?: number)?:?\s+([A-Z0-9]{2,8})\b/i)?.[1] ?? null;
  if (/^(vehicle )?make$/.test(l.trim())) return vehicle(text)?.make ?? null;
  if (/^(vehicle )?model$/.test(l.trim())) return vehicle(text)?.model ?? null;
  if (/\byear\b/.test(l) && /vehicle|car|^year$/.test(l.trim())) return vehicle(text)?.year ?? null;
  if (/number of employees|employees/.test(l))
    return text.match(/\b(\d+) (?:full-time |part-time )?employees\b/i)?.[1] ?? null;
  if (/income|cost|amount|price|rent|salary|value/.test(l)) return money(label, text);
  if (/^(your )?(message|question|comments?)$/.test(l.trim()))
    return text.match(/["\u201c]([^"\u201d]+)["\u201d]/)?.[1] ?? null;
  if (/description|describe/.test(l))
    return (
      text.match(/\bdescription:?\s*["\u201c]([^"\u201d]+)["\u201d]/i)?.[1] ??
      valueForField(label, type, text)
    );
  if (/\bzip|postal/.test(l)) return addressFor(l, text)?.zip ?? text.match(/\bZIP:? (\d{5})\b/)?.[1] ?? null;
  if (/\bcity\b|town/.test(l)) return addressFor(l, text)?.city ?? null;
  if (/street|address/.test(l)) return addressFor(l, text)?.street ?? null;
  return valueForField(label, type, text);
}

/** A number for a count question ("People in your household" -> 4). */
export function countFor(label: string, text: string): string | null {
  const l = label.toLowerCase();
  if (/household|people|persons|family size/.test(l))
    return (
      text
        .match(/\bhousehold of (\d+)\b|\b(\d+)[- ](?:person|people)\b|\bfamily of (\d+)\b/i)
        ?.slice(1)
        .find(Boolean) ?? null
    );
  return null;
}
