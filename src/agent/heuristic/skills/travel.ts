import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Observation } from '../../../core/observation.ts';
import type { TaskGoal } from '../goal.ts';
import { type Choice, SORT_OPTION } from '../kit.ts';
import { isClickable, isToggle, labelOf, optionsOf } from '../page.ts';
import {
  applyButton,
  asksFor,
  buttonMatching,
  type ControlWant,
  carefulReading,
  click,
  exactMode,
  finish,
  formDirty,
  labeledValue,
  selectLabelled,
  setControls,
  sortFor,
  stillLoading,
  textMatching,
  waitedTimes,
} from './domain-kit.ts';
import type { Skill, SkillContext } from './index.ts';
import { hotelStep } from './travel-hotels.ts';
import { dateStep, fieldLabelled, placeStep } from './travel-search.ts';
import { readTravelTask, type TravelTask } from './travel-task.ts';

/**
 * How a person books travel: search flights from the home page (places from the suggestion
 * lists, the date from the calendar), wait for the results, set the filters and the sort the
 * task states (nonstop, airline, price cap; cheapest, fastest, earliest), read the first flight
 * or select it, read fare rules in the tab they open in, and fill the passenger form. Hotel
 * tasks go through travel-hotels.ts.
 */
export const travelSkill: Skill = {
  id: 'travel',
  applies: (goal, obs) => isTravelTask(goal, obs),
  decide: decideTravel,
};

function isTravelTask(goal: TaskGoal, obs: Observation): boolean {
  // A travel site: its navigation or tabs offer flights or hotels.
  const site = obs.elements.some((e) => /^(flights?|hotels?|my trips)$/i.test(labelOf(e).trim()));
  if (!site) return false;
  return /\b(flights?|airline|airport|nonstop|non-stop|fare rules|hotels?|check-?in|guest rating|book|reserve)\b/i.test(
    goal.text,
  );
}

const CONFIRMED_RE = /\b(booking confirmed|confirmation (?:code|number) is)\b/i;

function decideTravel(ctx: SkillContext): Choice | null {
  const task = readTravelTask(ctx.goal);
  const { obs } = ctx;
  const confirmed = textMatching(obs, CONFIRMED_RE);
  if (confirmed && task.book) return finish(confirmed.trim(), 'Report the booking');
  if (task.kind === 'hotel') return hotelStep(ctx, task);
  if (task.kind !== 'flight') return null;
  // Fare rules open in a new tab: go there, then read the fee.
  const rulesTab = obs.tabs.find((t) => !t.active && /fare rules/i.test(t.title));
  if (rulesTab && task.ask === 'fee')
    return { action: { type: 'switch_tab', tab_id: rulesTab.id }, goal: 'Switch to the fare rules tab' };
  if (/fare rules/i.test(obs.title) && task.ask === 'fee') return readFee(obs, task);
  if (obs.elements.some((e) => /date of birth/i.test(labelOf(e)))) return passengerForm(ctx, task);
  const detail = buttonMatching(ctx.usable, /^continue to booking$/i);
  if (detail) {
    if (task.ask === 'fee') {
      const rules = buttonMatching(ctx.usable, /^fare rules$/i);
      return rules && !ctx.acted(rules) ? click(rules, 'Open the fare rules') : null;
    }
    return task.book ? click(detail, 'Continue to booking') : null;
  }
  if (stillLoading(obs) || ctx.usable.some((e) => isToggle(e) && /non-?stop/i.test(labelOf(e))))
    return resultsStep(ctx, task);
  return flightSearch(ctx, task);
}

/** Fills From, To and the departure date on the search form, then searches. */
function flightSearch(ctx: SkillContext, task: TravelTask): Choice | null {
  const { usable } = ctx;
  const tab = usable.find((e) => e.role === 'tab' && /^flights?$/i.test(labelOf(e).trim()));
  if (tab && tab.attributes['aria-selected'] === 'false') return click(tab, 'Open the flight search');
  const legs: Array<[RegExp, TravelTask['from']]> = [
    [/^from\b/i, task.from],
    [/^to\b/i, task.to],
  ];
  // A person types the city and takes the first suggestion; only once a note asks for exact
  // names does the teacher type the airport code and check it in the suggestion it picks.
  const careful = exactMode(ctx.rules);
  for (const [re, p] of legs) {
    const f = fieldLabelled(usable, re);
    if (!f || !p) continue;
    const code = careful ? p.code : null;
    const q = code ?? p.city;
    const city = normalizeText(p.city);
    const step = placeStep(
      ctx,
      f,
      [q],
      (v) => (code ? v.includes(`(${code})`) : normalizeText(v).startsWith(city)) && v.length > q.length,
      (l) => (code ? l.includes(`(${code})`) : normalizeText(l).startsWith(city)),
    );
    if (step) return step;
  }
  const date = fieldLabelled(usable, /depart|^date/i);
  if (date && task.date) {
    const step = dateStep(ctx, date, task.date);
    if (step) return step;
  }
  const go = buttonMatching(usable, /^search flights?$/i);
  return go && date ? click(go, 'Search flights') : null;
}

/** One flight of a results list, as printed on its card. */
export interface FlightCard {
  depart: string;
  airline: string;
  number: string;
  duration: string;
  stops: string;
  price: string;
}

