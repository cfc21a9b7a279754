import { actionsEquivalent, type Comparability, type FailureLabel } from '../core/index.ts';
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
    });
  }
  return out;
}

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

/** score = comparability total x label prior x decay^rankFromEnd. */
export function divergenceScore(
  d: Divergence,
  label: FailureLabel | null,
  priors: Readonly<Record<FailureLabel, number>>,
  recencyDecay: number,
): number {
  const prior = label === null ? 1 : (priors[label] ?? 1);
  return d.comparability.total * prior * recencyDecay ** d.rankFromEnd;
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
): number {
  let best = -1;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < candidates.length; k++) {
    const s = divergenceScore(candidates[k], labels[k] ?? null, priors, recencyDecay);
    if (s > bestScore) {
      best = k;
      bestScore = s;
    }
  }
  return best;
}
