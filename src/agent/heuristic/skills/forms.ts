import { normalizeText, textTokens } from '../../../core/action-equivalence.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import type { TaskGoal } from '../goal.ts';
import type { Choice } from '../kit.ts';
import { isClickable, isDisabled, isEditable, labelOf, pageTexts } from '../page.ts';
import { declaration, fillPage } from './forms-fill.ts';
import { stem } from './forms-values.ts';
import type { Skill, SkillContext } from './index.ts';

/**
 * Government services as a person uses them: to apply, start the application, work through the
 * wizard one step at a time filling each question from the task, tick the declaration on the
 * review page, submit and report the confirmation number; to look up a fee, open the fee schedule
 * and the right category tab and read the row; to check a status, fill the lookup form.
 */

const FORM_TASK =
  /\b(apply|application|renew|renewal|permit|license|licence|register|registration|sign me up|file a|benefits?|assistance|change of address|fee|fees|status|confirmation number|library card)\b/i;

const click = (e: Element, goal: string): Choice => ({ action: { type: 'click', index: e.index }, goal });
const find = (obs: Observation, re: RegExp) =>
  obs.elements.find((e) => isClickable(e) && !isDisabled(e) && re.test(labelOf(e).trim()));

/** Whether the page belongs to an online-services portal: a wizard, a service page, a fee table or a status lookup. */
function isServicesPage(obs: Observation): boolean {
  const texts = obs.texts.map((t) => t.text);
  return (
    !!find(obs, /^(start|begin) (the |an |your )?application$|^submit application$/i) ||
    texts.some((t) => /^step \d+ of \d+/i.test(t) || /^application (submitted|received)$/i.test(t)) ||
    (!!find(obs, /^(fees|fee schedule)$/i) && !!find(obs, /^check (the )?status$/i))
  );
}

type FormKind = 'apply' | 'fee' | 'status';

function kindOf(goal: TaskGoal): FormKind {
  const t = goal.text;
  if (/\bstatus\b/i.test(t)) return 'status';
  if (
    /\b(fee|fees|cost|charge|how much)\b/i.test(t) &&
    !/\b(apply|get me|sign me up|file|renew my|register)\b/i.test(t)
  )
    return 'fee';
  return 'apply';
}

export const formsSkill: Skill = {
  id: 'forms',
  applies: (goal, obs) => FORM_TASK.test(goal.text) && isServicesPage(obs),
  decide(ctx) {
    const confirmation = confirmationNumber(ctx.obs);
    if (confirmation && ctx.history.length > 0)
      return {
        action: { type: 'done', text: `Your confirmation number is ${confirmation}.`, success: true },
        goal: 'Report the confirmation number',
      };
    switch (kindOf(ctx.goal)) {
      case 'fee':
        return fee(ctx);
      case 'status':
        return status(ctx);
      default:
        return apply(ctx);
    }
  },
};

/** The confirmation number a confirmation page shows. */
export function confirmationNumber(obs: Observation): string | null {
  for (const t of pageTexts(obs)) {
    const m = /confirmation (?:number|code) is:?\s*([A-Z0-9][A-Z0-9-]{3,})/i.exec(t);
    if (m) return m[1];
  }
  return null;
}

function apply(ctx: SkillContext): Choice | null {
  const { obs, history, goal, rules } = ctx;
  const start = find(obs, /^(start|begin) (the |an |your )?application$/i);
  if (start) return click(start, 'Start the application');
  const box = declaration(obs);
  const submit = obs.elements.find(
    (e) => isClickable(e) && /^submit( application)?$/i.test(labelOf(e).trim()),
  );
  if (submit) {
    if (box) return click(box, `Tick "${labelOf(box)}"`);
    if (!isDisabled(submit)) return click(submit, 'Submit the application');
    return null;
  }
  const fill = fillPage(obs, history, goal.text, rules);
  if (fill) return fill;
  const next = find(obs, /^(continue|next|save and continue)$/i);
  return next ? click(next, 'Continue to the next step') : null;
}

const STOP = new Set([
  'a',
  'an',
  'the',
  'for',
  'of',
  'in',
  'on',
  'city',
  'fee',
  'cost',
  'charge',
  'does',
  'how',
  'much',
  'what',
  'is',
  'look',
  'up',
  'schedule',
  'check',
  "city's",
  'citys',
]);

/** The thing whose fee is asked for, as content words. */
function feeWords(text: string): string[] {
  const m = text.match(/\b(?:for|of) (an? .+?)(?:\?|\.|$| on the fee schedule)/i);
  return textTokens(m ? m[1] : text)
    .filter((w) => !STOP.has(w))
    .map(stem);
}

