import { type Action, formatAction } from '../../core/action.ts';
import { normalizeText } from '../../core/action-equivalence.ts';
import { makeAgentOutput } from '../../core/agent-output.ts';
import type { Element, Observation } from '../../core/observation.ts';
import { parseNoteRules } from '../../core/reflection.ts';
import type { AgentTask } from '../../core/task.ts';
import { DISMISS_LABEL_RE, ISO_DATE_SOURCE, LONG_DATE_SOURCE } from '../../core/text-patterns.ts';
import type { Agent, AgentDecision, AgentInput, HistoryEntry } from '../agent.ts';
import { actionMemory } from '../memory.ts';
import { parseGoal, phraseMatch, type TaskGoal } from './goal.ts';
import {
  bestByText,
  type Choice,
  elementOf,
  FLOW_BUTTONS,
  fillField,
  findAnswer,
  findTarget,
  keyAt,
  NEXT_RE,
  preferredSort,
  type Rules,
  ruleHits,
  SORT_OPTION,
  SUCCESS_RE,
  toLongDate,
} from './kit.ts';
import {
  isChecked,
  isClickable,
  isCovered,
  isDisabled,
  isSearchBox,
  isSelect,
  isToggle,
  labelOf,
  optionsOf,
  pageTexts,
  pathOf,
  selectedOf,
  tokensOf,
} from './page.ts';
import { SKILLS, type SkillContext } from './skills/index.ts';

/**
 * The date values the calendar stage looks for: ISO and long forms only (a US-form date is left
 * to the form filler, which types it), as the teacher was written.
 */
const CALENDAR_DATE_RE = new RegExp(String.raw`\b${ISO_DATE_SOURCE}\b|\b${LONG_DATE_SOURCE}\b`, 'i');

