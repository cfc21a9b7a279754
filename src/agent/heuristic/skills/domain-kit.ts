import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import type { HistoryEntry } from '../../agent.ts';
import { phraseMatch, type SortIntent, type TaskGoal } from '../goal.ts';
import { type Choice, elementOf, NEXT_RE, preferredSort, type Rules, ruleHits } from '../kit.ts';
import {
  isChecked,
  isClickable,
  isEditable,
  isSearchBox,
  isSelect,
  isToggle,
  labelOf,
  optionsOf,
  selectedOf,
} from '../page.ts';
import type { SkillContext } from './index.ts';

/**
 * Shared moves of the shopping, travel and recipe skills: reading a labelled value off a page,
 * recognising the page of a named thing, the result list of a search, setting a filter form and
 * applying it, searching by name. Only the observation, the history and the notes are read.
 */

// Leading words that start a command, not a name ("Save Dijon Chicken Stew" names "Dijon Chicken Stew").
const LEAD =
  /^(?:save|add|put|buy|order|purchase|get|book|reserve|find|show|open|scale|make|cook|remove|rate|review|compare|check|look|tell|give|please|also|then|write|what|which|how|on|for|at|in|from|to|the|is|does|do|my|i)\s+/i;

/** The named thing the task is about: the first unquoted Capitalized name, command words removed. */
export function subjectOf(goal: TaskGoal): string | null {
  for (const n of goal.names) {
    if (goal.quoted.includes(n)) continue;
    let s = n;
    while (LEAD.test(s)) s = s.replace(LEAD, '');
    s = s.replace(/(?:\s+(?:and|of|&|de|la))+$/i, '');
    if (s.split(/\s+/).length >= 2 || /\d/.test(s)) return s.trim();
  }
  return null;
}

/** The page's main heading (first h1), else its title. */
export function headingOf(obs: Observation): string {
  return obs.texts.find((t) => t.tag === 'h1')?.text.trim() ?? obs.title;
}

/**
 * Whether a heading names the thing: all its words without a note (so a lookalike such as
 * "Easy Red Curry Stir-Fry" passes for "Red Curry Stir-Fry"), the exact name once a note has
 * rules, and never a name the note says to avoid.
 */
export function namesThing(name: string, heading: string, rules: Rules): boolean {
  if (!heading) return false;
  if (ruleHits(rules.avoid, 'click', heading)) return false;
  const m = phraseMatch(name, heading);
  if (exactMode(rules)) return m.exact;
  return m.recall >= 0.99;
}

/** Notes with rules switch lexical matching to exact names (as kit.bestByText does). */
export function exactMode(rules: Rules): boolean {
  return rules.prefer.some((r) => r.kind === 'click' && r.value === 'exact') || rules.avoid.length > 0;
}

/**
 * The value printed under or after a label: "Total" then "30 min", "Price: $12", a table's th
 * then td. `label` should be anchored (/^total( time)?$/i).
 */
export function labeledValue(obs: Observation, label: RegExp): string | null {
  const t = obs.texts;
  for (let i = 0; i < t.length; i++) {
    const s = t[i].text.trim();
    const colon = s.indexOf(':');
    if (colon > 0 && colon < 40 && label.test(s.slice(0, colon).trim()) && s.slice(colon + 1).trim())
      return s.slice(colon + 1).trim();
    if (s.length <= 40 && label.test(s) && i + 1 < t.length && t[i + 1].text.trim().length <= 80)
      return t[i + 1].text.trim();
  }
  return null;
}

/** The first visible text block matching `re`, if any. */
export function textMatching(obs: Observation, re: RegExp): string | null {
  return obs.texts.find((t) => re.test(t.text))?.text ?? null;
}

const COUNT_RE =
  /^(?:showing\b.*\bof\s+\d|\d[\d,]*\s+(?:results?|recipes?|items?|products?|properties|property|hotels?|flights?|listings?|homes?)\b)/i;
const CHROME_RE =
  /^(help|privacy|terms|about|contact|home|sign in|log in|cart|account|change search|clear all|reset|view (?:cart|list|collection))\b/i;

/**
 * Links of a result list in page order: those below the "12 results" line (else every link that
 * reads like an item name), leaving out paging and site chrome.
 */