/** Rows of a two-column table on the page: a label cell and the value cell on the same line. */
function tableRows(obs: Observation): Array<{ item: string; value: string }> {
  const cells = obs.texts.filter((t) => t.tag === 'td' && t.bbox);
  const out: Array<{ item: string; value: string }> = [];
  for (const c of cells) {
    if (/^\$/.test(c.text)) continue;
    const v = cells.find(
      (x) =>
        x !== c && /^\$[\d,.]+$/.test(x.text.trim()) && Math.abs((x.bbox?.y ?? 0) - (c.bbox?.y ?? 0)) < 6,
    );
    if (v) out.push({ item: c.text, value: v.text.trim() });
  }
  return out;
}

function fee(ctx: SkillContext): Choice | null {
  const { obs, goal } = ctx;
  const words = feeWords(goal.text);
  const rows = tableRows(obs);
  if (rows.length) {
    let best: { item: string; value: string } | null = null;
    let score = 0;
    for (const r of rows) {
      const rw = new Set(textTokens(r.item).map(stem));
      const hit = words.filter((w) => rw.has(w)).length / Math.max(1, words.length);
      if (hit > score + 1e-9) {
        best = r;
        score = hit;
      }
    }
    if (best && score >= 0.99)
      return {
        action: { type: 'done', text: `${best.item}: ${best.value}`, success: true },
        goal: 'Answer with the fee',
      };
    // Not in this category: try the tabs, the most related first, each once.
    const tabs = obs.elements.filter(
      (e) => e.role === 'tab' && e.attributes['aria-selected'] !== 'true' && !ctx.acted(e),
    );
    const related = (e: Element) =>
      textTokens(labelOf(e))
        .map(stem)
        .filter((w) => words.includes(w)).length;
    const tab = [...tabs].sort((a, b) => related(b) - related(a))[0];
    if (tab) return click(tab, `Open the "${labelOf(tab)}" fees`);
    if (best && score >= 0.6)
      return {
        action: { type: 'done', text: `${best.item}: ${best.value}`, success: true },
        goal: 'Answer with the closest fee',
      };
    return null;
  }
  const link = find(obs, /^(fees|fee schedule)$/i);
  if (link && !ctx.acted(link)) return click(link, 'Open the fee schedule');
  return null;
}

function status(ctx: SkillContext): Choice | null {
  const { obs, goal, history } = ctx;
  const result = obs.texts.map((t) => t.text).find((t) => /^status:\s*\S/i.test(t));
  if (result)
    return {
      action: { type: 'done', text: result.replace(/^status:\s*/i, ''), success: true },
      goal: 'Report the status',
    };
  const code =
    goal.text.match(/\b[A-Z]{2,5}-\d{4}-\d{4,}\b/)?.[0] ?? goal.text.match(/\b[A-Z]{2,5}-[\d-]{6,}\b/)?.[0];
  const last =
    goal.text.match(/\blast name (?:is )?([A-Z][a-z'-]+)/)?.[1] ??
    goal.text.match(/\b(?:of|for) ([A-Z][a-z'-]+)['\u2019]s\b/)?.[1] ??
    goal.text.match(/\b([A-Z][a-z'-]+)['\u2019]s (?:application|[a-z ]+ application)/)?.[1];
  const confField = obs.elements.find(
    (e) => isEditable(e) && /confirmation|application (number|id)|reference/i.test(labelOf(e)),
  );
  if (!confField) {
    const link = find(obs, /^check (the )?status$|status/i);
    return link ? click(link, 'Open the status lookup') : null;
  }
  if (code && normalizeText(confField.attributes.value ?? '') !== normalizeText(code))
    return {
      action: { type: 'input', index: confField.index, text: code, clear: true },
      goal: 'Enter the confirmation number',
    };
  const lastField = obs.elements.find((e) => isEditable(e) && /last name|surname/i.test(labelOf(e)));
  if (lastField && last && normalizeText(lastField.attributes.value ?? '') !== normalizeText(last))
    return {
      action: { type: 'input', index: lastField.index, text: last, clear: true },
      goal: 'Enter the last name',
    };
  const go = obs.elements.find(
    (e) => isClickable(e) && e.tag === 'button' && /check|look ?up|search|submit/i.test(labelOf(e)),
  );
  if (go && !(history.at(-1)?.action.type === 'click' && ctx.acted(go)))
    return click(go, 'Look up the status');
  return null;
}
