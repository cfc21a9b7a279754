import { type Action, formatAction, fromBrowserUse, targetIndex } from '../core/action.ts';
import type { Element, Observation, TextBlock } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import { DISMISS_WORD_RE } from '../core/text-patterns.ts';
import type { HistoryEntry } from './agent.ts';

/**
 * The compact observation a small language-model student reads: the task, the page's URL and
 * title, the page's elements and text blocks most relevant to the task (ranked by
 * {@link elementScore} and {@link textScore}, kept in document order with their original indices)
 * and the last few actions, within a token budget. One renderer serves training exports and
 * inference, so the student acts on exactly the layout it learned from.
 *
 * It exists because the full Browser Use prompt (`prompt.ts`) runs to 2,000-5,000 tokens on the
 * world's pages, and a 270M model on two CPU cores evaluates about 400 prompt tokens a second.
 */
export const LM_PROMPT_VERSION = 2;

/**
 * Default budget of the rendered user text, in estimated tokens ({@link estimateTokens}): on a
 * validation split of train tasks a student trained at 512 matched fewer of the teacher's actions
 * (16.0% against 20.8% of 125 steps, results/lm-layout.md).
 */
export const DEFAULT_PROMPT_TOKENS = 768;

/** History entries shown (the most recent ones). */
const HISTORY_STEPS = 4;
/** The page's first elements in document order, which hold its navigation (see {@link elementScore}). */
export const HEADER_ELEMENTS = 12;
/** Characters of an element's label or a text block kept on its line. */
const LABEL_CHARS = 48;
const TEXT_CHARS = 100;

/**
 * The system text of the compact layout: the reply format and the actions, in as few tokens as
 * the student needs. Reply: one Browser Use action object, e.g. `{"click": {"index": 12}}`.
 */
export const LM_SYSTEM_PROMPT = `You operate a web browser. Reply with one action as JSON, one of:
{"click": {"index": N}} | {"input": {"index": N, "text": "..."}} | {"select_dropdown": {"index": N, "text": "..."}} | {"scroll": {"down": true}} | {"go_back": {}} | {"done": {"text": "answer", "success": true}}
Indices refer to the [N] elements shown. Write the element's [N] before an action on it: [3] {"click": {"index": 3}}`;

/**
 * Tokens a text costs, estimated from its length: Gemma 3's tokenizer averaged 2.73 characters a
 * token on this layout's prompts (114 steps of a mail and recipes collection; element lists are
 * dense in brackets, digits and short names), so 2.7 keeps the estimate at or just above the truth.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 2.7);
}

const STOPWORDS = new Set(
  (
    'a an the and or of to in on at for from by with as is are be it its this that these those into ' +
    'your you my me i we our their his her what which who whom how when where than then there here ' +
    'find open show give tell get set make use go do does did please all any each one two first last ' +
    'page site task'
  ).split(' '),
);

/**
 * Words a task uses for what a site's controls call otherwise ("send an email" -> Compose). Each
 * task word adds its aliases to the terms, so the control's label matches.
 */
const ALIASES: Record<string, string[]> = {
  send: ['compose', 'send'],
  email: ['compose', 'message'],
  write: ['compose'],
  message: ['compose'],
  reply: ['reply'],
  forward: ['forward'],
  remove: ['delete', 'remove'],
  trash: ['delete'],
  cheapest: ['sort', 'price'],
  lowest: ['sort', 'price'],
  highest: ['sort', 'rating'],
  rated: ['sort', 'rating'],
  people: ['servings', 'serves'],
  servings: ['servings', 'serves'],
  recipe: ['search', 'recipes'],
};

