import {
  type Action,
  type ActionErrorKind,
  actionsEquivalent,
  argumentSimilarity,
  DISMISS_WORD_RE,
  type Element,
  elementAt,
  elementsEquivalent,
  formatAction,
  normalizeText,
  normalizeUrl,
  type Observation,
  type Step,
} from '../core/index.ts';
import type { Divergence } from './divergence.ts';
import type { Tagger, TagResult } from './taxonomy.ts';

/**
 * The offline tagger: the rules of TAXONOMY (taxonomy.ts), applied in order. Each rule reads only the
 * two trajectories around the divergence, so the same pair always gets the same label and reason.
 */

const CONSTRAINT_ROLES = new Set([
  'checkbox',
  'radio',
  'option',
  'combobox',
  'switch',
  'menuitemcheckbox',
  'menuitemradio',
]);
const CONSTRAINT_NAME_RE =
  /\b(sort|filter|filters|price|low to high|high to low|cheapest|rating|stars?|size|colou?r|category|brand|refine|apply|in stock|newest|oldest|min|max|under|range|only)\b/i;
/** Share of name tokens two different elements must share to count as lookalikes. */
const LOOKALIKE_MIN_F1 = 0.5;
const NAV_TYPES = new Set<Action['type']>(['navigate', 'go_back', 'switch_tab', 'close_tab']);
const ACT_TYPES = new Set<Action['type']>(['click', 'input', 'select_dropdown', 'send_keys']);

function targetOf(step: Step): Element | undefined {
  const a = step.action;
  if (a.type === 'click' || a.type === 'input' || a.type === 'select_dropdown') {
    return elementAt(step.observation, a.index);
  }
  return undefined;
}

function labelOf(e: Element): string {
  return e.name || e.text || e.attributes['aria-label'] || e.attributes.placeholder || '';
}

/** `click(12 "Trail Runner 2")`: the action with the name of its element, for reasons people read. */
export function describeAction(step: Step): string {
  const e = targetOf(step);
  const base = formatAction(step.action);
  return e ? `${base} on ${e.tag} "${labelOf(e).slice(0, 60)}"` : base;
}

function urlPath(url: string, base?: string): string {
  const n = normalizeUrl(url, base);
  const q = n.indexOf('?');
  return q >= 0 ? n.slice(0, q) : n;
}

function hasModal(obs: Observation): boolean {
  return obs.elements.some(
    (e) => e.role === 'dialog' || e.role === 'alertdialog' || e.attributes['aria-modal'] === 'true',
  );
}

function overlayEvidence(d: Divergence): string | null {
  const steps = d.failure.trajectory.steps;
  const f = steps[d.j];
  const next = steps[d.j + 1]?.observation;
  const errors: Array<[ActionErrorKind | undefined, string | null | undefined]> = [
    [f.observation.lastActionErrorKind, f.observation.lastActionError],
    [f.result.errorKind, f.result.error],
    [next?.lastActionErrorKind, next?.lastActionError],
  ];
  const hit = errors.find(([kind]) => kind === 'covered');
  if (hit) return `the failure's action ran into an overlay: "${(hit[1] ?? '').slice(0, 120)}"`;
  const s = d.success.trajectory.steps[d.i];
  const se = targetOf(s);
  if (hasModal(f.observation) && se && s.action.type === 'click' && DISMISS_WORD_RE.test(labelOf(se))) {
    return `a dialog covers the failure page and the success dismissed it with ${describeAction(s)}`;
  }
  return null;
}

function consecutiveScrolls(steps: Step[], j: number): number {
  let n = 0;
  for (let k = j; k < steps.length && steps[k].action.type === 'scroll'; k++) n++;
  return n;
}

function repetitions(d: Divergence): number {
  const steps = d.failure.trajectory.steps;
  const states = d.failure.states;
  const f = steps[d.j];
  let count = 0;
  for (let k = 0; k < steps.length; k++) {
    if (k === d.j || states[k].fingerprint !== states[d.j].fingerprint) continue;
    if (actionsEquivalent(steps[k].action, f.action, steps[k].observation, f.observation)) count++;
  }
  return count;
}

function loopedNeighbour(d: Divergence): boolean {
  const t = d.failure.trajectory;
  if (t.endReason !== 'loop') return false;
  const f = t.steps[d.j];
  return [t.steps[d.j - 1], t.steps[d.j + 1]].some(
    (n) => n !== undefined && actionsEquivalent(n.action, f.action, n.observation, f.observation),
  );
}

function isConstraintAction(step: Step): boolean {
  if (step.action.type === 'select_dropdown') return true;
  const e = targetOf(step);
  if (!e) return false;
  return CONSTRAINT_ROLES.has(e.role.toLowerCase()) || CONSTRAINT_NAME_RE.test(labelOf(e));
}

