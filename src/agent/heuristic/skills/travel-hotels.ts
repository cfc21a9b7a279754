import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Element } from '../../../core/observation.ts';
import { bestByText, type Choice, NEXT_RE, SORT_OPTION } from '../kit.ts';
import { isClickable, isToggle, labelOf, optionsOf } from '../page.ts';
import {
  applyButton,
  asksFor,
  buttonMatching,
  type ControlWant,
  carefulReading,
  click,
  finish,
  formDirty,
  headingOf,
  namesThing,
  resultLinks,
  selectLabelled,
  setControls,
  sortFor,
  textMatching,
} from './domain-kit.ts';
import type { SkillContext } from './index.ts';
import { cityQueries, dateStep, fieldLabelled, placeStep } from './travel-search.ts';
import type { TravelTask } from './travel-task.ts';

/**
 * Hotel tasks as a traveller does them: on a city's list, tick the exact star class and the
 * amenities the task names, cap the nightly price, sort, and read the first hotel; or find the
 * named hotel, read its guest rating, reserve the named room type and fill the guest form. From
 * the home page: Hotels tab, destination suggestion, the two calendars, guests, search.
 */
export function hotelStep(ctx: SkillContext, task: TravelTask): Choice | null {
  const { obs, usable } = ctx;
  if (selectLabelled(usable, /^room type/i)) return guestForm(ctx, task);
  const heading = headingOf(obs);
  const reserves = usable.filter((e) => isClickable(e) && /^(reserve|book)$/i.test(labelOf(e).trim()));
  const onHotel =
    reserves.length > 0 ||
    (/guest rating/i.test(obs.texts.map((t) => t.text).join(' ')) &&
      /choose your room/i.test(obs.texts.map((t) => t.text).join(' ')));
  if (onHotel && (!task.hotel || namesThing(task.hotel, heading, ctx.rules))) {
    if (task.ask === 'rating') {
      const line = textMatching(obs, /guest rating\s*\d/i);
      const r = line?.match(/guest rating\s*(\d+(?:\.\d)?)/i)?.[1];
      return r
        ? finish(`${heading} has a guest rating of ${r} out of 10.`, 'Answer with the guest rating')
        : null;
    }
    if (task.book && task.room) return reserveRoom(ctx, task.room, reserves);
    return null;
  }
  if (/^hotels in\b/i.test(heading) || usable.some((e) => isToggle(e) && e.attributes.name === 'stars'))
    return listStep(ctx, task);
  return hotelSearch(ctx, task);
}

/** The Reserve button on the row of the named room type (the one level with its name). */
function reserveRoom(ctx: SkillContext, room: string, reserves: Element[]): Choice | null {
  const n = normalizeText(room);
  const block =
    ctx.obs.texts.find((t) => normalizeText(t.text) === n) ??
    ctx.obs.texts.find((t) => normalizeText(t.text).startsWith(n));
  if (!block?.bbox || !reserves.length) return null;
  const y = block.bbox.y;
  const best = reserves.reduce((a, b) => (Math.abs(b.bbox.y - y) < Math.abs(a.bbox.y - y) ? b : a));
  return click(best, `Reserve the ${room}`);
}

/** A city's hotel list: open the named hotel, or filter, sort and read the first one. */
function listStep(ctx: SkillContext, task: TravelTask): Choice | null {
  const { usable, obs, goal } = ctx;
  if (task.hotel) {
    const links = resultLinks(obs, usable).filter((e) => !ctx.acted(e));
    const best = bestByText(links, task.hotel, ctx.rules);
    if (best) return click(best, `Open "${labelOf(best)}"`);
    // Not on this page: only a note makes the teacher look at the next page.
    const next =
      ctx.rules.prefer.some((r) => r.kind === 'page') &&
      usable.find((e) => isClickable(e) && NEXT_RE.test(labelOf(e).trim()));
    return next ? click(next, 'Look on the next page') : null;
  }
  // Star, amenity and cancellation boxes the task mentions ("3-star" needs a careful reading).
  const wants: ControlWant[] = [];
  for (const e of usable) {
    if (isToggle(e) && asksFor(goal, labelOf(e), ctx.rules)) wants.push({ el: e, kind: 'tick' });
  }
  const max = usable.find((e) => /max(imum)? price/i.test(labelOf(e)) && !isToggle(e));
  // "My budget is $200 per night" is a cap only on a close reading; "at most $200" always is.
  const cap = task.maxPrice ?? (carefulReading(ctx.rules) ? task.budget : null);
  if (max && cap !== null) wants.push({ el: max, kind: 'type', value: String(cap) });
  const sorter = selectLabelled(usable, /^sort/i);
  const sort = sortFor(goal, ctx.rules);
  if (sorter && sort) {
    const o = optionsOf(sorter).find((x) => SORT_OPTION[sort].test(x));
    if (o) wants.push({ el: sorter, kind: 'select', option: o });
  }
  const step = setControls(ctx, wants);
  if (step) return step;
  const apply = applyButton(usable);
  if (apply && formDirty(ctx.history, obs.url)) return click(apply, 'Apply the filters');
  const first = resultLinks(obs, usable)[0];
  return first && task.ask ? finish(labelOf(first).trim(), 'Answer with the first hotel') : null;
}

