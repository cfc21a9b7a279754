import { FailureLabel } from '../core/index.ts';
import type { ComparabilityWeights } from './comparability.ts';
import type { PairingSummary } from './pairing.ts';

/** Per-site counts of a mining run. */
export interface SiteMineStats {
  pairs: number;
  criticalStates: number;
  successSteps: number;
  yield: number;
}

/** What a mining run did, printed and saved as JSON beside its output. */
export interface MineStats extends PairingSummary {
  pairsConsidered: number;
  failedPairs: number;
  wanderingPairs: number;
  /** Pairs whose alignment held at least one divergence from comparable states. */
  pairsWithDivergence: number;
  /** Candidate divergences found over all pairs. */
  candidates: number;
  /** Candidates the failure run could still undo (divergence.ts `successActionRecoverable`). */
  recoverableCandidates: number;
  /** Diverging pairs whose every candidate is recoverable (no state when dropRecoverable is set). */
  pairsAllRecoverable: number;
  /** Pairs whose chosen divergence is recoverable (before merging duplicates). */
  recoverableChosen: number;
  /** Tagger calls made (candidates that could not win were not tagged). */
  tagCalls: number;
  /** Pairs where the label prior chose a different candidate than comparability and recency alone. */
  labelChangedChoice: number;
  /** Critical states merged because another pair diverged from the same success state. */
  duplicatesMerged: number;
  criticalStates: number;
  /** Critical states over success steps (the paper keeps about 3%). */
  yield: number;
  perLabel: Record<FailureLabel, number>;
  perSite: Record<string, SiteMineStats>;
  options: {
    minComparability: number;
    weights: ComparabilityWeights;
    labelPriors: Record<FailureLabel, number>;
    recencyDecay: number;
    recoverablePrior: number;
    dropRecoverable: boolean;
    maxCandidates: number;
    dedupe: boolean;
    tagger: string;
  };
  elapsedMs: number;
}

export function emptyMineStats(summary: PairingSummary, options: MineStats['options']): MineStats {
  const perLabel = Object.fromEntries(FailureLabel.options.map((l) => [l, 0])) as Record<
    FailureLabel,
    number
  >;
  return {
    ...summary,
    successStepsBySite: { ...summary.successStepsBySite },
    pairsConsidered: 0,
    failedPairs: 0,
    wanderingPairs: 0,
    pairsWithDivergence: 0,
    candidates: 0,
    recoverableCandidates: 0,
    pairsAllRecoverable: 0,
    recoverableChosen: 0,
    tagCalls: 0,
    labelChangedChoice: 0,
    duplicatesMerged: 0,
    criticalStates: 0,
    yield: 0,
    perLabel,
    perSite: {},
    options,
    elapsedMs: 0,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

/** A short human-readable report of a mining run. */
export function formatMineStats(s: MineStats): string {
  const lines = [
    `trajectories ${s.trajectories} (${s.successes} success, ${s.failed} failed, ${s.wandering} wandering, ` +
      `${s.unverified} unverified${s.duplicates ? `, ${s.duplicates} duplicate` : ''}${s.empty ? `, ${s.empty} empty` : ''}) over ${s.tasks} tasks`,
    `pairs considered ${s.pairsConsidered} (${s.failedPairs} failed, ${s.wanderingPairs} wandering) from ${s.tasksWithPairs} tasks; ` +
      `${s.pairsWithDivergence} diverge from comparable states (${s.candidates} candidates, label changed the choice in ${s.labelChangedChoice})`,
    `recoverable (the failure run could still take the success action): ${s.recoverableCandidates} of the candidates, ` +
      `all candidates of ${s.pairsAllRecoverable} pairs${s.options.dropRecoverable ? ' (dropped)' : ''}, the choice in ${s.recoverableChosen} pairs`,
    `critical states ${s.criticalStates}${s.duplicatesMerged ? ` (${s.duplicatesMerged} merged duplicates)` : ''}; ` +
      `yield ${pct(s.yield)} of ${s.successSteps} success steps; ${s.elapsedMs} ms`,
    'per label:',
    ...FailureLabel.options.filter((l) => s.perLabel[l] > 0).map((l) => `  ${l.padEnd(20)} ${s.perLabel[l]}`),
    'per site:',
    ...Object.keys(s.perSite)
      .sort()
      .map((site) => {
        const x = s.perSite[site];
        return `  ${site.padEnd(20)} pairs ${x.pairs}, critical states ${x.criticalStates}, yield ${pct(x.yield)}`;
      }),
  ];
  return lines.join('\n');
}
