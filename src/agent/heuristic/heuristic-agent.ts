import { normalizeText, textTokens } from '../../core/action-equivalence.ts';
import { type Action, formatAction } from '../../core/action.ts';
import { makeAgentOutput } from '../../core/agent-output.ts';
import type { Element, Observation } from '../../core/observation.ts';
import { type ReflectionRule, parseNoteRules } from '../../core/reflection.ts';
import type { AgentTask } from '../../core/task.ts';
import type { Agent, AgentDecision, AgentInput, HistoryEntry } from '../agent.ts';
import { actionMemory } from '../memory.ts';
import { fieldLabel, mentionedOption, valueForField } from './fields.ts';
import { type SortIntent, type TaskGoal, parseGoal, phraseMatch } from './goal.ts';
import {
  isChecked, isClickable, isCovered, isDisabled, isEditable, isSearchBox, isSelect, isToggle, labelOf,
  optionsOf, pageTexts, pathOf, selectedOf, tokensOf,
} from './page.ts';

/** Structured rules from all notes of this attempt. */
interface Rules {
  avoid: ReflectionRule[];
  prefer: ReflectionRule[];
}

type Choice = { action: Action; goal: string };

const DISMISS_RE = /^(accept all|accept|accept cookies|i agree|got it|ok|close|no thanks|dismiss|×|continue without subscribing)$/i;
const SUCCESS_RE = /\b(order (?:placed|confirmed)|thank you|confirmation (?:number|code)|has been (?:sent|submitted|booked|saved|scheduled|added|archived|updated|requested)|booking confirmed|message sent|application (?:submitted|received)|tour (?:requested|scheduled)|saved to|added to (?:your )?(?:collection|list|shopping list))\b/i;
const NEXT_RE = /^(next|next page|›|»|more results|load more)$/i;
const FLOW_BUTTONS = ['place order', 'confirm booking', 'book now', 'submit application', 'submit', 'send', 'confirm', 'schedule tour', 'request tour', 'save', 'checkout', 'proceed to checkout', 'add to cart', 'book', 'reserve', 'select', 'continue', 'next', 'review', 'apply', 'search'];

const SORT_OPTION: Record<SortIntent, RegExp> = {
  'price-asc': /price.*(low|asc)|low.*high|cheapest/i,
  'price-desc': /price.*(high|desc)|high.*low/i,
  rating: /rat(ing|ed)|review/i,
  newest: /new|recent|latest/i,
  shortest: /short|duration|fast|quick/i,
};

function ruleHits(rules: ReflectionRule[], kind: ReflectionRule['kind'], text: string): boolean {
  return rules.some((r) => (r.kind === kind || r.kind === 'any') && r.target !== undefined && normalizeText(r.target) === normalizeText(text));
}

/**
 * The offline teacher: a real, rule-based policy over the observation. It matches the task's
 * constraints (names, quoted values, superlatives, field values) to elements lexically, fills
 * forms, handles overlays and autocomplete, sorts, pages and answers questions from page text.
 *
 * It is deliberately a plain lexical matcher, so it fails where such agents fail on the real web:
 * it takes the first item whose name contains the task's words (lookalikes), reacts to overlays
 * only once they block a click, knows a handful of superlatives, and gives up when a target is not
 * on the first page. Reflection notes carry structured avoid/prefer rules (core/reflection.ts)
 * that switch these behaviours: exact-name matching, avoiding an element, dismissing overlays
 * first, sorting, paging, or using a given value for a field.
 */
export class HeuristicAgent implements Agent {
  readonly id = 'heuristic';
  private goal: TaskGoal | null = null;

  reset(task: AgentTask): void {
    this.goal = parseGoal(task.objective);
  }

  async act({ task, observation: obs, history }: AgentInput): Promise<AgentDecision> {
    const goal = this.goal && this.goal.text === task.objective ? this.goal : parseGoal(task.objective);
    this.goal = goal;
    const rules: Rules = { avoid: [], prefer: [] };
    for (const n of obs.notes) {
      const r = parseNoteRules(n);
      rules.avoid.push(...r.avoid);
      rules.prefer.push(...r.prefer);
    }
    const choice = decide(goal, obs, history, rules);
    const last = history.at(-1);
    const output = makeAgentOutput(
      {
        evaluation_previous_goal: last ? (last.result.error ? `Failed: ${last.result.error}` : `Done: ${formatAction(last.action)}`) : 'Starting the task.',
        memory: actionMemory([...history, { action: choice.action, result: { error: null } } as HistoryEntry]),
        next_goal: choice.goal,
      },
      [choice.action],
    );
    return { output, actions: [choice.action] };
  }
}

