import { normalizeText } from '../../../core/action-equivalence.ts';
import { MONTH_NAMES } from '../../../core/dates.ts';
import type { Element } from '../../../core/observation.ts';
import { type Choice, elementOf, toLongDate } from '../kit.ts';
import { isClickable, isEditable, labelOf } from '../page.ts';
import { click, waitedTimes } from './domain-kit.ts';
import type { SkillContext } from './index.ts';

/**
 * The search forms of a travel site as a person fills them: type a place and pick the suggestion
 * that is the right airport or city (suggestion lists only set the field when clicked), and page a
 * calendar to the wanted month before clicking the day.
 */

/** The editable field whose label matches `re`. */
export function fieldLabelled(usable: Element[], re: RegExp): Element | undefined {
  return usable.find((e) => isEditable(e) && re.test(labelOf(e).trim()));
}

/** Suggestions currently listed under a text field. */
export function suggestions(usable: Element[]): Element[] {
  return usable.filter((e) => e.role === 'option');
}

/**
 * One move towards a place field holding the right suggestion: done (null) when `accept` says
 * the field's value is right, else click a suggestion `pick` recognises, else type the next query
 * of `queries` not yet tried in this field.
 */
export function placeStep(
  ctx: SkillContext,
  field: Element,
  queries: string[],
  accept: (value: string) => boolean,
  pick: (label: string) => boolean,
): Choice | null {
  if (accept(field.attributes.value ?? '')) return null;
  const acts = ctx.history.filter((h) => h.action.type !== 'wait');
  const last = acts.at(-1);
  const typedHere =
    last?.action.type === 'input' && elementOf(last, last.action.index)?.nodeKey === field.nodeKey;
  if (typedHere) {
    const listed = suggestions(ctx.usable);
    const s = listed.find((e) => pick(labelOf(e)));
    if (s) return click(s, `Choose the suggestion "${labelOf(s)}"`);
    // Suggestions arrive a moment after typing.
    if (!listed.length && waitedTimes(ctx.history) < 1)
      return { action: { type: 'wait', seconds: 1 }, goal: 'Wait for the suggestions' };
  }
  const tries = new Map<string, number>();
  for (const h of ctx.history) {
    if (h.action.type === 'input' && elementOf(h, h.action.index)?.nodeKey === field.nodeKey) {
      const k = normalizeText(h.action.text);
      tries.set(k, (tries.get(k) ?? 0) + 1);
    }
  }
  const next =
    queries.find((q) => !tries.has(normalizeText(q))) ??
    queries.find((q) => (tries.get(normalizeText(q)) ?? 0) < 2);
  if (!next) return null;
  return {
    action: { type: 'input', index: field.index, text: next, clear: true },
    goal: `Type "${next}" into "${labelOf(field)}"`,
  };
}

/**
 * Queries that find a hotel's city in a destination box: word pairs, then single words, of the
 * hotel's name after its first word ("Hotel Verde Los Angeles" -> "Verde Los", "Verde",
 * "Los Angeles", ...), since hotel names carry their city.
 */
export function cityQueries(hotel: string): string[] {
  const w = hotel.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  for (let i = 1; i < w.length; i++) {
    if (i + 1 < w.length) out.push(`${w[i]} ${w[i + 1]}`);
    if (w[i].length >= 3) out.push(w[i]);
  }
  return out;
}

/**
 * One move towards a date field holding `iso`: click the calendar day, page the open calendar
 * towards the month, or open the calendar.
 */
export function dateStep(ctx: SkillContext, field: Element, iso: string): Choice | null {
  const value = field.attributes.value ?? '';
  const long = toLongDate(iso);
  if (!long || value === iso || normalizeText(value) === normalizeText(long)) return null;
  const day = ctx.usable.find(
    (e) => e.tag === 'button' && normalizeText(e.attributes['aria-label'] ?? '') === normalizeText(long),
  );
  if (day) return click(day, `Pick ${long} in the calendar`);
  const next = ctx.usable.find(
    (e) => isClickable(e) && /next month/i.test(`${e.attributes['aria-label'] ?? ''} ${labelOf(e)}`),
  );
  const prev = ctx.usable.find(
    (e) => isClickable(e) && /previous month/i.test(`${e.attributes['aria-label'] ?? ''} ${labelOf(e)}`),
  );
  if (next || prev) {
    const shown = ctx.obs.texts
      .map((t) => t.text.trim())
      .find((t) => new RegExp(`^(${MONTH_NAMES.join('|')}) \\d{4}$`).test(t));
    const want = Number(iso.slice(0, 4)) * 12 + Number(iso.slice(5, 7)) - 1;
    // Trips lie ahead, so an unreadable month header means paging forward.
    let at = want - 1;
    if (shown) {
      const [m, y] = shown.split(' ');
      at = Number(y) * 12 + MONTH_NAMES.indexOf(m);
    }
    if (at < want && next) return click(next, 'Move the calendar to the next month');
    if (at > want && prev) return click(prev, 'Move the calendar to the previous month');
  }
  return click(field, `Open the calendar of "${labelOf(field)}"`);
}
