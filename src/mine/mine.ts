import {
  type CriticalState,
  type FailureLabel,
  formatAction,
  type Observation,
  stableId,
  type Trajectory,
} from '../core/index.ts';
import {
  type ComparabilityWeights,
  DEFAULT_COMPARABILITY_WEIGHTS,
  DEFAULT_MIN_COMPARABILITY,
} from './comparability.ts';
import {
  chooseDivergence,
  DEFAULT_LABEL_PRIORS,
  DEFAULT_RECENCY_DECAY,
  DEFAULT_RECOVERABLE_PRIOR,
  type Divergence,
  divergenceScore,
  findDivergences,
} from './divergence.ts';
import { pairTrajectories } from './pairing.ts';
import { rulesTagger } from './rules-tagger.ts';
import { Interner, type TrajectoryFeatures, trajectoryFeatures } from './state-features.ts';
import { emptyMineStats, type MineStats } from './stats.ts';
import type { Tagger, TagResult } from './taxonomy.ts';

/** Options of a mining run; every default is documented where it is defined. */
export interface MineOptions {
  /** Comparability weights (comparability.ts); missing parts take the defaults. */
  weights?: Partial<ComparabilityWeights>;
  /** Minimum comparability total for two states to be aligned. Default DEFAULT_MIN_COMPARABILITY (0.7). */
  minComparability?: number;
  /** Labels candidate divergences. Default: the offline rules tagger. */
  tagger?: Tagger;
  /** Soft prior per label (divergence.ts); missing labels take the defaults. */
  labelPriors?: Partial<Record<FailureLabel, number>>;
  /** Discount per step back from the last candidate. Default 0.85. */
  recencyDecay?: number;
  /**
   * Multiplier on candidates the failure run could still undo (divergence.ts
   * `successActionRecoverable`). Default DEFAULT_RECOVERABLE_PRIOR (0.3); 1 turns it off.
   */
  recoverablePrior?: number;
  /**
   * Drop recoverable candidates instead of discounting them: a pair whose every candidate is
   * recoverable yields no critical state (counted in `stats.pairsAllRecoverable`). Trades yield for
   * precision: such states are the ones causal verification finds not causal. Default false.
   */
  dropRecoverable?: boolean;
  /** Candidates the backward walk collects per pair, latest first. Default 5. */
  maxCandidates?: number;
  /**
   * Keep one critical state per success state (the best-scoring pair's), since only the success side
   * enters RL and several failures often diverge from the same success step. A success state is
   * identified by its content (task, step, URL, ground-truth action), so two identical successful
   * runs of a deterministic teacher count once. Default true.
   */
  dedupe?: boolean;
  /** Pairs mined at once; more than 1 only helps a tagger that waits on a model. Default 1. */
  concurrency?: number;
  /** Called after each pair. */
  onProgress?: (done: number, total: number) => void;
}

export interface MineResult {
  criticalStates: CriticalState[];
  stats: MineStats;
}

/** Transient and training-forbidden fields never leave the miner: notes and screenshot bytes. */
function forTraining(obs: Observation): Observation {
  const screenshot = obs.screenshot ? { ...obs.screenshot } : null;
  if (screenshot) delete screenshot.data;
  return { ...obs, notes: [], screenshot };
}

function side(f: TrajectoryFeatures, k: number): CriticalState['success'] {
  const t = f.trajectory;
  const step = t.steps[k];
  return {
    trajectoryId: t.id,
    stepIndex: step.index,
    observation: forTraining(step.observation),
    action: step.action,
    history: t.steps.slice(0, k).map((s) => s.action),
    historyUrls: t.steps.slice(0, k).map((s) => s.observation.url),
  };
}

/** Builds the critical state of a chosen divergence: the success side's action is the ground truth. */
export function toCriticalState(d: Divergence, tag: TagResult, labelSource: string): CriticalState {
  const s = d.success.trajectory;
  const f = d.failure.trajectory;
  return {
    schemaVersion: 1,
    id: stableId('cs', s.id, s.steps[d.i].index, f.id, f.steps[d.j].index),
    task: s.task,
    success: side(d.success, d.i),
    failure: side(d.failure, d.j),
    comparability: d.comparability,
    label: tag.label,
    labelSource,
    labelReason: tag.reason,
  };
}

interface PairResult {
  candidates: number;
  recoverable: number;
  tagCalls: number;
  labelChangedChoice: boolean;
  chosen: { divergence: Divergence; tag: TagResult; score: number } | null;
}

/**
 * Tags a pair's candidates latest first and keeps the best score (ties go to the later candidate).
 * A candidate whose best possible score (any label) cannot beat the best so far is not tagged: the
 * choice equals tagging them all, with fewer tagger (model) calls.
 */
async function chooseTagged(
  all: Divergence[],
  tagger: Tagger,
  priors: Record<FailureLabel, number>,
  recencyDecay: number,
  recoverablePrior: number,
  dropRecoverable: boolean,
): Promise<PairResult> {
  const recoverable = all.filter((d) => d.recoverable).length;
  const candidates = dropRecoverable ? all.filter((d) => !d.recoverable) : all;
  const maxPrior = Math.max(...Object.values(priors));
  let chosen: PairResult['chosen'] = null;
  let chosenIndex = -1;
  let tagCalls = 0;
  for (let k = 0; k < candidates.length; k++) {
    const bound = divergenceScore(candidates[k], null, priors, recencyDecay, recoverablePrior) * maxPrior;
    if (chosen && bound <= chosen.score) continue;
    const tag = await tagger.tag(candidates[k]);
    tagCalls++;
    const score = divergenceScore(candidates[k], tag.label, priors, recencyDecay, recoverablePrior);
    if (!chosen || score > chosen.score) {
      chosen = { divergence: candidates[k], tag, score };
      chosenIndex = k;
    }
  }
  const labelChangedChoice =
    chosen !== null &&
    chosenIndex !== chooseDivergence(candidates, [], priors, recencyDecay, recoverablePrior);
  return { candidates: all.length, recoverable, tagCalls, labelChangedChoice, chosen };
}