export function resultLinks(obs: Observation, usable: Element[]): Element[] {
  const count = obs.texts.find((t) => COUNT_RE.test(t.text.trim()));
  const top = count?.bbox?.y ?? -1;
  // Results sit below the count line and in its column (a filter sidebar may run alongside).
  const left = (count?.bbox?.x ?? 0) - 24;
  return usable.filter((e) => {
    if (!(e.tag === 'a' || e.role === 'link') || isEditable(e)) return false;
    const l = labelOf(e).trim();
    if (l.length < 3 || /^\d+$/.test(l) || NEXT_RE.test(l) || /^(prev|previous|‹|«)/i.test(l)) return false;
    if (CHROME_RE.test(l)) return false;
    if (top >= 0) return e.bbox.y > top && e.bbox.x >= left;
    return l.split(/\s+/).length >= 2;
  });
}

/** Types the query into the page's search box, then submits it (a Search button, else Enter). */
export function searchStep(ctx: SkillContext, query: string): Choice | null {
  const box = ctx.usable.find(isSearchBox);
  if (!box) return null;
  const typed = ctx.history.some(
    (h) => h.action.type === 'input' && normalizeText(h.action.text) === normalizeText(query),
  );
  const last = ctx.history.at(-1);
  if (
    last?.action.type === 'input' &&
    !last.result.error &&
    normalizeText(last.action.text) === normalizeText(query)
  ) {
    const go = ctx.usable.find((e) => isClickable(e) && /^(search|go|find)$/i.test(labelOf(e).trim()));
    return go
      ? { action: { type: 'click', index: go.index }, goal: 'Run the search' }
      : { action: { type: 'send_keys', keys: 'Enter' }, goal: 'Run the search' };
  }
  if (typed) return null;
  return {
    action: { type: 'input', index: box.index, text: query, clear: true },
    goal: `Search for "${query}"`,
  };
}

/** A wanted state of one form control. */
export type ControlWant =
  | { el: Element; kind: 'select'; option: string }
  | { el: Element; kind: 'tick' }
  | { el: Element; kind: 'type'; value: string };

/** The first control not yet in its wanted state, as an action; null when all are set. */
export function setControls(ctx: SkillContext, wants: ControlWant[]): Choice | null {
  for (const w of wants) {
    const name = labelOf(w.el);
    if (w.kind === 'select') {
      if (normalizeText(selectedOf(w.el)) === normalizeText(w.option)) continue;
      if (ctx.acted(w.el, 'select_dropdown') && lastSelected(ctx.history, w.el) === w.option) continue;
      return {
        action: { type: 'select_dropdown', index: w.el.index, text: w.option },
        goal: `Set "${name}" to "${w.option}"`,
      };
    }
    if (w.kind === 'tick') {
      if (isChecked(w.el)) continue;
      return { action: { type: 'click', index: w.el.index }, goal: `Tick "${name}"` };
    }
    const current = w.el.attributes.value ?? '';
    if (normalizeText(current) === normalizeText(w.value)) continue;
    return {
      action: { type: 'input', index: w.el.index, text: w.value, clear: true },
      goal: `Type "${w.value}" into "${name}"`,
    };
  }
  return null;
}

function lastSelected(history: HistoryEntry[], el: Element): string | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i];
    if (h.action.type === 'select_dropdown' && elementOf(h, h.action.index)?.nodeKey === el.nodeKey)
      return h.action.text;
  }
  return null;
}

const APPLY_RE = /^(apply|apply filters|update|update results|filter|show results|go)$/i;

/** The button that submits a filter form. */
export function applyButton(usable: Element[]): Element | undefined {
  return usable.find((e) => isClickable(e) && APPLY_RE.test(labelOf(e).trim()));
}

/**
 * Whether filter controls were changed on this page since it loaded and not yet applied: walking
 * back through the steps taken at this URL, a change comes before any click on an apply button.
 */
export function formDirty(history: HistoryEntry[], url: string): boolean {
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i];
    if (h.url !== url) return false;
    if (h.result.error) continue;
    const a = h.action;
    if (a.type === 'select_dropdown' || a.type === 'input') return true;
    if (a.type === 'click') {
      const e = elementOf(h, a.index);
      if (!e) continue;
      if (APPLY_RE.test(labelOf(e).trim())) return false;
      if (isToggle(e) || isSelect(e)) return true;
    }
  }
  return false;
}

/** The select whose label matches `re` (e.g. /^sort/i). */
export function selectLabelled(usable: Element[], re: RegExp): Element | undefined {
  return usable.find((e) => isSelect(e) && re.test(`${labelOf(e)} ${e.attributes.name ?? ''}`.trim()));
}

/** The option of a select whose text matches `re`. */
export function optionMatching(el: Element, re: RegExp): string | undefined {
  return optionsOf(el).find((o) => re.test(o));
}

