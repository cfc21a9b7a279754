import type { Action } from '../../core/action.ts';
import { normalizeText, textTokens } from '../../core/action-equivalence.ts';
import { MONTH_NAMES } from '../../core/dates.ts';
import type { Element, Observation } from '../../core/observation.ts';
import type { ReflectionRule } from '../../core/reflection.ts';
import {
  DISMISS_LABEL_RE,
  ISO_DATE_PARTS_RE,
  LONG_DATE_PARTS_RE,
  US_DATE_PARTS_RE,
} from '../../core/text-patterns.ts';
import type { HistoryEntry } from '../agent.ts';
import { fieldLabel, mentionedOption, valueForField } from './fields.ts';
import { phraseMatch, type SortIntent, type TaskGoal } from './goal.ts';
import {
  isChecked,
  isClickable,
  isCovered,
  isEditable,
  isSearchBox,
  isSelect,
  isToggle,
  labelOf,
  optionsOf,
  pathOf,
  selectedOf,
  tokensOf,
} from './page.ts';

/** Structured rules from all notes of this attempt. */
export interface Rules {
  avoid: ReflectionRule[];
  prefer: ReflectionRule[];
}

export type Choice = { action: Action; goal: string };

export const SUCCESS_RE =
  /\b(order (?:placed|confirmed)|thank you|confirmation (?:number|code)|has been (?:sent|submitted|booked|saved|scheduled|added|archived|updated|requested)|booking confirmed|message sent|application (?:submitted|received)|tour (?:requested|scheduled)|saved to|added to (?:your )?(?:collection|list|shopping list))\b/i;
export const NEXT_RE = /^(next|next page|›|»|more results|load more)$/i;
export const FLOW_BUTTONS = [
  'place order',
  'confirm booking',
  'book now',
  'submit application',
  'submit',
  'send',
  'confirm',
  'schedule tour',
  'request tour',
  'save',
  'checkout',
  'proceed to checkout',
  'add to cart',
  'book',
  'reserve',
  'select',
  'continue',
  'next',
  'review',
  'apply',
  'search',
];

export const SORT_OPTION: Record<SortIntent, RegExp> = {
  'price-asc': /price.*(low|asc)|low.*high|cheapest/i,
  'price-desc': /price.*(high|desc)|high.*low/i,
  rating: /rat(ing|ed)|review/i,
  newest: /new|recent|latest/i,
  shortest: /short|duration|fast|quick/i,
};

export function ruleHits(rules: ReflectionRule[], kind: ReflectionRule['kind'], text: string): boolean {
  return rules.some(
    (r) =>
      (r.kind === kind || r.kind === 'any') &&
      r.target !== undefined &&
      normalizeText(r.target) === normalizeText(text),
  );
}

export function keyAt(h: HistoryEntry, index: number): string | undefined {
  return elementOf(h, index)?.nodeKey;
}

export function elementOf(h: HistoryEntry, index: number): Element | undefined {
  return h.observation.elements.find((e) => e.index === index);
}

export function preferredSort(rules: Rules): SortIntent | null {
  const r = rules.prefer.find((x) => x.kind === 'sort');
  if (!r) return null;
  const v = `${r.value ?? ''} ${r.target ?? ''}`;
  for (const [k, re] of Object.entries(SORT_OPTION) as Array<[SortIntent, RegExp]>) if (re.test(v)) return k;
  return null;
}

export function bestByText(elements: Element[], phrase: string, rules: Rules): Element | undefined {
  const exact = rules.prefer.some((r) => r.kind === 'click' && r.value === 'exact') || rules.avoid.length > 0;
  let best: Element | undefined;
  let bestScore = 0;
  for (const e of elements) {
    const m = phraseMatch(phrase, labelOf(e));
    if (m.recall < 0.6) continue;
    // Without a note the teacher compares recall only, so "Trail Runner 2 GTX" ties with
    // "Trail Runner 2" and the first one listed wins; a note makes it prefer the exact name.
    const score =
      m.recall +
      (exact ? (m.exact ? 1 : 0) - 0.1 * m.extra : 0) +
      (ruleHits(rules.prefer, 'click', labelOf(e)) ? 2 : 0);
    if (score > bestScore + 1e-9) {
      best = e;
      bestScore = score;
    }
  }
  return best;
}

