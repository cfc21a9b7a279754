import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import type { HistoryEntry } from '../../agent.ts';
import { type Choice, keyAt, type Rules, toLongDate } from '../kit.ts';
import {
  isChecked,
  isCovered,
  isEditable,
  isSelect,
  isToggle,
  labelOf,
  optionsOf,
  pathOf,
  selectedOf,
} from '../page.ts';
import { isDateField, isoDay, pickDay } from './forms-date.ts';
import { addressFor, chooseOption, clauseFor, countFor, stateOption, textFor } from './forms-values.ts';

/**
 * Filling one page of a form from the task text, field by field in page order, the way a person
 * works down a paper form: text boxes, drop-downs, radio questions (read from their legend),
 * check boxes and calendar date fields. Returns the next action, or null when every field the
 * task has an answer for holds it (the caller then continues or submits).
 */

/** The question text of a radio group: the nearest text block above its first option. */
export function questionOf(obs: Observation, first: Element, options: string[] = []): string {
  let best = '';
  let bestY = Number.NEGATIVE_INFINITY;
  const own = new Set(options.map((o) => normalizeText(o)));
  for (const t of obs.texts) {
    const y = t.bbox?.y;
    // Entirely above the first option, and not one of the options' own labels.
    if (y === undefined || y + (t.bbox?.height ?? 0) > first.bbox.y + 4 || y < bestY) continue;
    if (own.has(normalizeText(t.text)) || /^(yes|no)$/i.test(t.text.trim())) continue;
    best = t.text;
    bestY = y;
  }
  return best;
}

interface Field {
  el: Element;
  label: string;
  kind: 'text' | 'select' | 'radio' | 'checkbox' | 'date';
  /** Radio options of the group. */
  group?: Element[];
}

/**
 * Whether a reflection note asks for care (it carries any structured rule). A careful teacher
 * reads negations in yes/no questions, matches names exactly and uses exact filter values.
 */
export function careful(rules: Rules): boolean {
  return rules.avoid.length > 0 || rules.prefer.length > 0;
}

/**
 * Whether a field's shown value is `want`. Observed values are cut at 80 characters with an
 * ellipsis, so a cut value counts when it is the start of `want` (its last, cut word aside).
 */
export function holds(current: string, want: string): boolean {
  if (!current.endsWith('\u2026')) return normalizeText(current) === normalizeText(want);
  const head = normalizeText(current.slice(0, -1)).split(' ').slice(0, -1).join(' ');
  return normalizeText(want).startsWith(head);
}

const DECLARATION = /\b(i declare|i certify|i confirm|i agree|i accept|true and complete|terms)\b/i;

/** The form fields on the page, radios grouped by name, in page order. */
export function formFields(obs: Observation): Field[] {
  const out: Field[] = [];
  const seen = new Set<string>();
  for (const e of obs.elements) {
    if (isCovered(e)) continue;
    const type = (e.attributes.type ?? '').toLowerCase();
    if (e.tag === 'input' && type === 'radio') {
      const name = e.attributes.name ?? e.nodeKey;
      if (seen.has(name)) continue;
      seen.add(name);
      const group = obs.elements.filter(
        (x) =>
          x.tag === 'input' && x.attributes.type === 'radio' && (x.attributes.name ?? x.nodeKey) === name,
      );
      out.push({ el: e, label: questionOf(obs, e, group.map(labelOf)), kind: 'radio', group });
    } else if (isToggle(e)) {
      out.push({ el: e, label: labelOf(e), kind: 'checkbox' });
    } else if (isSelect(e)) {
      out.push({ el: e, label: labelOf(e), kind: 'select' });
    } else if (isEditable(e) && !/search/i.test(`${type} ${e.attributes.name ?? ''} ${e.role}`)) {
      out.push({ el: e, label: labelOf(e), kind: isDateField(e) ? 'date' : 'text' });
    }
  }
  return out;
}

function ruleValue(rules: Rules, label: string): string | null {
  const r = rules.prefer.find(
    (x) =>
      (x.kind === 'input' || x.kind === 'select') &&
      x.target &&
      x.value &&
      normalizeText(x.target) === normalizeText(label),
  );
  return r?.value ?? null;
}

/** What to put in a select, from the task. */
export function selectValue(label: string, options: string[], task: string, careful = true): string | null {
  const l = label.toLowerCase();
  if (/\bstate\b/.test(l)) {
    const clause = /plate|vehicle|registration/.test(l)
      ? (clauseFor('plate vehicle registered', task) ?? task)
      : null;
    const addr = clause ? null : addressFor(l, task);
    const named =
      addr?.state ??
      options.find((o) => o.length > 3 && new RegExp(`\\b${o}\\b`).test(clause ?? task)) ??
      null;
    const s = named ? stateOption(named, options) : null;
    if (s) return s;
  }
  const count = countFor(label, task);
  if (count) return options.find((o) => o.trim() === count) ?? null;
  return chooseOption(label, options, task, careful);
}

