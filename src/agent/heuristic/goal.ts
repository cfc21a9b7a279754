import { normalizeText, textTokens } from '../../core/action-equivalence.ts';

/** What the heuristic teacher reads out of a task's objective text. */
export interface TaskGoal {
  text: string;
  tokens: Set<string>;
  /** Values in quotes, in order. */
  quoted: string[];
  /** Field label -> value pairs ("ZIP code \"78701\"", "email ann@x.com"). */
  fields: Array<{ label: string; value: string }>;
  /** Names of things to find: quoted values and Capitalized Multi Word names. */
  names: string[];
  /** Ordering the task asks for, when it uses a superlative the heuristic knows. */
  sort: SortIntent | null;
  /** True for information tasks (the answer goes in done's text). */
  question: boolean;
  /** What the question asks for, e.g. "price", "confirmation code". */
  askFor: string | null;
  /** Verbs that name the transaction: buy, book, send, submit, ... */
  intents: string[];
}

export type SortIntent = 'price-asc' | 'price-desc' | 'rating' | 'newest' | 'shortest';

const QUESTION_RE =
  /^(what|how|which|who|when|where|is|are|does|do|find out|look up|tell me|check|report)\b/i;
const STOP = new Set([
  'the',
  'a',
  'an',
  'and',
  'with',
  'for',
  'of',
  'to',
  'in',
  'on',
  'at',
  'as',
  'is',
  'be',
  'your',
  'my',
  'me',
  'it',
  'that',
  'then',
  'by',
  'from',
  'use',
  'set',
  'enter',
  'type',
  'put',
  'fill',
]);

// The superlatives the heuristic knows: only the common one-word forms. It misses rarer
// wordings ("lowest-priced", "least expensive", "highest-rated", "most recent", "quickest",
// "most affordable"), which is one of the ways it fails for a realistic reason; the rules reflector
// then writes a sort rule (kit.preferredSort) that the next attempt follows.
const SORTS: Array<[RegExp, SortIntent]> = [
  [/\b(cheapest)\b/i, 'price-asc'],
  [/\b(most expensive|priciest)\b/i, 'price-desc'],
  [/\b(best[- ]rated|top[- ]rated)\b/i, 'rating'],
  [/\b(newest|latest)\b/i, 'newest'],
  [/\b(shortest|fastest)\b/i, 'shortest'],
];

const INTENTS = [
  'buy',
  'purchase',
  'order',
  'add',
  'book',
  'reserve',
  'send',
  'reply',
  'forward',
  'submit',
  'apply',
  'save',
  'schedule',
  'archive',
  'delete',
  'move',
  'label',
  'star',
  'subscribe',
  'cancel',
  'update',
  'change',
  'register',
  'renew',
  'request',
  'contact',
  'compose',
  'email',
  'write',
];

/** Parses an objective into the constraints the heuristic teacher acts on. */
export function parseGoal(text: string): TaskGoal {
  const quoted = [...text.matchAll(/["\u201c]([^"\u201d]+)["\u201d]/g)]
    .map((m) => m[1].trim())
    .filter(Boolean);
  const fields: TaskGoal['fields'] = [];
  for (const m of text.matchAll(/((?:[A-Za-z][\w'-]*\s+){1,4})["\u201c]([^"\u201d]+)["\u201d]/g)) {
    const words = m[1]
      .trim()
      .split(/\s+/)
      .filter((w) => !STOP.has(w.toLowerCase()));
    if (words.length) fields.push({ label: words.slice(-3).join(' '), value: m[2].trim() });
  }
  for (const m of text.matchAll(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g)) {
    if (!fields.some((f) => f.value === m[0])) fields.push({ label: 'email', value: m[0] });
  }
  const names = [...quoted];
  for (const m of text.matchAll(/\b([A-Z][\w'&-]*(?:\s+(?:[A-Z0-9][\w'&-]*|of|and|de|la|&))+)/g)) {
    const n = m[1].trim();
    // A date ("April 4") is not the name of a thing to find.
    const isDate =
      /^(January|February|March|April|May|June|July|August|September|October|November|December) \d/.test(n);
    if (
      !names.includes(n) &&
      !isDate &&
      !/^(What|How|Which|Find|Add|Buy|Book|Send|Go|Open|Please|I|The|Tell)\b/.test(n)
    )
      names.push(n);
  }
  let sort: SortIntent | null = null;
  for (const [re, s] of SORTS) if (re.test(text)) sort = s;
  const question =
    QUESTION_RE.test(text.trim()) ||
    /\?\s*$/.test(text.trim()) ||
    /\b(report|tell me|what is|how many|how much)\b/i.test(text);
  const askFor = askedAttribute(text);
  const toks = textTokens(text);
  return {
    text,
    tokens: new Set(toks.filter((t) => !STOP.has(t))),
    quoted,
    fields,
    names,
    sort,
    question,
    askFor,
    intents: INTENTS.filter((v) => new RegExp(`\\b${v}`, 'i').test(text)),
  };
}

/** Token-overlap score of a candidate text against a phrase: recall of the phrase's tokens, penalised for extra tokens. */
export function phraseMatch(
  phrase: string,
  candidate: string,
): { recall: number; exact: boolean; extra: number } {
  const p = textTokens(phrase);
  const c = textTokens(candidate);
  if (!p.length || !c.length) return { recall: 0, exact: false, extra: c.length };
  const cs = new Set(c);
  const hit = p.filter((t) => cs.has(t)).length;
  return {
    recall: hit / p.length,
    exact: normalizeText(phrase) === normalizeText(candidate),
    extra: c.filter((t) => !p.includes(t)).length,
  };
}

/** Words of the page label that holds the answer to the task's question ("price", "total time"). */
const ASKED: Array<[RegExp, string]> = [
  [
    /\bhow much (?:does|do|is|are)\b.*\bcost\b|\bprice\b|\bhow much do i owe\b|\bamount due\b|\btotal amount\b/i,
    'price total amount due',
  ],
  [/\bhow (?:many minutes|long)\b|\btotal time\b/i, 'total time'],
  [/\bcalories\b/i, 'calories'],
  [/\btemperature\b|\boven\b/i, 'oven temperature'],
  [/\bflight number\b/i, 'flight'],
  [/\bguest rating\b/i, 'guest rating'],
  [/\bconfirmation (?:number|code)\b/i, 'confirmation'],
  [/\btracking number\b/i, 'tracking'],
  [/\b(?:cancellation|change) fee\b/i, 'fee'],
  [/\bstatus\b/i, 'status'],
  [/\bhow many\b/i, 'results count'],
];

function askedAttribute(text: string): string | null {
  for (const [re, words] of ASKED) if (re.test(text)) return words;
  const m = text.match(
    /\b(?:what|which)(?:'s| is| are| was)\s+(?:the\s+)?(?:current\s+)?([\w\s-]{2,40}?)\s+(?:of|for|in|on|from)\b/i,
  );
  return m ? m[1].toLowerCase() : null;
}
