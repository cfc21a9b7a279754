import { parseGoal, phraseMatch } from '../agent/heuristic/goal.ts';
import { isSelect, labelOf, optionsOf } from '../agent/heuristic/page.ts';
import { formatAction, isGiveUp } from '../core/action.ts';
import { normalizeText } from '../core/action-equivalence.ts';
import { newId } from '../core/ids.ts';
import type { Reflection, ReflectionRule } from '../core/reflection.ts';
import type { Trajectory } from '../core/trajectory.ts';
import type { ReflectInput, Reflector } from './reflector.ts';

interface Finding {
  text: string;
  avoid?: ReflectionRule[];
  prefer?: ReflectionRule[];
}

// Superlatives first (so "the quickest recipe rated 4 stars" sorts by time, not rating), then
// looser ordering words.
const SUPERLATIVES: Array<[RegExp, string]> = [
  [/\b(cheapest|lowest[- ]priced|lowest price|least expensive|most affordable)\b/i, 'price low to high'],
  [/\b(most expensive|priciest|highest[- ]priced)\b/i, 'price high to low'],
  [/\b(quickest|fastest|shortest)\b/i, 'shortest'],
  [/\b(newest|latest|most recent(?:ly)?)\b/i, 'newest'],
  [/\b(highest[- ]rated|best[- ]rated|top[- ]rated|highest (?:customer )?rating)\b/i, 'rating'],
];
const SORT_WORDS: Array<[RegExp, string]> = [
  ...SUPERLATIVES,
  [/\b(cheap|affordable|budget|lowest|least expensive|inexpensive|low(est)? cost)\b/i, 'price low to high'],
  [/\b(expensive|priciest|highest price|premium)\b/i, 'price high to low'],
  [/\b(rated|reviewed|rating|best|top)\b/i, 'rating'],
  [/\b(new|recent(?:ly)?|latest)\b/i, 'newest'],
  [/\b(short|fast|quick)\b/i, 'shortest'],
];

/**
 * The offline reflector: rules over the failed attempt and the verifier's failed conditions. Each
 * rule recognises one failure pattern and writes a sentence of the note plus structured avoid/
 * prefer rules that the heuristic teacher acts on (LLM agents read the sentence).
 *
 * Patterns: a lookalike clicked instead of the named item; an overlay that blocked clicks; a
 * superlative the attempt never sorted for; a target that was on a later page; a select set to a
 * near-miss option ("2+" for "2"); a colour or quantity left at its default; a form that stayed invalid; a wrong or premature answer; a loop.
 */
export class RulesReflector implements Reflector {
  readonly id = 'rules';

  async reflect({ trajectory: t }: ReflectInput): Promise<Reflection> {
    const findings = [
      lookalike(t),
      overlay(t),
      sorting(t),
      paging(t),
      nearMissSelect(t),
      variantMissed(t),
      invalidForm(t),
      answer(t),
      loop(t),
    ].filter((f): f is Finding => f !== null);
    const failed = t.verdict?.failedConditions.length
      ? ` Unmet: ${t.verdict.failedConditions.join(', ')}.`
      : '';
    const head = `Attempt ${t.round + 1} failed (${t.endReason}).${failed}`;
    const body = findings.length
      ? findings.map((f) => f.text).join(' ')
      : 'Re-read the task and check every constraint before finishing; look beyond the first screen and first page of results.';
    const prefer = dedupe(findings.flatMap((f) => f.prefer ?? []));
    const avoid = dedupe(findings.flatMap((f) => f.avoid ?? []));
    if (!findings.length)
      prefer.push(
        { kind: 'page', why: 'target may be on a later page' },
        { kind: 'dismiss', why: 'overlays may hide targets' },
      );
    return {
      schemaVersion: 1,
      id: newId('refl'),
      taskId: t.task.id,
      round: t.round,
      fromTrajectoryId: t.id,
      text: `${head} ${body}`.slice(0, 900),
      avoid,
      prefer,
      source: this.id,
      createdAt: new Date().toISOString(),
    };
  }
}