/** The task's terms: lower-cased words of 2+ characters that are not stopwords, without repeats. */
export function taskTerms(objective: string): string[] {
  const words =
    objective.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? [];
  const out = new Set<string>();
  for (const w of words) {
    for (const part of [w, ...w.split(/[.'-]/)]) {
      if (part.length >= 2 && !STOPWORDS.has(part)) out.add(part);
    }
  }
  for (const w of [...out]) for (const a of ALIASES[w] ?? []) out.add(a);
  return [...out];
}

/** Words of a text, lower-cased, as a set for term lookups. */
function wordSet(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words);
}

/** A term's weight: numbers and words of 5+ letters (names, values) say more than short words. */
function termWeight(term: string): number {
  if (/\d/.test(term)) return 2;
  return term.length >= 5 ? 1.5 : 1;
}

/** Each task term's weight on one page (see {@link pageTermWeights}). */
export type TermWeights = ReadonlyMap<string, number>;

function hasTerm(words: Set<string>, term: string): boolean {
  const parts = term.match(/[\p{L}\p{N}]+/gu) ?? [];
  return parts.length > 0 && parts.every((p) => words.has(p));
}

/**
 * The task's terms weighted for one page: {@link termWeight} divided by the square root of how many
 * of the page's elements and text blocks mention the term. A sender's name on twenty rows of an
 * inbox tells the rows apart less than "Archive" on one button does.
 */
export function pageTermWeights(terms: string[], haystacks: string[]): TermWeights {
  const sets = haystacks.map(wordSet);
  return new Map(
    terms.map((t) => [t, termWeight(t) / Math.sqrt(Math.max(1, sets.filter((w) => hasTerm(w, t)).length))]),
  );
}

/** How much of the task a text mentions: the summed weight of the terms it contains. */
function lexicalScore(terms: string[], haystack: string, weights?: TermWeights): number {
  const words = wordSet(haystack);
  let s = 0;
  for (const t of terms) if (hasTerm(words, t)) s += weights?.get(t) ?? termWeight(t);
  return s;
}

/** The text an element is matched on: its name, text and the attributes that label it. */
function elementHaystack(e: Element): string {
  const a = e.attributes;
  return [e.name, e.text, a.placeholder, a['aria-label'], a.title, a.alt, a.name, a.value, a.href]
    .filter(Boolean)
    .join(' ');
}

const TEXT_ENTRY_TYPES = new Set(['', 'text', 'search', 'email', 'number', 'tel', 'date', 'url', 'password']);

/** Whether the element takes typed text or a choice (input fields, text areas, selects). */
function isFormControl(e: Element): boolean {
  if (e.tag === 'textarea' || e.tag === 'select') return true;
  if (e.tag !== 'input') return e.role === 'combobox' || e.role === 'textbox' || e.role === 'searchbox';
  const type = (e.attributes.type ?? '').toLowerCase();
  return TEXT_ENTRY_TYPES.has(type) || type === 'checkbox' || type === 'radio';
}

function isButton(e: Element): boolean {
  const type = (e.attributes.type ?? '').toLowerCase();
  return (
    e.tag === 'button' || e.role === 'button' || type === 'submit' || type === 'checkbox' || type === 'radio'
  );
}

/**
 * An element's relevance to the task, the ranking rule of the compact observation:
 * - the task's terms it mentions (numbers weigh 2, words of 5+ letters 1.5, others 1), times 2;
 * - +4 for a control that dismisses an overlay (a cookie banner or promo modal blocks the page);
 * - +1.5 for a form control (text entry, select, checkbox, radio), +1 for a button;
 * - +0.5 when it lies in the viewport;
 * - +2.5 for one of the page's first {@link HEADER_ELEMENTS} elements: a site's navigation, search
 *   box and account links come first in document order, and a task's first steps go through them
 *   ("Settings" for a signature, "Search mail" before archiving a sender's messages).
 * Ties keep document order.
 */
export function elementScore(
  terms: string[],
  e: Element,
  position = Number.POSITIVE_INFINITY,
  weights?: TermWeights,
): number {
  const label = elementHaystack(e);
  let s = 2 * lexicalScore(terms, label, weights);
  if (DISMISS_WORD_RE.test(`${e.name} ${e.text}`.trim()) && `${e.name} ${e.text}`.length <= 40) s += 4;
  if (isFormControl(e)) s += 1.5;
  else if (isButton(e)) s += 1;
  if (e.inViewport) s += 0.5;
  if (position < HEADER_ELEMENTS) s += 2.5;
  return s;
}

/** A text block's relevance: the task's terms it mentions, plus 0.5 when it holds a number. */
export function textScore(terms: string[], b: TextBlock, weights?: TermWeights): number {
  return 2 * lexicalScore(terms, b.text, weights) + (/\d/.test(b.text) ? 0.5 : 0) + (b.inViewport ? 0.25 : 0);
}

function clip(text: string, n: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

/**
 * One element's line: `[12] button "Search"`, `[3] searchbox "Search mail"`, `[24] checkbox
 * unchecked "Select: ..."`. The kind is the element's role (a link, a checkbox), else its tag; an
 * input's type is shown only where the role does not already say it; a value only on controls
 * that hold typed text or a choice (a checkbox's value is a form key, not something the user sees).
 */
export function elementLine(e: Element): string {
  const a = e.attributes;
  const label = clip(
    e.name || e.text || a.placeholder || a['aria-label'] || a.title || a.alt || '',
    LABEL_CHARS,
  );
  const kind = e.role && !['generic', 'none', 'presentation'].includes(e.role) ? e.role : e.tag;
  const type = (a.type ?? '').toLowerCase();
  const extras: string[] = [];
  if (e.tag === 'input' && type && type !== 'text' && !kind.includes(type)) extras.push(type);
  if (a.placeholder && a.placeholder !== label) extras.push(`placeholder="${clip(a.placeholder, 30)}"`);
  if (a.value && isFormControl(e) && type !== 'checkbox' && type !== 'radio')
    extras.push(`value="${clip(a.value, 30)}"`);
  if (a.checked !== undefined) extras.push(a.checked === 'false' ? 'unchecked' : 'checked');
  if (a.selected !== undefined && e.tag !== 'option') extras.push(`selected="${clip(a.selected, 30)}"`);
  return `[${e.index}] ${kind}${extras.length ? ` ${extras.join(' ')}` : ''} "${label}"`;
}

/** The label of the element an action acted on, read from the observation it was chosen on. */
function actedLabel(h: HistoryEntry): string {
  const index = targetIndex(h.action as Action);
  if (index === null) return '';
  const e = h.observation.elements.find((x) => x.index === index);
  return e ? ` "${clip(e.name || e.text || e.attributes.placeholder || '', 30)}"` : '';
}

function historyLines(history: HistoryEntry[]): string[] {
  return history.slice(-HISTORY_STEPS).map((h) => {
    const res = h.result.error ? 'failed' : 'ok';
    return `${h.stepIndex + 1}. ${formatAction(h.action as Action)}${actedLabel(h)} -> ${res}`;
  });
}

/** What {@link renderLmObservation} produced: the text, and what it kept of the page. */
export interface LmObservation {
  system: string;
  user: string;
  /** Indices of the elements shown, ascending. */
  keptElements: number[];
  /** Positions (in `observation.texts`) of the text blocks shown, ascending. */
  keptTexts: number[];
  /** The user text's estimated tokens (at most the budget, unless the fixed header alone exceeds it). */
  tokens: number;
}

export interface LmObservationInput {
  task: AgentTask;
  observation: Observation;
  history: HistoryEntry[];
}

/**
 * Renders one step for a language-model student within `promptTokens` (estimated) tokens of user
 * text. The header (task, URL, title, last action error, history) is always shown; elements and
 * text blocks then compete for the rest by relevance, the most relevant first, and are shown in
 * document order. Deterministic: the same input gives the same text. Notes are never shown.
 */
export function renderLmObservation(
  input: LmObservationInput,
  promptTokens: number = DEFAULT_PROMPT_TOKENS,
): LmObservation {
  const { task, observation: obs } = input;
  const terms = taskTerms(task.objective);
  const weights = pageTermWeights(terms, [
    ...obs.elements.map(elementHaystack),
    ...obs.texts.map((b) => b.text),
  ]);
  const hist = historyLines(input.history);
  const header = [
    `Task: ${task.objective.trim()}`,
    `URL: ${obs.url}`,
    `Title: ${clip(obs.title, 80)}`,
    ...(obs.lastActionError ? [`Last action failed: ${clip(obs.lastActionError, 100)}`] : []),
    hist.length ? `Done so far:\n${hist.join('\n')}` : 'Done so far: nothing',
  ].join('\n');
  const sectionCost = estimateTokens('\nElements:\n\nText:\n');
  let left = promptTokens - estimateTokens(header) - sectionCost;

  type Candidate = { kind: 'e' | 't'; pos: number; score: number; line: string };
  const candidates: Candidate[] = [
    ...obs.elements.map((e, pos) => ({
      kind: 'e' as const,
      pos,
      score: elementScore(terms, e, pos, weights),
      line: elementLine(e),
    })),
    ...obs.texts.map((b, pos) => ({
      kind: 't' as const,
      pos,
      score: textScore(terms, b, weights),
      line: `- ${clip(b.text, TEXT_CHARS)}`,
    })),
  ];
  // Elements before text blocks at equal score (an action needs an element); then document order.
  candidates.sort(
    (x, y) => y.score - x.score || (x.kind === y.kind ? x.pos - y.pos : x.kind === 'e' ? -1 : 1),
  );
  const keptE = new Set<number>();
  const keptT = new Set<number>();
  for (const c of candidates) {
    const cost = estimateTokens(`${c.line}\n`);
    // The kept set is a prefix of the ranking, so a larger budget always shows a superset.
    if (cost > left) break;
    left -= cost;
    (c.kind === 'e' ? keptE : keptT).add(c.pos);
  }
  const elements = obs.elements.filter((_, pos) => keptE.has(pos));
  const texts = [...keptT].sort((a, b) => a - b);
  const user = [
    header,
    `Elements:\n${elements.map(elementLine).join('\n') || '(none)'}`,
    ...(texts.length
      ? [`Text:\n${texts.map((p) => `- ${clip(obs.texts[p].text, TEXT_CHARS)}`).join('\n')}`]
      : []),
  ].join('\n');
  return {
    system: LM_SYSTEM_PROMPT,
    user,
    keptElements: elements.map((e) => e.index).sort((a, b) => a - b),
    keptTexts: texts,
    tokens: estimateTokens(user),
  };
}

/**
 * The prompt as one plain text, the form a pretrained base model (no chat template) is trained on
 * and prompted with: the system text, the rendered step, then `Action: ` for the reply to follow.
 */
export function lmPromptText(o: { system: string; user: string }): string {
  return `${o.system}\n\n${o.user}\nAction: `;
}

/** An action's parameters that equal their defaults, left out of the reply to keep it short. */
const DEFAULT_PARAMS: Record<string, Record<string, unknown>> = {
  navigate: { new_tab: false },
  input: { clear: true },
  scroll: { pages: 1, index: null },
  done: { success: true },
};

/**
 * An action in canonical form: its Browser Use object as compact JSON, parameters at their
 * defaults left out (`{"input":{"index":3,"text":"Paris"}}`). Two actions are the same exactly when
 * their texts are.
 */
export function lmActionText(a: Action): string {
  const { type, ...params } = a as Action & Record<string, unknown>;
  const defaults = DEFAULT_PARAMS[type] ?? {};
  const kept = Object.fromEntries(
    Object.entries(params).filter(([k, v]) => v !== undefined && !(k in defaults && defaults[k] === v)),
  );
  return JSON.stringify({ [type]: kept });
}

/**
 * The reply the student is trained to write for an action: the element it acts on, then the action
 * ({@link lmActionText}): `[3] {"input":{"index":3,"text":"Paris"}}`; an action on no element is
 * its JSON alone (`{"scroll":{"down":true}}`).
 *
 * The element comes first because a model writing the action type first must choose it before it
 * has chosen the element, from the prior over types alone: students trained on the JSON alone
 * answered `click` on every validation step, often on the right textbox (results/lm-sft-tuning.md).
 * Written after `[N]`, the type can read the element's line (`[3] searchbox "Search"`).
 */
export function lmReplyText(a: Action): string {
  const index = targetIndex(a);
  return `${index === null ? '' : `[${index}] `}${lmActionText(a)}`;
}

/**
 * Reads the student's reply: the first balanced JSON object in `text`, as a Browser Use action (the
 * `[N]` written before it, {@link lmReplyText}, is not read: the JSON's index is the action's).
 * Throws an InputError (from the action registry) naming what is wrong when there is none.
 */
export function parseLmAction(text: string): Action {
  const start = text.indexOf('{');
  if (start < 0) return fromBrowserUse(null);
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      let obj: unknown;
      try {
        obj = JSON.parse(text.slice(start, i + 1));
      } catch {
        obj = null;
      }
      return fromBrowserUse(obj);
    }
  }
  return fromBrowserUse(null);
}