/** The home page's hotel search: tab, destination, dates, guests, search. */
function hotelSearch(ctx: SkillContext, task: TravelTask): Choice | null {
  const { usable } = ctx;
  const tab = usable.find((e) => e.role === 'tab' && /^hotels?$/i.test(labelOf(e).trim()));
  if (tab && tab.attributes['aria-selected'] === 'false') return click(tab, 'Open the hotel search');
  const dest = fieldLabelled(usable, /destination|where|city/i);
  if (!dest) return null;
  if (task.hotel) {
    const name = normalizeText(task.hotel);
    const cityOf = (label: string) => normalizeText(label.split(',')[0]);
    const step = placeStep(
      ctx,
      dest,
      cityQueries(task.hotel),
      (v) => v.includes(',') && name.includes(cityOf(v)),
      (l) => l.includes(',') && name.includes(cityOf(l)),
    );
    if (step) return step;
  }
  const checkin = fieldLabelled(usable, /check-?in/i);
  if (checkin && task.date) {
    const step = dateStep(ctx, checkin, task.date);
    if (step) return step;
  }
  const checkout = fieldLabelled(usable, /check-?out/i);
  if (checkout && task.checkout) {
    const step = dateStep(ctx, checkout, task.checkout);
    if (step) return step;
  }
  const guests = selectLabelled(usable, /guests?/i);
  const g =
    guests &&
    task.guests &&
    optionsOf(guests).find((o) => new RegExp(`^${task.guests} guests?$`, 'i').test(o));
  if (guests && g) {
    const step = setControls(ctx, [{ el: guests, kind: 'select', option: g }]);
    if (step) return step;
  }
  const go = buttonMatching(usable, /^search hotels?$/i);
  return go ? click(go, 'Search hotels') : null;
}

/** The guest form: room type, dates and guests as the task says, lead guest, then confirm. */
function guestForm(ctx: SkillContext, task: TravelTask): Choice | null {
  const { usable } = ctx;
  const wants: ControlWant[] = [];
  const room = selectLabelled(usable, /^room type/i);
  if (room && task.room) {
    const o = optionsOf(room).find((x) => normalizeText(x).startsWith(normalizeText(task.room!)));
    if (o) wants.push({ el: room, kind: 'select', option: o });
  }
  const guests = selectLabelled(usable, /^guests?/i);
  const g =
    guests &&
    task.guests &&
    optionsOf(guests).find((o) => new RegExp(`^${task.guests} guests?$`, 'i').test(o));
  if (guests && g) wants.push({ el: guests, kind: 'select', option: g });
  const p = task.traveller;
  const pairs: Array<[RegExp, string | undefined]> = [
    [/^first name/i, p?.first],
    [/^last name/i, p?.last],
    [/^e-?mail/i, p?.email],
  ];
  for (const [re, v] of pairs) {
    const f = fieldLabelled(usable, re);
    if (f && v) wants.push({ el: f, kind: 'type', value: v });
  }
  const step = setControls(ctx, wants);
  if (step) return step;
  for (const [re, iso] of [
    [/check-?in/i, task.date],
    [/check-?out/i, task.checkout],
  ] as const) {
    const f = fieldLabelled(usable, re);
    if (f && iso) {
      const s = dateStep(ctx, f, iso);
      if (s) return s;
    }
  }
  const confirm = buttonMatching(usable, /^(confirm booking|book now|complete booking)$/i);
  return confirm ? click(confirm, 'Confirm the booking') : null;
}
