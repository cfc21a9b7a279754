import { MONTH_NAMES } from '../../../core/dates.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import type { HistoryEntry } from '../../agent.ts';
import { type Choice, isoOf, keyAt, toLongDate } from '../kit.ts';
import { isClickable, labelOf, pathOf } from '../page.ts';

/**
 * Date pickers as a person uses them: click the field, move the calendar month by month to the
 * wanted month, click the day. Works on any calendar whose day buttons are named by their full
 * date ("March 5, 2027") and whose arrows are named "Next month" / "Previous month".
 */

/** Whether the element is a date field (a date input or a read-only field that opens a calendar). */
export function isDateField(e: Element): boolean {
  const t = (e.attributes.type ?? '').toLowerCase();
  if (t === 'date') return true;
  const hint = `${e.attributes.placeholder ?? ''} ${e.attributes['aria-label'] ?? ''}`;
  return (
    e.tag === 'input' && (/select date|choose date|pick a date/i.test(hint) || 'readonly' in e.attributes)
  );
}

const DAY_LABEL =
  /^(January|February|March|April|May|June|July|August|September|October|November|December) (\d{1,2}), (\d{4})$/;

function monthIndex(long: string): number | null {
  const m = DAY_LABEL.exec(long.trim());
  if (!m) return null;
  return Number(m[3]) * 12 + MONTH_NAMES.indexOf(m[1]);
}

/** The month the open calendar shows (year*12+month), read from its day buttons. */
function shownMonth(obs: Observation): number | null {
  for (const e of obs.elements) {
    const idx = monthIndex(e.attributes['aria-label'] ?? '');
    if (idx !== null) return idx;
  }
  return null;
}

/** The day field clicked most recently on this page (whose calendar is the open one). */
function lastOpened(obs: Observation, history: HistoryEntry[]): string | undefined {
  const here = pathOf(obs.url);
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i];
    if (pathOf(h.url) !== here) break;
    if (h.action.type !== 'click') continue;
    const e = h.observation.elements.find((x) => x.index === (h.action as { index: number }).index);
    if (e && isDateField(e)) return keyAt(h, e.index);
    if (e && DAY_LABEL.test(e.attributes['aria-label'] ?? '')) return undefined;
  }
  return undefined;
}

/** ISO form of a date in any of the usual spellings, or null. */
export function isoDay(v: string): string | null {
  const long = toLongDate(v);
  return long ? isoOf(long) : null;
}

/**
 * The next action that sets a calendar date field to `iso`, or null when it already holds it.
 * `what` names the field in the goal text.
 */
export function pickDay(
  obs: Observation,
  history: HistoryEntry[],
  field: Element,
  iso: string,
  what: string,
): Choice | null {
  const current = field.attributes.value ?? '';
  if (current === iso || isoDay(current) === iso) return null;
  const long = toLongDate(iso);
  if (!long) return null;
  if ((field.attributes.type ?? '').toLowerCase() === 'date' && !('readonly' in field.attributes))
    return {
      action: { type: 'input', index: field.index, text: iso, clear: true },
      goal: `Set ${what} to ${long}`,
    };
  const open = lastOpened(obs, history) === field.nodeKey;
  const calendar = obs.elements.some((e) => /^(next|previous) month$/i.test(labelOf(e)));
  if (open && calendar) {
    const day = obs.elements.find((e) => isClickable(e) && (e.attributes['aria-label'] ?? '') === long);
    if (day) return { action: { type: 'click', index: day.index }, goal: `Pick ${long} for ${what}` };
    const want = monthIndex(long);
    const shown = shownMonth(obs);
    if (want !== null && shown !== null && want !== shown) {
      const dir = want > shown ? /^next month$/i : /^previous month$/i;
      const arrow = obs.elements.find((e) => dir.test(labelOf(e)));
      if (arrow)
        return {
          action: { type: 'click', index: arrow.index },
          goal: `Move the calendar ${want > shown ? 'forward' : 'back'} a month for ${what}`,
        };
    }
    return null;
  }
  return { action: { type: 'click', index: field.index }, goal: `Open the calendar of ${what}` };
}