function dedupe(rules: ReflectionRule[]): ReflectionRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const k = `${r.kind}|${r.target ?? ''}|${r.value ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function clickedLabels(t: Trajectory): string[] {
  return t.steps
    .filter((s) => s.action.type === 'click' && !s.result.error)
    .map((s) => {
      const idx = (s.action as { index: number }).index;
      const e = s.observation.elements.find((x) => x.index === idx);
      return e ? labelOf(e) : '';
    })
    .filter(Boolean);
}

function lookalike(t: Trajectory): Finding | null {
  const goal = parseGoal(t.task.objective);
  for (const label of clickedLabels(t)) {
    for (const name of goal.names) {
      const m = phraseMatch(name, label);
      if (m.recall >= 0.6 && !m.exact && m.extra > 0) {
        return {
          text: `It opened "${label}", which only looks like "${name}"; choose the item whose name is exactly "${name}".`,
          avoid: [{ kind: 'click', target: label, why: 'lookalike of the named item' }],
          prefer: [{ kind: 'click', target: name, value: 'exact' }],
        };
      }
    }
  }
  return null;
}

function overlay(t: Trajectory): Finding | null {
  const blocked = t.steps.some((s) => s.result.errorKind === 'covered');
  const present = t.steps.some((s) => s.observation.elements.some((e) => e.attributes.covered === 'true'));
  if (!blocked && !present) return null;
  return {
    text: 'A cookie banner or pop-up covered the page; close it first (Accept all / Close / No thanks) before clicking anything else.',
    prefer: [{ kind: 'dismiss', why: 'overlay blocked clicks' }],
  };
}

function sorting(t: Trajectory): Finding | null {
  // Sorted: a select labelled as a sort was set (a rating filter such as "4 stars & up" is not a sort).
  const sorted = t.steps.some((s) => {
    if (s.action.type !== 'select_dropdown') return false;
    const idx = s.action.index;
    const e = s.observation.elements.find((x) => x.index === idx);
    return !!e && /sort|order by/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`);
  });
  if (sorted) return null;
  const cond = (t.verdict?.failedConditions ?? []).join(' ');
  for (const [re, value] of SORT_WORDS) {
    if (
      re.test(t.task.objective) &&
      (/\b(cheap|price|rating|rated|best|new|short|item|select|choice|pick|name|answer|address|saved?)/i.test(
        cond,
      ) ||
        cond === '' ||
        // A superlative the teacher does not know: the attempt could not have sorted for it.
        (SUPERLATIVES.some(([s]) => s.test(t.task.objective)) && parseGoal(t.task.objective).sort === null))
    ) {
      return {
        text: `The task asks for a superlative; sort the results by ${value} and take the first match.`,
        prefer: [{ kind: 'sort', value }],
      };
    }
  }
  return null;
}

function paging(t: Trajectory): Finding | null {
  const last = t.steps.at(-1);
  const gaveUp = last !== undefined && isGiveUp(last.action);
  const hadNext = t.steps.some((s) =>
    s.observation.elements.some((e) => /^(next|next page|›|»)$/i.test(labelOf(e).trim())),
  );
  if ((gaveUp || t.endReason === 'loop' || t.endReason === 'max_steps') && hadNext) {
    return {
      text: 'The target was not on the first page of results; go to the next page (or search by name) before giving up.',
      prefer: [{ kind: 'page' }],
    };
  }
  return null;
}

function nearMissSelect(t: Trajectory): Finding | null {
  const goal = parseGoal(t.task.objective);
  for (const s of t.steps) {
    if (s.action.type !== 'select_dropdown') continue;
    const chosen = s.action.text;
    const idx = s.action.index;
    const e = s.observation.elements.find((x) => x.index === idx);
    if (!e || !isSelect(e)) continue;
    for (const f of goal.fields) {
      const exact = optionsOf(e).find((o) => o.trim().toLowerCase() === f.value.trim().toLowerCase());
      if (normalizeText(chosen) === normalizeText(f.value) && chosen.trim() !== f.value.trim() && exact) {
        return {
          text: `"${chosen}" is not the same as "${f.value}": in "${labelOf(e)}" pick exactly "${exact}".`,
          prefer: [{ kind: 'select', target: labelOf(e), value: exact }],
        };
      }
    }
  }
  return null;
}