/** Chooses the next action. Each stage returns a choice or passes to the next. */
export function decide(goal: TaskGoal, obs: Observation, history: HistoryEntry[], rules: Rules): Choice {
  const here = pathOf(obs.url);
  const acted = (e: Element, type?: Action['type']) =>
    history.some((h) => pathOf(h.url) === here && 'index' in h.action && typeof h.action.index === 'number' && !h.result.error && (!type || h.action.type === type) && keyAt(h, h.action.index) === e.nodeKey);
  const usable = obs.elements.filter((e) => !isDisabled(e) && !ruleHits(rules.avoid, 'click', labelOf(e)));
  const last = history.at(-1);
  const preferDismiss = rules.prefer.some((r) => r.kind === 'dismiss');
  const blocked = !!last?.result.error && /covered|intercept|obscured|overlay/i.test(last.result.error);

  // 1. Overlays: dismissed proactively only when a note says so; otherwise once they block a click.
  if (preferDismiss || blocked) {
    const closer = usable.find((e) => isClickable(e) && !isCovered(e) && DISMISS_RE.test(labelOf(e).trim()));
    if (closer) return { action: { type: 'click', index: closer.index }, goal: `Dismiss the overlay with "${labelOf(closer)}"` };
  }

  // 2. Autocomplete: after typing, pick the suggestion that matches what was typed.
  if (last?.action.type === 'input' && !last.result.error) {
    const typed = last.action.text;
    const options = usable.filter((e) => e.role === 'option' || (e.tag === 'li' && e.parentIndex !== null));
    const best = bestByText(options, typed, rules);
    if (best && phraseMatch(typed, labelOf(best)).recall >= 0.5) return { action: { type: 'click', index: best.index }, goal: `Choose the suggestion "${labelOf(best)}"` };
  }

  // 3. Dates: pick the day button whose label is a date value of the task.
  const dateValue = goal.fields.find((f) => /\b\d{4}-\d{2}-\d{2}\b|\b(january|february|march|april|may|june|july|august|september|october|november|december) \d{1,2}, \d{4}\b/i.test(f.value));
  if (dateValue) {
    const wanted = toLongDate(dateValue.value);
    const day = usable.find((e) => e.tag === 'button' && wanted && normalizeText(e.attributes['aria-label'] ?? '') === normalizeText(wanted));
    if (day) return { action: { type: 'click', index: day.index }, goal: `Pick ${wanted} in the calendar` };
    const calendarOpen = usable.some((e) => /previous month|next month/i.test(labelOf(e)));
    if (calendarOpen) {
      const next = usable.find((e) => /next month/i.test(labelOf(e)));
      if (next) return { action: { type: 'click', index: next.index }, goal: 'Move the calendar to the next month' };
    }
  }

  // 4. Forms: fill each field the task gives a value for.
  const fill = fillField(goal, obs, usable, history, rules);
  if (fill) return fill;

  // 5. Sorting and filters the task asks for.
  const sortIntent = goal.sort ?? preferredSort(rules);
  if (sortIntent) {
    const sorter = usable.find((e) => isSelect(e) && /sort/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`));
    if (sorter) {
      const want = optionsOf(sorter).find((o) => SORT_OPTION[sortIntent].test(o));
      if (want && normalizeText(selectedOf(sorter)) !== normalizeText(want)) {
        return { action: { type: 'select_dropdown', index: sorter.index, text: want }, goal: `Sort by "${want}"` };
      }
    }
  }
  for (const e of usable) {
    if (!isToggle(e) || isChecked(e)) continue;
    const label = labelOf(e);
    const agree = /\b(i agree|i accept|i confirm|i declare|i certify|terms|declaration)\b/i.test(label);
    const asked = label && phraseMatch(label, goal.text).recall >= 0.99 && tokensOf(label).length >= 1 && !/remember|newsletter|subscribe/i.test(label);
    if (agree || asked || ruleHits(rules.prefer, 'filter', label) || ruleHits(rules.prefer, 'click', label)) {
      return { action: { type: 'click', index: e.index }, goal: `Tick "${label}"` };
    }
  }

  // 6. Finished? A confirmation on the page ends a transaction; an answer ends a question.
  const texts = pageTexts(obs);
  if (!goal.question && history.length > 1 && texts.some((t) => SUCCESS_RE.test(t))) {
    return { action: { type: 'done', text: texts.find((t) => SUCCESS_RE.test(t)) ?? 'Done', success: true }, goal: 'Report that the task is complete' };
  }
  if (goal.question) {
    const answer = findAnswer(goal, obs);
    if (answer) return { action: { type: 'done', text: answer, success: true }, goal: 'Answer the question' };
  }

  // 7. The target item: the link or button that names what the task is about.
  const target = findTarget(goal, usable, rules, acted);
  if (target) return { action: { type: 'click', index: target.index }, goal: `Open "${labelOf(target)}"` };

  // 8. Flow buttons: the next step of a transaction (add to cart, checkout, submit, ...).
  if (!goal.question || history.length === 0) {
    for (const name of FLOW_BUTTONS) {
      const b = usable.find((e) => isClickable(e) && normalizeText(labelOf(e)) === name && !acted(e));
      if (b && (name !== 'search' || history.some((h) => h.action.type === 'input'))) {
        return { action: { type: 'click', index: b.index }, goal: `Click "${labelOf(b)}"` };
      }
    }
  }

  // 9. Search for the target by name when the page has a search box.
  const search = usable.find(isSearchBox);
  const query = goal.names[0];
  if (search && query && !history.some((h) => h.action.type === 'input' && normalizeText(h.action.text) === normalizeText(query))) {
    return { action: { type: 'input', index: search.index, text: query, clear: true }, goal: `Search for "${query}"` };
  }
  if (search && last?.action.type === 'input' && isSearchBox(elementOf(last, last.action.index) ?? search) && !last.result.error) {
    return { action: { type: 'send_keys', keys: 'Enter' }, goal: 'Submit the search' };
  }

  // 10. Not here: scroll, then page on only when a note says so.
  const scrolls = history.filter((h) => pathOf(h.url) === here && h.action.type === 'scroll').length;
  if (obs.scroll.pagesBelow > 0.2 && scrolls < 4) return { action: { type: 'scroll', down: true, pages: 1 }, goal: 'Scroll down to look further' };
  if (rules.prefer.some((r) => r.kind === 'page')) {
    const next = usable.find((e) => isClickable(e) && NEXT_RE.test(labelOf(e).trim()));
    if (next) return { action: { type: 'click', index: next.index }, goal: 'Go to the next page of results' };
  }
  if (goal.question) {
    const guess = findAnswer(goal, obs, true);
    if (guess) return { action: { type: 'done', text: guess, success: true }, goal: 'Answer with the best match on the page' };
  }
  return { action: { type: 'done', text: 'I could not complete the task.', success: false }, goal: 'Give up' };
}

function keyAt(h: HistoryEntry, index: number): string | undefined {
  return elementOf(h, index)?.nodeKey;
}

function elementOf(h: HistoryEntry, index: number): Element | undefined {
  return h.observation.elements.find((e) => e.index === index);
}

function preferredSort(rules: Rules): SortIntent | null {
  const r = rules.prefer.find((x) => x.kind === 'sort');
  if (!r) return null;
  const v = `${r.value ?? ''} ${r.target ?? ''}`;
  for (const [k, re] of Object.entries(SORT_OPTION) as Array<[SortIntent, RegExp]>) if (re.test(v)) return k;
  return null;
}

function bestByText(elements: Element[], phrase: string, rules: Rules): Element | undefined {
  const exact = rules.prefer.some((r) => r.kind === 'click' && r.value === 'exact') || rules.avoid.length > 0;
  let best: Element | undefined;
  let bestScore = 0;
  for (const e of elements) {
    const m = phraseMatch(phrase, labelOf(e));
    if (m.recall < 0.6) continue;
    // Without a note the teacher compares recall only, so "Trail Runner 2 GTX" ties with
    // "Trail Runner 2" and the first one listed wins; a note makes it prefer the exact name.
    const score = m.recall + (exact ? (m.exact ? 1 : 0) - 0.1 * m.extra : 0) + (ruleHits(rules.prefer, 'click', labelOf(e)) ? 2 : 0);
    if (score > bestScore + 1e-9) {
      best = e;
      bestScore = score;
    }
  }
  return best;
}

function findTarget(goal: TaskGoal, usable: Element[], rules: Rules, acted: (e: Element) => boolean): Element | undefined {
  const clickable = usable.filter((e) => isClickable(e) && !isEditable(e) && !acted(e) && !DISMISS_RE.test(labelOf(e).trim()));
  const preferred = clickable.find((e) => ruleHits(rules.prefer, 'click', labelOf(e)));
  if (preferred) return preferred;
  for (const name of goal.names) {
    const best = bestByText(clickable, name, rules);
    if (best) return best;
  }
  return undefined;
}

const SYNONYMS: Array<[RegExp, RegExp]> = [
  [/\bzip\b|postal/i, /\bzip\b|postal|postcode/i],
  [/phone|telephone|mobile/i, /phone|tel|mobile/i],
  [/\bbody\b|message/i, /\bbody\b|message|text/i],
  [/\bto\b|recipient/i, /^to\b|recipient/i],
  [/e-?mail/i, /e-?mail/i],
  [/quantity|qty/i, /quantity|qty/i],
  [/guests?|travell?ers?|passengers?/i, /guests?|travell?ers?|passengers?|adults/i],
  [/from|origin|departure/i, /^from\b|origin|depart/i],
  [/destination|\bto\b/i, /^to\b|destination|arriv/i],
];

function fieldScore(label: string, e: Element): number {
  const el = `${labelOf(e)} ${e.attributes.name ?? ''} ${e.attributes.placeholder ?? ''}`;
  for (const [a, b] of SYNONYMS) if (a.test(label) && b.test(el)) return 1;
  const lt = tokensOf(label);
  const et = new Set(tokensOf(el));
  if (!lt.length) return 0;
  return lt.filter((t) => et.has(t)).length / lt.length;
}

function fillField(goal: TaskGoal, obs: Observation, usable: Element[], history: HistoryEntry[], rules: Rules): Choice | null {
  const quoted = [...goal.fields];
  for (const r of rules.prefer) if ((r.kind === 'input' || r.kind === 'select' || r.kind === 'filter') && r.target && r.value) quoted.unshift({ label: r.target, value: r.value });
  const typedInto = new Map<string, string>();
  for (const h of history) {
    if ((h.action.type === 'input' || h.action.type === 'select_dropdown') && !h.result.error) {
      const k = keyAt(h, h.action.index);
      if (k) typedInto.set(k, h.action.text);
    }
  }
  const failedOn = new Set(history.filter((h) => h.result.error && 'index' in h.action && typeof h.action.index === 'number').map((h) => keyAt(h, (h.action as { index: number }).index)));
  for (const e of usable) {
    if (!(isEditable(e) || isSelect(e)) || isSearchBox(e) || isCovered(e) || failedOn.has(e.nodeKey)) continue;
    if (isSelect(e) && /sort/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`)) continue;
    const label = fieldLabel(e);
    let value: string | null = null;
    let bestScore = 0.6;
    for (const f of quoted) {
      const sc = fieldScore(f.label, e);
      if (sc > bestScore) {
        value = f.value;
        bestScore = sc;
      }
    }
    const exactNeeded = rules.prefer.some((r) => (r.kind === 'select' || r.kind === 'filter') && r.value === value);
    if (isSelect(e)) {
      const opts = optionsOf(e);
      const pick = value
        ? exactNeeded
          ? opts.find((o) => o.trim() === value!.trim())
          : (opts.find((o) => phraseMatch(value!, o).recall >= 0.99) ?? opts.find((o) => phraseMatch(value!, o).recall >= 0.5))
        : (mentionedOption(opts, goal.text) ?? (valueForField(label, '', goal.text) ? opts.find((o) => normalizeText(o) === normalizeText(valueForField(label, '', goal.text)!)) : undefined));
      if (!pick) continue;
      const sel = selectedOf(e);
      if (normalizeText(sel) === normalizeText(pick) && (!exactNeeded || sel.trim() === pick.trim())) continue;
      if (typedInto.get(e.nodeKey) === pick) continue;
      return { action: { type: 'select_dropdown', index: e.index, text: pick }, goal: `Set "${labelOf(e)}" to "${pick}"` };
    }
    const type = (e.attributes.type ?? 'text').toLowerCase();
    value ??= valueForField(label, type, goal.text);
    if (!value) continue;
    value = formatForField(value, e, type);
    const current = e.attributes.value ?? '';
    if (normalizeText(current) === normalizeText(value) || typedInto.get(e.nodeKey) === value) continue;
    if (e.attributes.readonly === 'true' || e.attributes.readonly === '') {
      if (history.some((h) => h.action.type === 'click' && keyAt(h, (h.action as { index: number }).index) === e.nodeKey && pathOf(h.url) === pathOf(obs.url))) continue;
      return { action: { type: 'click', index: e.index }, goal: `Open the picker of "${labelOf(e)}"` };
    }
    return { action: { type: 'input', index: e.index, text: value, clear: true }, goal: `Fill "${labelOf(e)}" with "${value}"` };
  }
  // Radio buttons and option checkboxes whose label the task mentions.
  for (const e of usable) {
    if (!isToggle(e) || isChecked(e) || isCovered(e)) continue;
    const label = labelOf(e);
    const n = normalizeText(label);
    if (n.length < 4 || /^(yes|no|none|other|remember me)$/.test(n) || /newsletter|subscribe|remember/i.test(label)) continue;
    if (mentionedOption([label], goal.text) && !history.some((h) => h.action.type === 'click' && keyAt(h, (h.action as { index: number }).index) === e.nodeKey)) {
      return { action: { type: 'click', index: e.index }, goal: `Choose "${label}"` };
    }
  }
  return null;
}