/** Reads the flight cards of a results page, in order. */
export function flightCards(obs: Observation): FlightCard[] {
  const out: FlightCard[] = [];
  let cur: FlightCard | null = null;
  for (const { text } of obs.texts) {
    const s = text.trim();
    const time = s.match(/^(\d{1,2}:\d{2}\s?[AP]M)\s*[–-]/i);
    if (time) {
      cur = { depart: time[1], airline: '', number: '', duration: '', stops: '', price: '' };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    const who = s.match(/^(.+?) · ([A-Z]{2} ?\d{1,4})$/);
    if (who && !cur.number) [cur.airline, cur.number] = [who[1], who[2]];
    else if (/^\d+h(?: \d+m)?$/.test(s) && !cur.duration) cur.duration = s;
    else if (/^(nonstop|\d+ stops?)/i.test(s) && !cur.stops) cur.stops = s;
    else if (/^\$\d/.test(s) && !cur.price) cur.price = s.match(/^\$[\d,]+(?:\.\d{2})?/)![0];
  }
  return out;
}

/** On the results: wait for them, set filters and sort, then read or select the first flight. */
function resultsStep(ctx: SkillContext, task: TravelTask): Choice | null {
  const { usable, obs } = ctx;
  if (stillLoading(obs) && waitedTimes(ctx.history) < 5)
    return { action: { type: 'wait', seconds: 1 }, goal: 'Wait for the results to load' };
  if (task.flightNumber) {
    const n = normalizeText(task.flightNumber);
    const sel = usable.find(
      (e) => isClickable(e) && normalizeText(labelOf(e)).endsWith(n) && /select/i.test(labelOf(e)),
    );
    if (sel) return click(sel, `Select flight ${task.flightNumber}`);
  }
  // Boxes whose label the task mentions ("Nonstop only" needs a careful reading of "nonstop").
  const wants: ControlWant[] = [];
  for (const e of usable) {
    if (isToggle(e) && asksFor(ctx.goal, labelOf(e), ctx.rules)) wants.push({ el: e, kind: 'tick' });
  }
  const max = usable.find((e) => /max(imum)? price/i.test(labelOf(e)) && !isToggle(e));
  if (max && task.maxPrice !== null) wants.push({ el: max, kind: 'type', value: String(task.maxPrice) });
  const sorter = selectLabelled(usable, /^sort/i);
  // "Earliest" is not among the superlatives the teacher knows until a note makes it read closely.
  const sort = task.earliest && carefulReading(ctx.rules) ? 'departure' : sortFor(ctx.goal, ctx.rules);
  if (sorter && sort) {
    const re = sort === 'departure' ? /depart|earliest/i : SORT_OPTION[sort];
    const o = optionsOf(sorter).find((x) => re.test(x));
    if (o) wants.push({ el: sorter, kind: 'select', option: o });
  }
  const step = setControls(ctx, wants);
  if (step) return step;
  const apply = applyButton(usable);
  if (apply && formDirty(ctx.history, obs.url)) return click(apply, 'Apply the filters');
  const cards = flightCards(obs);
  const first = cards[0];
  if (!first) return null;
  if (task.book) {
    const sel = usable.find((e) => isClickable(e) && /^select flight /i.test(labelOf(e)));
    return sel ? click(sel, `Select ${labelOf(sel).replace(/^select /i, '')}`) : null;
  }
  if (task.ask === 'number')
    return finish(
      `Flight ${first.number} (${first.airline}, ${first.duration}).`,
      'Answer with the flight number',
    );
  if (task.ask === 'airline-time')
    return finish(`${first.airline}, departing at ${first.depart}.`, 'Answer with the airline and time');
  if (task.ask === 'price' || task.ask === 'name')
    return finish(`${first.price} (${first.airline} ${first.number}).`, 'Answer with the fare');
  return null;
}

/** Reads the fee the task asks about off the fare rules table. */
function readFee(obs: Observation, task: TravelTask): Choice | null {
  const label =
    task.fee === 'cancellation'
      ? /^cancell?ation fee$/i
      : task.fee === 'change'
        ? /^change fee$/i
        : /^(first )?checked bag/i;
  const v = labeledValue(obs, label);
  return v ? finish(`The ${task.fee ?? ''} fee is ${v}.`.replace(/\s+/g, ' '), 'Answer with the fee') : null;
}

/** Passenger details, contact, seat and bags, the fare-rules box, then "Confirm booking". */
function passengerForm(ctx: SkillContext, task: TravelTask): Choice | null {
  const { usable } = ctx;
  const p = task.traveller;
  const wants: ControlWant[] = [];
  const pairs: Array<[RegExp, string | null | undefined]> = [
    [/^first name/i, p?.first],
    [/^last name/i, p?.last],
    [/date of birth/i, p?.dob],
    [/^e-?mail/i, p?.email],
    [/^phone/i, p?.phone],
  ];
  for (const [re, v] of pairs) {
    const f = fieldLabelled(usable, re);
    if (f && v) wants.push({ el: f, kind: 'type', value: v });
  }
  if (task.seat) {
    const r = usable.find((e) => isToggle(e) && new RegExp(`^${task.seat}\\b`, 'i').test(labelOf(e).trim()));
    if (r) wants.push({ el: r, kind: 'tick' });
  }
  const bags = selectLabelled(usable, /bags?/i);
  if (bags && task.bags !== null) {
    const o = optionsOf(bags).find((x) =>
      task.bags === 0 ? /^no\b/i.test(x) : x.startsWith(String(task.bags)),
    );
    if (o) wants.push({ el: bags, kind: 'select', option: o });
  }
  const accept = usable.find((e) => isToggle(e) && /\b(accept|agree)\b/i.test(labelOf(e)));
  if (accept) wants.push({ el: accept, kind: 'tick' });
  const step = setControls(ctx, wants);
  if (step) return step;
  const confirm = buttonMatching(usable, /^(confirm booking|book now|complete booking)$/i);
  return confirm ? click(confirm, 'Confirm the booking') : null;
}