/** The label of the first control seen in the attempt that `pick` accepts, else `fallback`. */
function controlLabel(t: Trajectory, pick: (label: string) => boolean, fallback: string): string {
  for (const s of t.steps)
    for (const e of s.observation.elements) if (pick(labelOf(e).trim())) return labelOf(e).trim();
  return fallback;
}

/**
 * A variant left at its default: the verifier names the colour that is missing or the quantity it
 * expected. The rule gives the control's label and the exact value to set on the next attempt.
 */
function variantMissed(t: Trajectory): Finding | null {
  const prefer: ReflectionRule[] = [];
  const text: string[] = [];
  // Condition names ("cart.color") come with their details in the verdict's reason.
  const details = [...(t.verdict?.failedConditions ?? []), ...(t.verdict?.reason ?? '').split(/;\s*/)];
  for (const c of details) {
    const color = c.match(/\bcolou?r\b.*?\bcolou?r (.+?) missing\b/i)?.[1];
    if (color) {
      const target = controlLabel(t, (l) => /^colou?r\b/i.test(l), 'Color');
      const sel = t.steps
        .flatMap((s) => s.observation.elements)
        .find((e) => isSelect(e) && labelOf(e).trim() === target);
      const option = (sel && optionsOf(sel).find((o) => normalizeText(o) === normalizeText(color))) ?? color;
      prefer.push({ kind: 'select', target, value: option, why: 'colour left at its default' });
      text.push(`The colour was left at its default; choose "${option}" in "${target}" before adding it.`);
    }
    const q = c.match(/\bqty\b.*?\bquantity (\d+), expected (\d+)\b/i);
    const qty = q && q[1] !== q[2] ? q[2] : null;
    if (qty) {
      const target = controlLabel(t, (l) => /^(quantity|qty)\b/i.test(l), 'Quantity');
      prefer.push({ kind: 'input', target, value: qty, why: 'quantity from the task' });
      text.push(`The quantity was wrong; set "${target}" to ${qty} before adding it to the cart.`);
    }
  }
  if (!prefer.length) return null;
  // The same care for the item itself: the one named exactly, not a lookalike.
  const name = parseGoal(t.task.objective).names[0];
  if (name) prefer.push({ kind: 'click', target: name, value: 'exact' });
  return { text: text.join(' '), prefer: dedupe(prefer) };
}

function invalidForm(t: Trajectory): Finding | null {
  const last = t.steps.at(-1)?.observation;
  if (!last) return null;
  const errors = last.texts
    .map((x) => x.text)
    .filter((x) => /\b(required|invalid|must be|please enter|please select|is not valid)\b/i.test(x));
  if (!errors.length) return null;
  return {
    text: `The form was rejected: ${errors.slice(0, 2).join(' ')} Fill every required field with the task's values in the right format.`,
  };
}

function answer(t: Trajectory): Finding | null {
  const goal = parseGoal(t.task.objective);
  if (!goal.question || t.finalAnswer === null) return null;
  const failed = t.verdict?.failedConditions ?? [];
  if (!failed.some((c) => /answer/i.test(c)) && failed.length) return null;
  return {
    text: `The answer "${t.finalAnswer.slice(0, 80)}" was not right; open the page of the exact item the task names and read the value asked for there.`,
    avoid: [{ kind: 'done', value: t.finalAnswer.slice(0, 80) }],
  };
}

function loop(t: Trajectory): Finding | null {
  if (t.endReason !== 'loop') return null;
  const a = t.steps.at(-1)?.action;
  return {
    text: `It repeated ${a ? formatAction(a) : 'the same action'} without effect; try a different element or route.`,
  };
}