/** Converts a value to the format a field expects (ISO for date inputs, MM/DD/YYYY when the placeholder says so). */
function formatForField(value: string, e: Element, type: string): string {
  const long = toLongDate(value);
  const iso = long ? isoOf(long) : null;
  if (!iso) return value;
  if (type === 'date') return iso;
  const ph = `${e.attributes.placeholder ?? ''}`.toLowerCase();
  if (/mm\/dd\/yyyy/.test(ph)) return `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
  if (/yyyy-mm-dd/.test(ph)) return iso;
  return value;
}

function isoOf(long: string): string | null {
  const m = long.match(/(\w+) (\d{1,2}), (\d{4})/);
  if (!m) return null;
  const mi = MONTHS.findIndex((x) => x.toLowerCase() === m[1].toLowerCase());
  return mi < 0 ? null : `${m[3]}-${String(mi + 1).padStart(2, '0')}-${m[2].padStart(2, '0')}`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function toLongDate(v: string): string | null {
  const us = v.match(/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/);
  if (us) return `${MONTHS[Number(us[1]) - 1]} ${Number(us[2])}, ${us[3]}`;
  const iso = v.match(/(\d{4})-(\d{2})-(\d{2})/);
  if (iso) return `${MONTHS[Number(iso[2]) - 1]} ${Number(iso[3])}, ${iso[1]}`;
  const long = v.match(/(january|february|march|april|may|june|july|august|september|october|november|december) (\d{1,2}), (\d{4})/i);
  return long ? `${long[1][0].toUpperCase()}${long[1].slice(1).toLowerCase()} ${Number(long[2])}, ${long[3]}` : null;
}

/**
 * Answers a question from the page: on a page about the task's subject, the text block that
 * names what is asked for ("Price: $129.99", "Total time: 45 min"). With `loose`, any block that
 * shares words with the question and holds a number or a value after a colon.
 */
function findAnswer(goal: TaskGoal, obs: Observation, loose = false): string | null {
  const heading = `${obs.title} ${obs.texts.filter((t) => /^h[1-3]$/.test(t.tag)).map((t) => t.text).join(' ')}`;
  const onSubject = goal.names.length === 0 || goal.names.some((n) => phraseMatch(n, heading).recall >= 0.8);
  if (!onSubject && !loose) return null;
  const ask = goal.askFor ? textTokens(goal.askFor).filter((t) => t.length > 2) : [];
  let best: string | null = null;
  let bestScore = 0;
  for (const t of obs.texts) {
    const toks = new Set(textTokens(t.text));
    const askHit = ask.length ? ask.filter((a) => toks.has(a) || toks.has(a.replace(/s$/, ''))).length / ask.length : 0;
    const hasValue = /\d|:\s*\S/.test(t.text);
    const score = askHit * 2 + (hasValue ? 0.5 : 0) - t.text.length / 400;
    if (score > bestScore && (askHit > 0 || (loose && hasValue))) {
      best = t.text;
      bestScore = score;
    }
  }
  if (!best) return null;
  const colon = best.indexOf(':');
  return colon > 0 && colon < best.length - 1 ? best.slice(colon + 1).trim() : best.trim();
}