/**
 * The offline teacher: a real, rule-based policy over the observation. It matches the task's
 * constraints (names, quoted values, superlatives, field values) to elements lexically, fills
 * forms, handles overlays and autocomplete, sorts, pages and answers questions from page text.
 *
 * It is deliberately a plain lexical matcher, so it fails where such agents fail on the real web:
 * it takes the first item whose name contains the task's words (lookalikes), reacts to overlays
 * only once they block a click, knows a handful of superlatives, leaves a product's colour and
 * quantity at their defaults unless the task spells them out, and gives up when a target is not
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
        evaluation_previous_goal: last
          ? last.result.error
            ? `Failed: ${last.result.error}`
            : `Done: ${formatAction(last.action)}`
          : 'Starting the task.',
        memory: actionMemory([
          ...history,
          { action: choice.action, result: { error: null } } as HistoryEntry,
        ]),
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
    history.some(
      (h) =>
        pathOf(h.url) === here &&
        'index' in h.action &&
        typeof h.action.index === 'number' &&
        !h.result.error &&
        (!type || h.action.type === type) &&
        keyAt(h, h.action.index) === e.nodeKey,
    );
  const usable = obs.elements.filter((e) => !isDisabled(e) && !ruleHits(rules.avoid, 'click', labelOf(e)));
  const last = history.at(-1);
  const preferDismiss = rules.prefer.some((r) => r.kind === 'dismiss');
  const blocked = last?.result.errorKind === 'covered';

  // 1. Overlays: dismissed proactively only when a note says so; otherwise once they block a click.
  if (preferDismiss || blocked) {
    const closer = usable.find(
      (e) => isClickable(e) && !isCovered(e) && DISMISS_LABEL_RE.test(labelOf(e).trim()),
    );
    if (closer)
      return {
        action: { type: 'click', index: closer.index },
        goal: `Dismiss the overlay with "${labelOf(closer)}"`,
      };
  }

  // 2. Autocomplete: after typing, pick the suggestion that matches what was typed.
  if (last?.action.type === 'input' && !last.result.error) {
    const typed = last.action.text;
    const options = usable.filter((e) => e.role === 'option' || (e.tag === 'li' && e.parentIndex !== null));
    const best = bestByText(options, typed, rules);
    if (best && phraseMatch(typed, labelOf(best)).recall >= 0.5)
      return {
        action: { type: 'click', index: best.index },
        goal: `Choose the suggestion "${labelOf(best)}"`,
      };
  }

  // 3. Dates: pick the day button whose label is a date value of the task.
  const dateValue = goal.fields.find((f) => CALENDAR_DATE_RE.test(f.value));
  if (dateValue) {
    const wanted = toLongDate(dateValue.value);
    const day = usable.find(
      (e) =>
        e.tag === 'button' &&
        wanted &&
        normalizeText(e.attributes['aria-label'] ?? '') === normalizeText(wanted),
    );
    if (day) return { action: { type: 'click', index: day.index }, goal: `Pick ${wanted} in the calendar` };
    const calendarOpen = usable.some((e) => /previous month|next month/i.test(labelOf(e)));
    if (calendarOpen) {
      const next = usable.find((e) => /next month/i.test(labelOf(e)));
      if (next)
        return { action: { type: 'click', index: next.index }, goal: 'Move the calendar to the next month' };
    }
  }

  // 4. A domain skill (shopping, flights, mail, ...) when one recognises the task.
  const ctx: SkillContext = { goal, obs, history, rules, usable, acted, here };
  for (const skill of SKILLS) {
    if (!skill.applies(goal, obs)) continue;
    const c = skill.decide(ctx);
    if (c) return c;
  }

  // 5. Forms: fill each field the task gives a value for.
  const fill = fillField(goal, obs, usable, history, rules);
  if (fill) return fill;

  // 5. Sorting and filters the task asks for.
  const sortIntent = goal.sort ?? preferredSort(rules);
  if (sortIntent) {
    const sorter = usable.find(
      (e) => isSelect(e) && /sort/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`),
    );
    if (sorter) {
      const want = optionsOf(sorter).find((o) => SORT_OPTION[sortIntent].test(o));
      if (want && normalizeText(selectedOf(sorter)) !== normalizeText(want)) {
        return {
          action: { type: 'select_dropdown', index: sorter.index, text: want },
          goal: `Sort by "${want}"`,
        };
      }
    }
  }
  for (const e of usable) {
    if (!isToggle(e) || isChecked(e)) continue;
    const label = labelOf(e);
    const agree = /\b(i agree|i accept|i confirm|i declare|i certify|terms|declaration)\b/i.test(label);
    const asked =
      label &&
      phraseMatch(label, goal.text).recall >= 0.99 &&
      tokensOf(label).length >= 1 &&
      !/remember|newsletter|subscribe/i.test(label);
    if (agree || asked || ruleHits(rules.prefer, 'filter', label) || ruleHits(rules.prefer, 'click', label)) {
      return { action: { type: 'click', index: e.index }, goal: `Tick "${label}"` };
    }
  }

  // 6. Finished? A confirmation on the page ends a transaction; an answer ends a question.
  const texts = pageTexts(obs);
  if (!goal.question && history.length > 1 && texts.some((t) => SUCCESS_RE.test(t))) {
    return {
      action: { type: 'done', text: texts.find((t) => SUCCESS_RE.test(t)) ?? 'Done', success: true },
      goal: 'Report that the task is complete',
    };
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
  if (
    search &&
    query &&
    !history.some((h) => h.action.type === 'input' && normalizeText(h.action.text) === normalizeText(query))
  ) {
    return {
      action: { type: 'input', index: search.index, text: query, clear: true },
      goal: `Search for "${query}"`,
    };
  }
  if (
    search &&
    last?.action.type === 'input' &&
    isSearchBox(elementOf(last, last.action.index) ?? search) &&
    !last.result.error
  ) {
    return { action: { type: 'send_keys', keys: 'Enter' }, goal: 'Submit the search' };
  }

  // 10. Not here: scroll, then page on only when a note says so.
  const scrolls = history.filter((h) => pathOf(h.url) === here && h.action.type === 'scroll').length;
  if (obs.scroll.pagesBelow > 0.2 && scrolls < 4)
    return { action: { type: 'scroll', down: true, pages: 1 }, goal: 'Scroll down to look further' };
  if (rules.prefer.some((r) => r.kind === 'page')) {
    const next = usable.find((e) => isClickable(e) && NEXT_RE.test(labelOf(e).trim()));
    if (next) return { action: { type: 'click', index: next.index }, goal: 'Go to the next page of results' };
  }
  if (goal.question) {
    const guess = findAnswer(goal, obs, true);
    if (guess)
      return {
        action: { type: 'done', text: guess, success: true },
        goal: 'Answer with the best match on the page',
      };
  }
  return {
    action: { type: 'done', text: 'I could not complete the task.', success: false },
    goal: 'Give up',
  };
}
