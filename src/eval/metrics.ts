import type { Trajectory } from '../core/trajectory.ts';
import { isScored, type RewardLedger } from './ledger.ts';

/** Mean and spread of a success rate over runs. */
export interface RateOverRuns {
  mean: number;
  /** Sample standard deviation over runs (0 with one run). */
  std: number;
  min: number;
  max: number;
  perRun: number[];
  tasks: number;
}

/** What `rmsweb eval` reports for one agent on one suite. */
export interface EvalSummary {
  agentId: string;
  suite: string;
  runs: number;
  tasks: number;
  episodes: number;
  /** pass@1 averaged over runs. */
  pass1: RateOverRuns;
  perSite: Record<string, RateOverRuns>;
  perLevel: Record<string, RateOverRuns>;
  perCategory: Record<string, RateOverRuns>;
  /** Mean actions on solved episodes. */
  meanStepsSolved: number | null;
  /** Histogram of step counts on solved episodes: steps -> count. */
  stepsHistogram: Record<string, number>;
  costUsd: number;
  /** Sum of episode durations (s); the command's wall time is reported separately. */
  episodeSeconds: number;
  /** World suite: the perturbation seed each run's episodes recorded (0: today's pages), by run. */
  perturbSeeds?: number[];
  /** Why the evaluation made fewer runs than asked (runs that could not differ). */
  runsNote?: string;
  /** Runs asked for, when fewer were made (see runsNote). */
  requestedRuns?: number;
  /**
   * Episodes that could not be run (model endpoint down, browser lost): left out of pass@1 and
   * retried by the next run of the same command. Absent where nothing counted them.
   */
  errored?: number;
  /**
   * Where each episode's reward came from, and which episodes pass@1 leaves out and why
   * (infrastructure errors, judge errors); absent in summaries written before it existed.
   */
  ledger?: RewardLedger;
}

function rate(trajs: Trajectory[], runs: number[]): RateOverRuns {
  const perRun = runs.map((r) => {
    const rs = trajs.filter((t) => t.round === r);
    return rs.length ? rs.filter((t) => t.verdict?.success).length / rs.length : 0;
  });
  const mean = perRun.reduce((a, b) => a + b, 0) / Math.max(1, perRun.length);
  const std =
    perRun.length > 1 ? Math.sqrt(perRun.reduce((a, b) => a + (b - mean) ** 2, 0) / (perRun.length - 1)) : 0;
  return {
    mean,
    std,
    min: perRun.length ? Math.min(...perRun) : 0,
    max: perRun.length ? Math.max(...perRun) : 0,
    perRun,
    tasks: new Set(trajs.map((t) => t.task.id)).size,
  };
}

function groupBy(
  trajs: Trajectory[],
  key: (t: Trajectory) => string | undefined,
  runs: number[],
): Record<string, RateOverRuns> {
  const groups = new Map<string, Trajectory[]>();
  for (const t of trajs) {
    const k = key(t);
    if (k === undefined) continue;
    groups.set(k, [...(groups.get(k) ?? []), t]);
  }
  return Object.fromEntries(
    [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, rate(v, runs)]),
  );
}

/**
 * pass@1 averaged over runs: each run attempts every task once (the run index is the trajectory's
 * `round`); a run's pass@1 is its success rate; the summary averages runs and gives their spread.
 * Episodes whose judge gave no usable verdict (judge errors) are left out, as episodes that could
 * not be run are; both are counted in the ledger (`ledger.ts`).
 */
export function summarizeEval(all: Trajectory[], opts: { agentId: string; suite: string }): EvalSummary {
  // A judge error is not a verdict: such episodes are counted in the ledger, not in pass@1.
  const trajs = all.filter((t) => !t.verdict || isScored(t));
  const runs = [...new Set(trajs.map((t) => t.round))].sort((a, b) => a - b);
  const solved = trajs.filter((t) => t.verdict?.success);
  const hist: Record<string, number> = {};
  for (const t of solved) hist[String(t.steps.length)] = (hist[String(t.steps.length)] ?? 0) + 1;
  return {
    agentId: opts.agentId,
    suite: opts.suite,
    runs: runs.length,
    tasks: new Set(trajs.map((t) => t.task.id)).size,
    episodes: trajs.length,
    pass1: rate(trajs, runs),
    perSite: groupBy(trajs, (t) => t.task.site, runs),
    perLevel: groupBy(trajs, (t) => t.task.level, runs),
    perCategory: groupBy(trajs, (t) => t.task.category, runs),
    meanStepsSolved: solved.length ? solved.reduce((a, t) => a + t.steps.length, 0) / solved.length : null,
    stepsHistogram: hist,
    costUsd: trajs.reduce((a, t) => a + t.usage.costUsd, 0),
    episodeSeconds: trajs.reduce((a, t) => a + (Date.parse(t.endedAt) - Date.parse(t.startedAt)) / 1000, 0),
    ...(opts.suite === 'world'
      ? { perturbSeeds: runs.map((r) => trajs.find((t) => t.round === r)?.perturbSeed ?? 0) }
      : {}),
  };
}

/** `41.7% ± 2.1` */
export function formatRate(r: RateOverRuns): string {
  return `${(100 * r.mean).toFixed(1)}% ± ${(100 * r.std).toFixed(1)}`;
}