/** The checkbox or radio whose label is `label` (normalized equality, then containment). */
export function toggleLabelled(usable: Element[], label: string): Element | undefined {
  const n = normalizeText(label);
  const toggles = usable.filter(isToggle);
  return (
    toggles.find((e) => normalizeText(labelOf(e)) === n) ??
    toggles.find((e) => normalizeText(e.attributes.value ?? '') === n)
  );
}

/** A clickable element whose label matches `re`. */
export function buttonMatching(usable: Element[], re: RegExp): Element | undefined {
  return usable.find((e) => isClickable(e) && re.test(labelOf(e).trim()));
}

/** Whether the previous step clicked an element whose label matches `re`, without an error. */
export function lastClicked(history: HistoryEntry[], re: RegExp): boolean {
  const last = history.at(-1);
  if (last?.action.type !== 'click' || last.result.error) return false;
  const e = elementOf(last, last.action.index);
  return !!e && re.test(labelOf(e).trim());
}

/** Finishes the episode with an answer or a confirmation. */
export function finish(text: string, goal = 'Report the result'): Choice {
  return { action: { type: 'done', text, success: true }, goal };
}

/** Clicks an element. */
export function click(e: Element, goal: string): Choice {
  return { action: { type: 'click', index: e.index }, goal };
}

/** Whether a page looks like it is still loading results ("Searching…", a busy spinner). */
export function stillLoading(obs: Observation): boolean {
  return obs.texts.some((t) => /^(searching|loading)\b.*(…|\.\.\.)?$/i.test(t.text.trim()));
}

/** Whether the previous steps already waited this many times in a row. */
export function waitedTimes(history: HistoryEntry[]): number {
  let n = 0;
  for (let i = history.length - 1; i >= 0 && history[i].action.type === 'wait'; i--) n++;
  return n;
}

/** The first number in a text ("$1,299.00" -> 1299, "4.5 stars" -> 4.5). */
export function firstNumber(text: string): number | null {
  const m = text.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/\d+(?:\.\d+)?/);
  return m ? Number(m[0]) : null;
}

// A closer reading of ordering words, used once a note says an earlier answer was wrong.
const CLOSER: Array<[RegExp, SortIntent]> = [
  [/\b(rating|rated)\b/i, 'rating'],
  [/\b(cheap\w*|lowest|least expensive|affordable|budget|inexpensive)\b/i, 'price-asc'],
  [/\b(most expensive|priciest|highest price)\b/i, 'price-desc'],
  [/\b(best|top)\b/i, 'rating'],
  [/\b(fastest|shortest|quickest)\b/i, 'shortest'],
  [/\b(newest|latest|most recent)\b/i, 'newest'],
];

/**
 * The order the task asks for: a superlative goal.ts knows, else a note's sort rule, else (when a
 * note says an earlier answer was wrong) the ordering word a second, closer reading finds.
 */
export function sortFor(goal: TaskGoal, rules: Rules): SortIntent | null {
  if (goal.sort) return goal.sort;
  const noted = preferredSort(rules);
  if (noted) return noted;
  if (!rules.avoid.some((r) => r.kind === 'done')) return null;
  for (const [re, s] of CLOSER) if (re.test(goal.text)) return s;
  return null;
}

/**
 * Whether the teacher reads the task closely: once a note has rejected a choice or an answer
 * (any avoid rule) or asked for exact names. Without one it matches labels verbatim.
 */
export function carefulReading(rules: Rules): boolean {
  return exactMode(rules);
}

const QUALIFIERS = /\b(only|up|and up|or less|or more|or higher|or fewer|and over|and under)\b/g;
const singular = (s: string) =>
  s
    .split(' ')
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w))
    .join(' ');

/**
 * Whether the task asks for the filter or option labelled `label`. Without a note the label must
 * appear verbatim in the task ("Vegan", "Free WiFi"), so "Nonstop only", "In stock only",
 * "4 stars & up" or "60 minutes or less" are missed when the task says "nonstop", "in-stock",
 * "at least 4 stars" or "at most 60 minutes"; a careful reading drops such qualifiers and plurals.
 */
export function asksFor(goal: TaskGoal, label: string, rules: Rules): boolean {
  const text = ` ${normalizeText(goal.text)} `;
  const l = normalizeText(label);
  if (!l) return false;
  if (text.includes(` ${l} `)) return true;
  if (!carefulReading(rules)) return false;
  const core = singular(l.replace(QUALIFIERS, ' ').replace(/\s+/g, ' ').trim());
  return !!core && ` ${singular(text.trim())} `.includes(` ${core} `);
}