function failureLaterDoes(d: Divergence, s: Step): boolean {
  const se = targetOf(s);
  if (!se) return false;
  const steps = d.failure.trajectory.steps;
  for (let k = d.j; k < steps.length; k++) {
    const f = steps[k];
    if (f.action.type !== s.action.type) continue;
    if (elementsEquivalent(se, targetOf(f), s.observation, f.observation)) return true;
  }
  return false;
}

function destinationPath(d: Divergence, side: 'success' | 'failure'): string {
  const t = side === 'success' ? d.success.trajectory : d.failure.trajectory;
  const k = side === 'success' ? d.i : d.j;
  const step = t.steps[k];
  const e = targetOf(step);
  if (step.action.type === 'click' && e?.attributes.href)
    return urlPath(e.attributes.href, step.observation.url);
  const next = t.steps[k + 1];
  return next ? urlPath(next.observation.url) : '';
}

/** Sorted non-empty query parameters of a URL ('' when none or unparsable). */
function queryOf(url: string): string {
  try {
    const u = new URL(url);
    return [...u.searchParams.entries()]
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join('&');
  } catch {
    return '';
  }
}

/** Applies the taxonomy's rules, in order, to one divergence. */
export function tagByRules(d: Divergence): TagResult {
  const s = d.success.trajectory.steps[d.i];
  const f = d.failure.trajectory.steps[d.j];
  const sa = s.action;
  const fa = f.action;
  const both = `success ${describeAction(s)} vs failure ${describeAction(f)}`;

  if (fa.type === 'done' && sa.type !== 'done') {
    return { label: 'premature-done', reason: `failure declared done at step ${f.index}; ${both}` };
  }
  const overlay = overlayEvidence(d);
  if (overlay) return { label: 'blocked-by-overlay', reason: `${overlay}; ${both}` };

  const se = targetOf(s);
  const fe = targetOf(f);
  const sameElement = elementsEquivalent(se, fe, s.observation, f.observation);
  if (
    (sa.type === 'input' || sa.type === 'select_dropdown') &&
    fa.type === sa.type &&
    sameElement &&
    normalizeText(sa.text) !== normalizeText(fa.text)
  ) {
    return { label: 'input-error', reason: `same field, different value: ${both}` };
  }
  if (sa.type === 'done' && fa.type === 'done' && sa.success === fa.success) {
    // Answering from a results page whose sort/filter parameters differ is a skipped constraint,
    // not a misread value.
    const sq = queryOf(s.observation.url);
    const fq = queryOf(f.observation.url);
    if (urlPath(s.observation.url) === urlPath(f.observation.url) && sq !== fq) {
      return {
        label: 'missed-constraint',
        reason: `different final answers from the same page with other query parameters (${sq || 'none'} vs ${fq || 'none'}): ${both}`,
      };
    }
    return { label: 'input-error', reason: `different final answers: ${both}` };
  }
  // A lookalike is taken for the right one: the same kind of action on another, similar element
  // (typing into "Search mail" is not clicking a lookalike of the "Search" button).
  if (se && fe && !sameElement && sa.type === fa.type) {
    const sim = argumentSimilarity(labelOf(se), labelOf(fe));
    if (labelOf(se).trim() && sim >= LOOKALIKE_MIN_F1) {
      return {
        label: 'lookalike-element',
        reason: `different elements with similar names (token F1 ${sim.toFixed(2)}, nodeKeys ${se.nodeKey} / ${fe.nodeKey}): ${both}`,
      };
    }
  }
  if (fa.type === 'scroll' && ACT_TYPES.has(sa.type)) {
    const n = consecutiveScrolls(d.failure.trajectory.steps, d.j);
    if (n >= 2) return { label: 'scroll-stall', reason: `failure scrolled ${n} times in a row; ${both}` };
  }
  const reps = repetitions(d);
  if (reps > 0 || loopedNeighbour(d)) {
    return {
      label: 'repetition-loop',
      reason: `failure repeated ${describeAction(f)} ${reps + 1} times on the same page; ${both}`,
    };
  }
  if (isConstraintAction(s) && !failureLaterDoes(d, s)) {
    return {
      label: 'missed-constraint',
      reason: `success applied a constraint the failure never applied: ${both}`,
    };
  }
  if (NAV_TYPES.has(fa.type) || sa.type === 'navigate' || sa.type === 'go_back') {
    return { label: 'wrong-navigation', reason: `navigation differs: ${both}` };
  }
  const sp = destinationPath(d, 'success');
  const fp = destinationPath(d, 'failure');
  if (sp && fp && sp !== fp) {
    return {
      label: 'wrong-navigation',
      reason: `the actions lead to different pages (${sp} vs ${fp}): ${both}`,
    };
  }
  return { label: 'other', reason: `no rule matched: ${both}` };
}

/** The rules tagger as a Tagger (labelSource 'rules'). */
export const rulesTagger: Tagger = { id: 'rules', tag: tagByRules };