export function findTarget(
  goal: TaskGoal,
  usable: Element[],
  rules: Rules,
  acted: (e: Element) => boolean,
): Element | undefined {
  const clickable = usable.filter(
    (e) => isClickable(e) && !isEditable(e) && !acted(e) && !DISMISS_LABEL_RE.test(labelOf(e).trim()),
  );
  const preferred = clickable.find((e) => ruleHits(rules.prefer, 'click', labelOf(e)));
  if (preferred) return preferred;
  for (const name of goal.names) {
    const best = bestByText(clickable, name, rules);
    if (best) return best;
  }
  return undefined;
}

export const SYNONYMS: Array<[RegExp, RegExp]> = [
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

export function fieldScore(label: string, e: Element): number {
  const el = `${labelOf(e)} ${e.attributes.name ?? ''} ${e.attributes.placeholder ?? ''}`;
  for (const [a, b] of SYNONYMS) if (a.test(label) && b.test(el)) return 1;
  const lt = tokensOf(label);
  const et = new Set(tokensOf(el));
  if (!lt.length) return 0;
  return lt.filter((t) => et.has(t)).length / lt.length;
}

export function fillField(
  goal: TaskGoal,
  obs: Observation,
  usable: Element[],
  history: HistoryEntry[],
  rules: Rules,
): Choice | null {
  const quoted = [...goal.fields];
  for (const r of rules.prefer)
    if ((r.kind === 'input' || r.kind === 'select' || r.kind === 'filter') && r.target && r.value)
      quoted.unshift({ label: r.target, value: r.value });
  const typedInto = new Map<string, string>();
  for (const h of history) {
    if ((h.action.type === 'input' || h.action.type === 'select_dropdown') && !h.result.error) {
      const k = keyAt(h, h.action.index);
      if (k) typedInto.set(k, h.action.text);
    }
  }
  const failedOn = new Set(
    history
      .filter((h) => h.result.error && 'index' in h.action && typeof h.action.index === 'number')
      .map((h) => keyAt(h, (h.action as { index: number }).index)),
  );
  for (const e of usable) {
    if (!(isEditable(e) || isSelect(e)) || isSearchBox(e) || isCovered(e) || failedOn.has(e.nodeKey))
      continue;
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
    const exactNeeded = rules.prefer.some(
      (r) => (r.kind === 'select' || r.kind === 'filter') && r.value === value,
    );
    if (isSelect(e)) {
      const opts = optionsOf(e);
      const pick = value
        ? exactNeeded
          ? opts.find((o) => o.trim() === value!.trim())
          : (opts.find((o) => phraseMatch(value!, o).recall >= 0.99) ??
            opts.find((o) => phraseMatch(value!, o).recall >= 0.5))
        : (mentionedOption(opts, goal.text) ??
          (valueForField(label, '', goal.text)
            ? opts.find((o) => normalizeText(o) === normalizeText(valueForField(label, '', goal.text)!))
            : undefined));
      if (!pick) continue;
      const sel = selectedOf(e);
      if (normalizeText(sel) === normalizeText(pick) && (!exactNeeded || sel.trim() === pick.trim()))
        continue;
      if (typedInto.get(e.nodeKey) === pick) continue;
      return {
        action: { type: 'select_dropdown', index: e.index, text: pick },
        goal: `Set "${labelOf(e)}" to "${pick}"`,
      };
    }
    const type = (e.attributes.type ?? 'text').toLowerCase();
    value ??= valueForField(label, type, goal.text);
    if (!value) continue;
    value = formatForField(value, e, type);
    const current = e.attributes.value ?? '';
    if (normalizeText(current) === normalizeText(value) || typedInto.get(e.nodeKey) === value) continue;
    if (e.attributes.readonly === 'true' || e.attributes.readonly === '') {
      if (
        history.some(
          (h) =>
            h.action.type === 'click' &&
            keyAt(h, (h.action as { index: number }).index) === e.nodeKey &&
            pathOf(h.url) === pathOf(obs.url),
        )
      )
        continue;
      return { action: { type: 'click', index: e.index }, goal: `Open the picker of "${labelOf(e)}"` };
    }
    return {
      action: { type: 'input', index: e.index, text: value, clear: true },
      goal: `Fill "${labelOf(e)}" with "${value}"`,
    };
  }
  // Radio buttons and option checkboxes whose label the task mentions.
  for (const e of usable) {
    if (!isToggle(e) || isChecked(e) || isCovered(e)) continue;
    const label = labelOf(e);
    const n = normalizeText(label);
    if (
      n.length < 4 ||
      /^(yes|no|none|other|remember me)$/.test(n) ||
      /newsletter|subscribe|remember/i.test(label)
    )
      continue;
    if (
      mentionedOption([label], goal.text) &&
      !history.some(
        (h) => h.action.type === 'click' && keyAt(h, (h.action as { index: number }).index) === e.nodeKey,
      )
    ) {
      return { action: { type: 'click', index: e.index }, goal: `Choose "${label}"` };
    }
  }
  return null;
}

/** Converts a value to the format a field expects (ISO for date inputs, MM/DD/YYYY when the placeholder says so). */
export function formatForField(value: string, e: Element, type: string): string {
  const long = toLongDate(value);
  const iso = long ? isoOf(long) : null;
  if (!iso) return value;
  if (type === 'date') return iso;
  const ph = `${e.attributes.placeholder ?? ''}`.toLowerCase();
  if (/mm\/dd\/yyyy/.test(ph)) return `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
  if (/yyyy-mm-dd/.test(ph)) return iso;
  return value;
}

export function isoOf(long: string): string | null {
  const m = long.match(/(\w+) (\d{1,2}), (\d{4})/);
  if (!m) return null;
  const mi = MONTH_NAMES.findIndex((x) => x.toLowerCase() === m[1].toLowerCase());
  return mi < 0 ? null : `${m[3]}-${String(mi + 1).padStart(2, '0')}-${m[2].padStart(2, '0')}`;
}

export function toLongDate(v: string): string | null {
  const us = v.match(US_DATE_PARTS_RE);
  if (us) return `${MONTH_NAMES[Number(us[1]) - 1]} ${Number(us[2])}, ${us[3]}`;
  const iso = v.match(ISO_DATE_PARTS_RE);
  if (iso) return `${MONTH_NAMES[Number(iso[2]) - 1]} ${Number(iso[3])}, ${iso[1]}`;
  const long = v.match(LONG_DATE_PARTS_RE);
  return long
    ? `${long[1][0].toUpperCase()}${long[1].slice(1).toLowerCase()} ${Number(long[2])}, ${long[3]}`
    : null;
}

/**
 * Answers a question from the page: on a page about the task's subject, the text block that
 * names what is asked for ("Price: $129.99", "Total time: 45 min"). With `loose`, any block that
 * shares words with the question and holds a number or a value after a colon.
 */
export function findAnswer(goal: TaskGoal, obs: Observation, loose = false): string | null {
  const heading = `${obs.title} ${obs.texts
    .filter((t) => /^h[1-3]$/.test(t.tag))
    .map((t) => t.text)
    .join(' ')}`;
  const onSubject = goal.names.length === 0 || goal.names.some((n) => phraseMatch(n, heading).recall >= 0.8);
  if (!onSubject && !loose) return null;
  const ask = goal.askFor ? textTokens(goal.askFor).filter((t) => t.length > 2) : [];
  let best: string | null = null;
  let bestScore = 0;
  for (const t of obs.texts) {
    const toks = new Set(textTokens(t.text));
    const askHit = ask.length
      ? ask.filter((a) => toks.has(a) || toks.has(a.replace(/s$/, ''))).length / ask.length
      : 0;
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
