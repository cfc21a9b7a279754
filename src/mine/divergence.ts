import {
  actionsEquivalent,
  type Comparability,
  elementAt,
  elementsEquivalent,
  type FailureLabel,
  type Trajectory,
  targetIndex,
} from '../core/index.ts';
import { alignRuns } from './align.ts';
import { type ComparabilityWeights, comparability } from './comparability.ts';
import type { TrajectoryFeatures } from './state-features.ts';

/**
 * A candidate divergence: an aligned pair of comparable states (position `i` on the success side, `j`
 * on the failure side) where the two runs chose semantically different actions.
 */
export interface Divergence {
  success: TrajectoryFeatures;
  failure: TrajectoryFeatures;
  i: number;
  j: number;
  comparability: Comparability;
  /** 0 for the last candidate of the backward walk, 1 for the one before it, ... */
  rankFromEnd: number;
  /** The failure run could still take the success action after its own (`successActionRecoverable`). */
  recoverable: boolean;
}

export interface DivergenceOptions {
  weights: ComparabilityWeights;
  minComparability: number;
  /** How many candidates the backward walk collects, latest first. */
  maxCandidates: number;
}

/**
 * Aligns the two runs and walks the alignment backwards from the end, collecting the comparable pairs
 * whose actions differ (core `actionsEquivalent`, across the two observations). Returns them latest
 * first; empty when the runs never diverge from comparable states.
 */
export function findDivergences(
  success: TrajectoryFeatures,
  failure: TrajectoryFeatures,
  opts: DivergenceOptions,
): Divergence[] {
  const pairs = alignRuns(success.states, failure.states, opts.weights, opts.minComparability);
  const out: Divergence[] = [];
  for (let k = pairs.length - 1; k >= 0 && out.length < opts.maxCandidates; k--) {
    const { i, j } = pairs[k];
    const s = success.trajectory.steps[i];
    const f = failure.trajectory.steps[j];
    if (actionsEquivalent(s.action, f.action, s.observation, f.observation)) continue;
    out.push({
      success,
      failure,
      i,
      j,
      comparability: comparability(success.states[i], failure.states[j], opts.weights),
      rankFromEnd: out.length,
      recoverable: successActionRecoverable(success.trajectory, i, failure.trajectory, j),
    });
  }
  return out;
}

/**
 * Whether the failure run, after taking its action at position `j`, could still take the success
 * action of position `i`: a later state of the failure run offers an element equivalent (core
 * `elementsEquivalent`, across the two pages) to the success action's target. An action without a
 * target (done, navigate, go back, scroll, keys) can be taken from any page, so it stays available
 * as long as the failure run goes on. A success target missing from its own page counts as not
 * available (nothing to compare).
 *
 * Why it matters: a divergence the failure run could still undo in place (a radio button, a typed
 * field, a sort left unset on a results page that still shows the control) does not by itself
 * decide the outcome. A continuation that knows what to do takes the success action a step later
 * and recovers, which causal verification reports as not-causal. The action the run could not take
 * back (an answer given, a form submitted, a page left for good) is the one that decided it.
 */
export function successActionRecoverable(
  success: Trajectory,
  i: number,
  failure: Trajectory,
  j: number,
): boolean {
  if (j + 1 >= failure.steps.length) return false;
  const s = success.steps[i];
  const index = targetIndex(s.action);
  if (index === null) return true;
  const src = elementAt(s.observation, index);
  if (!src) return false;
  for (let k = j + 1; k < failure.steps.length; k++) {
    const obs = failure.steps[k].observation;
    for (const e of obs.elements) if (elementsEquivalent(src, e, s.observation, obs)) return true;
  }
  return false;
}

/**
 * Multiplier on the score of a recoverable candidate (`successActionRecoverable`): measured by
 * `mine --verify` on teacher pairs, such states were not causal (the continuation redoes the right
 * value), so an irreversible divergence of the same pair, even a less comparable or earlier one,
 * should win. Like the label prior it only reorders.
 */
export const DEFAULT_RECOVERABLE_PRIOR = 0.3;

/**
 * The soft prior over labels: a multiplier on a candidate's score. Labels that name a cause of the
 * failure (a lookalike taken, a constraint skipped, a wrong value, an early answer) keep 1; labels
 * that usually describe a symptom downstream of an earlier cause (ending up on another page, looping,
 * scrolling) are discounted, and 'other' (no specific cause found) most, so an explained divergence
 * a step or two earlier can win. A prior never drops a candidate or a pair: it only reorders.
 */
export const DEFAULT_LABEL_PRIORS: Readonly<Record<FailureLabel, number>> = Object.freeze({
  'lookalike-element': 1,
  'missed-constraint': 1,
  'input-error': 1,
  'premature-done': 1,
  'blocked-by-overlay': 0.95,
  'wrong-navigation': 0.8,
  'repetition-loop': 0.75,
  'scroll-stall': 0.75,
  other: 0.5,
});

/** Per-step discount of earlier candidates: the walk prefers the last divergence. */
export const DEFAULT_RECENCY_DECAY = 0.85;

/**
 * score = comparability total x label prior x decay^rankFromEnd, x `recoverablePrior` when the
 * failure run could still take the success action afterwards (1 by default here: no discount).
 */
export function divergenceScore(
  d: Divergence,
  label: FailureLabel | null,
  priors: Readonly<Record<FailureLabel, number>>,
  recencyDecay: number,
  recoverablePrior = 1,
): number {
  const prior = label === null ? 1 : (priors[label] ?? 1);
  const reversibility = d.recoverable ? recoverablePrior : 1;
  return d.comparability.total * prior * reversibility * recencyDecay ** d.rankFromEnd;
}

/**
 * Picks the best-scoring candidate (ties go to the later one). Returns -1 only for an empty list:
 * whatever the labels, a pair with a candidate yields a choice.
 */
export function chooseDivergence(
  candidates: readonly Divergence[],
  labels: ReadonlyArray<FailureLabel | null>,
  priors: Readonly<Record<FailureLabel, number>>,
  recencyDecay: number,
  recoverablePrior = 1,
): number {
  let best = -1;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < candidates.length; k++) {
    const s = divergenceScore(candidates[k], labels[k] ?? null, priors, recencyDecay, recoverablePrior);
    if (s > bestScore) {
      best = k;
      bestScore = s;
    }
  }
  return best;
}