/** Candidate divergences scored per pair, latest first, unless told otherwise. */
export const DEFAULT_MAX_CANDIDATES = 5;

/**
 * Mines critical states from trajectories (from any number of run stores): pairs each verified success
 * with the failed and wandering runs of its task, aligns each pair on state comparability, walks the
 * alignment backwards to the candidate divergences, tags them and keeps the best by comparability x
 * label prior x recency. A pure function of its inputs (and the tagger's answers): the same
 * trajectories give the same critical states, in the same order, with the same ids.
 */
export async function mineCriticalStates(
  trajectories: readonly Trajectory[],
  opts: MineOptions = {},
): Promise<MineResult> {
  const started = performance.now();
  const weights: ComparabilityWeights = { ...DEFAULT_COMPARABILITY_WEIGHTS, ...opts.weights };
  const minComparability = opts.minComparability ?? DEFAULT_MIN_COMPARABILITY;
  const tagger = opts.tagger ?? rulesTagger;
  const priors: Record<FailureLabel, number> = { ...DEFAULT_LABEL_PRIORS, ...opts.labelPriors };
  const recencyDecay = opts.recencyDecay ?? DEFAULT_RECENCY_DECAY;
  const recoverablePrior = opts.recoverablePrior ?? DEFAULT_RECOVERABLE_PRIOR;
  const dropRecoverable = opts.dropRecoverable ?? false;
  const maxCandidates = opts.maxCandidates ?? DEFAULT_MAX_CANDIDATES;
  const dedupe = opts.dedupe ?? true;

  const { pairs, summary } = pairTrajectories(trajectories);
  const stats = emptyMineStats(summary, {
    minComparability,
    weights,
    labelPriors: priors,
    recencyDecay,
    recoverablePrior,
    dropRecoverable,
    maxCandidates,
    dedupe,
    tagger: tagger.id,
  });

  const interner = new Interner();
  const cache = new Map<string, TrajectoryFeatures>();
  const features = (t: Trajectory): TrajectoryFeatures => {
    let f = cache.get(t.id);
    if (!f) {
      f = trajectoryFeatures(t, interner);
      cache.set(t.id, f);
    }
    return f;
  };

  // Features first, in pair order: interned ids (and so float summation order) never depend on timing.
  for (const pair of pairs) {
    features(pair.success);
    features(pair.failure);
  }

  // Each pair is mined on its own (tagging may wait on a model, so pairs run `concurrency` at a
  // time); results are then merged in pair order, so the output never depends on timing.
  const results: Array<PairResult | null> = new Array(pairs.length).fill(null);
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (next < pairs.length) {
      const p = next++;
      const pair = pairs[p];
      const candidates = findDivergences(features(pair.success), features(pair.failure), {
        weights,
        minComparability,
        maxCandidates,
      });
      results[p] = await chooseTagged(
        candidates,
        tagger,
        priors,
        recencyDecay,
        recoverablePrior,
        dropRecoverable,
      );
      opts.onProgress?.(++finished, pairs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 1) }, worker));

  const out: CriticalState[] = [];
  const scores: number[] = [];
  const bySuccessState = new Map<string, number>();
  for (let p = 0; p < pairs.length; p++) {
    const pair = pairs[p];
    const r = results[p]!;
    const site = pair.success.task.site;
    const siteStats = stats.perSite[site] ?? { pairs: 0, criticalStates: 0, successSteps: 0, yield: 0 };
    stats.perSite[site] = siteStats;
    siteStats.pairs++;
    stats.pairsConsidered++;
    stats[pair.failureKind === 'failed' ? 'failedPairs' : 'wanderingPairs']++;
    stats.candidates += r.candidates;
    stats.recoverableCandidates += r.recoverable;
    stats.tagCalls += r.tagCalls;
    if (r.candidates > 0) stats.pairsWithDivergence++;
    if (r.candidates > 0 && r.recoverable === r.candidates) stats.pairsAllRecoverable++;
    if (!r.chosen) continue;
    if (r.labelChangedChoice) stats.labelChangedChoice++;
    const { divergence, tag, score } = r.chosen;
    if (divergence.recoverable) stats.recoverableChosen++;
    const cs = toCriticalState(divergence, tag, tag.source ?? tagger.id);
    const key = [
      cs.task.id,
      cs.success.stepIndex,
      cs.success.observation.url,
      formatAction(cs.success.action),
    ].join('\u0000');
    const prev = dedupe ? bySuccessState.get(key) : undefined;
    if (prev === undefined) {
      if (dedupe) bySuccessState.set(key, out.length);
      out.push(cs);
      scores.push(score);
    } else {
      stats.duplicatesMerged++;
      if (score > scores[prev]) {
        out[prev] = cs;
        scores[prev] = score;
      }
    }
  }

  for (const cs of out) {
    stats.perLabel[cs.label]++;
    stats.perSite[cs.task.site].criticalStates++;
  }
  stats.criticalStates = out.length;
  stats.yield = summary.successSteps > 0 ? out.length / summary.successSteps : 0;
  for (const [site, s] of Object.entries(stats.perSite)) {
    s.successSteps = summary.successStepsBySite[site] ?? 0;
    s.yield = s.successSteps > 0 ? s.criticalStates / s.successSteps : 0;
  }
  stats.elapsedMs = Math.round(performance.now() - started);
  return { criticalStates: out, stats };
}