/** Whether a non-declaration check box should be ticked: the task names what it adds. */
export function wantsCheckbox(label: string, task: string, pageTitle: string): boolean {
  const common = new Set(normalizeText(pageTitle).split(' '));
  const generic = /^(also|request|add|include|want|yes|please|send|me|my|a|an|the|to|for|of|and|with)$/;
  const words = normalizeText(label.replace(/\(.*?\)/g, ''))
    .split(' ')
    .filter((w) => w.length > 2 && !generic.test(w) && !common.has(w));
  if (!words.length) return false;
  const clause = clauseFor(words.join(' '), task);
  if (!clause) return false;
  const t = ` ${normalizeText(clause)} `;
  return (
    words.every((w) => t.includes(` ${w} `) || t.includes(` ${w}s `)) &&
    !/\b(no|not|without|only)\b/i.test(clause.replace(/\bbook only\b/i, ''))
  );
}

function typedBefore(history: HistoryEntry[], e: Element, value: string, here: string): boolean {
  return history.some(
    (h) =>
      pathOf(h.url) === here &&
      (h.action.type === 'input' || h.action.type === 'select_dropdown') &&
      keyAt(h, h.action.index) === e.nodeKey &&
      normalizeText(h.action.text) === normalizeText(value),
  );
}

function clickedBefore(history: HistoryEntry[], e: Element, here: string): boolean {
  return history.some(
    (h) => pathOf(h.url) === here && h.action.type === 'click' && keyAt(h, h.action.index) === e.nodeKey,
  );
}

/** US-style MM/DD/YYYY unless the field says otherwise. */
function dateText(value: string, e: Element): string {
  const long = toLongDate(value);
  const iso = long ? isoDay(long) : null;
  if (!iso) return value;
  if (/yyyy-mm-dd/i.test(e.attributes.placeholder ?? '')) return iso;
  return `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
}

/** The next action that fills a field of this page from the task, or null when all are done. */
export function fillPage(
  obs: Observation,
  history: HistoryEntry[],
  task: string,
  rules: Rules,
): Choice | null {
  const here = pathOf(obs.url);
  const title = obs.texts.find((t) => t.tag === 'h1')?.text ?? obs.title;
  for (const f of formFields(obs)) {
    const e = f.el;
    if (f.kind === 'radio') {
      const group = f.group ?? [e];
      const want =
        ruleValue(rules, f.label) ?? chooseOption(f.label, group.map(labelOf), task, careful(rules));
      const pick = want ? group.find((r) => normalizeText(labelOf(r)) === normalizeText(want)) : undefined;
      if (pick && !isChecked(pick) && !clickedBefore(history, pick, here))
        return {
          action: { type: 'click', index: pick.index },
          goal: `Answer "${f.label}" with "${labelOf(pick)}"`,
        };
      continue;
    }
    if (f.kind === 'checkbox') {
      if (DECLARATION.test(f.label)) continue;
      const want = wantsCheckbox(f.label, task, title);
      if (want !== isChecked(e) && !clickedBefore(history, e, here))
        return {
          action: { type: 'click', index: e.index },
          goal: `${want ? 'Tick' : 'Untick'} "${f.label}"`,
        };
      continue;
    }
    if (f.kind === 'select') {
      const opts = optionsOf(e);
      const want = ruleValue(rules, f.label) ?? selectValue(f.label, opts, task, careful(rules));
      if (
        !want ||
        normalizeText(selectedOf(e)) === normalizeText(want) ||
        typedBefore(history, e, want, here)
      )
        continue;
      return {
        action: { type: 'select_dropdown', index: e.index, text: want },
        goal: `Set "${f.label}" to "${want}"`,
      };
    }
    const type = (e.attributes.type ?? 'text').toLowerCase();
    let want = ruleValue(rules, f.label) ?? textFor(f.label, task, type);
    if (!want) continue;
    if (f.kind === 'date') {
      const iso = isoDay(want);
      if (iso) {
        const c = pickDay(obs, history, e, iso, `"${f.label}"`);
        if (c) return c;
      }
      continue;
    }
    if (/\b(date|birth|dob)\b/i.test(f.label)) want = dateText(want, e);
    const current = e.attributes.value ?? '';
    if (holds(current, want) || typedBefore(history, e, want, here)) continue;
    return {
      action: { type: 'input', index: e.index, text: want, clear: true },
      goal: `Fill "${f.label}" with "${want}"`,
    };
  }
  return null;
}

/** The declaration box on a review page, when it still needs ticking. */
export function declaration(obs: Observation): Element | undefined {
  return obs.elements.find((e) => isToggle(e) && !isChecked(e) && DECLARATION.test(labelOf(e)));
}
