import type { RunStats } from '../../collect/stats.ts';
import { meanSd, type PairedDiff, pairedBootstrap } from '../../eval/bootstrap.ts';
import type { RateOverRuns } from '../../eval/metrics.ts';
import type { TrajectorySummary } from '../../store/trajectory-query.ts';

/**
 * The ablation's arithmetic, kept pure so it is tested without a browser: per-task outcomes of an
 * evaluation, aggregation over training seeds, paired differences by test task, the reflection
 * comparisons and the mining counts by source.
 */

/** One test task's outcome in one evaluation: mean success over runs and the steps of its solved runs. */
export interface TaskOutcome {
  success: number;
  /** Solved episodes (over runs) and their summed steps: pooled across seeds by adding. */
  solved: number;
  solvedSteps: number;
}

/** Per test task outcomes of an evaluation's episodes (tasks without an episode are left out). */
export function taskOutcomes(
  episodes: readonly Pick<TrajectorySummary, 'taskId' | 'success' | 'steps'>[],
  taskIds?: readonly string[],
): Record<string, TaskOutcome> {
  const keep = taskIds ? new Set(taskIds) : null;
  const acc = new Map<string, { n: number; ok: number; steps: number }>();
  for (const e of episodes) {
    if (keep && !keep.has(e.taskId)) continue;
    const a = acc.get(e.taskId) ?? { n: 0, ok: 0, steps: 0 };
    a.n++;
    if (e.success) {
      a.ok++;
      a.steps += e.steps;
    }
    acc.set(e.taskId, a);
  }
  return Object.fromEntries(
    [...acc.entries()]
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([id, a]) => [id, { success: a.ok / a.n, solved: a.ok, solvedSteps: a.steps }]),
  );
}

/** One training seed of an ablation row: its evaluation and what its training cost. */
export interface SeedRun {
  seed: number;
  /** The evaluation's label in its store (`eval:<label>` tags its episodes). */
  label: string;
  /** pass@1 over the evaluation's runs. */
  pass1: RateOverRuns;
  meanStepsSolved: number | null;
  perTask: Record<string, TaskOutcome>;
  /** RL rollouts sampled (0 without RL). */
  rollouts: number;
  /** Wall seconds of the row's RL run (0 without RL). */
  rlSeconds: number;
  /** Wall seconds of the row's own training (RL run, or SFT epochs). */
  trainSeconds: number;
}

/** What a row aggregates over its seeds. */
export interface SeedAggregate {
  /** pass@1 over seeds: mean, sample sd, and each seed's pass@1 (mean over runs) in `perRun`. */
  pass1: RateOverRuns;
  meanStepsSolved: number | null;
  /** Per seed means of the RL cost. */
  rollouts: number;
  rlSeconds: number;
  trainSeconds: number;
  /** Per test task: success averaged over runs, then over seeds; steps pooled over solved episodes. */
  perTask: Record<string, TaskOutcome>;
}

/** Aggregates a row's seeds: mean ± sd of pass@1 over seeds, per-task means over seeds. */
export function aggregateSeeds(runs: readonly SeedRun[]): SeedAggregate {
  const perSeed = runs.map((r) => r.pass1.mean);
  const m = meanSd(perSeed);
  const steps = runs.map((r) => r.meanStepsSolved).filter((x): x is number => x !== null);
  const ids = [...new Set(runs.flatMap((r) => Object.keys(r.perTask)))].sort();
  const perTask: Record<string, TaskOutcome> = {};
  for (const id of ids) {
    const xs = runs.map((r) => r.perTask[id]).filter((x): x is TaskOutcome => !!x);
    perTask[id] = {
      success: xs.reduce((a, x) => a + x.success, 0) / xs.length,
      solved: xs.reduce((a, x) => a + x.solved, 0),
      solvedSteps: xs.reduce((a, x) => a + x.solvedSteps, 0),
    };
  }
  const avg = (f: (r: SeedRun) => number) =>
    runs.length ? runs.reduce((a, r) => a + f(r), 0) / runs.length : 0;
  return {
    pass1: {
      mean: runs.length ? m.mean : 0,
      std: m.sd,
      min: perSeed.length ? Math.min(...perSeed) : 0,
      max: perSeed.length ? Math.max(...perSeed) : 0,
      perRun: perSeed,
      tasks: ids.length,
    },
    meanStepsSolved: steps.length ? meanSd(steps).mean : null,
    rollouts: avg((r) => r.rollouts),
    rlSeconds: avg((r) => r.rlSeconds),
    trainSeconds: avg((r) => r.trainSeconds),
    perTask,
  };
}

/**
 * Paired bootstrap CI of `row - ref` in pass@1, paired by test task (each task: success averaged
 * over runs, then over seeds), over the tasks both rows evaluated. Null when they share none.
 */
export function pairedTaskDiff(
  row: Record<string, TaskOutcome>,
  ref: Record<string, TaskOutcome>,
  o: { seed: number | string; resamples?: number },
): PairedDiff | null {
  const ids = Object.keys(row).filter((id) => ref[id]);
  if (!ids.length) return null;
  return pairedBootstrap(
    ids.map((id) => row[id].success),
    ids.map((id) => ref[id].success),
    o,
  );
}

/** Mean actions of two agents on the test tasks both solve (per task: mean over its solved episodes). */
export interface PairedSteps {
  tasks: number;
  a: number | null;
  b: number | null;
  /** (b - a) / a. */
  relativeChange: number | null;
}

export function pairedSolvedSteps(
  a: Record<string, TaskOutcome>,
  b: Record<string, TaskOutcome>,
): PairedSteps {
  const ids = Object.keys(a).filter((id) => a[id].solved > 0 && b[id]?.solved > 0);
  if (!ids.length) return { tasks: 0, a: null, b: null, relativeChange: null };
  const ma = meanSd(ids.map((id) => a[id].solvedSteps / a[id].solved)).mean;
  const mb = meanSd(ids.map((id) => b[id].solvedSteps / b[id].solved)).mean;
  return { tasks: ids.length, a: ma, b: mb, relativeChange: ma ? (mb - ma) / ma : null };
}

/**
 * The teacher with and without reflection on the same train tasks: the collection (notes after a
 * failure, several rounds) against the one-round collection without notes.
 */
export interface TeacherReflection {
  tasks: number;
  solvedWith: number;
  solvedWithout: number;
  /** Tasks solved only with reflection, only without, by both. */
  onlyWith: number;
  onlyWithout: number;
  both: number;
  /**
   * Tasks where the teacher retried with a note after failing: its first attempt with a note vs the
   * attempt without notes on the same task (the one-round collection).
   */
  retried: { tasks: number; successWithNote: number; successWithout: number };
  /** Within the collection: mean actions on tasks solved both without and with notes. */
  pairedActions: RunStats['pairedMeanActions'] | null;
}

export function teacherReflection(
  withNotes: readonly Pick<TrajectorySummary, 'taskId' | 'success' | 'round' | 'notes'>[],
  without: readonly Pick<TrajectorySummary, 'taskId' | 'success'>[],
  stats?: RunStats,
): TeacherReflection {
  const solved = (rows: readonly Pick<TrajectorySummary, 'taskId' | 'success'>[]) =>
    new Set(rows.filter((r) => r.success).map((r) => r.taskId));
  const ids = new Set(without.map((r) => r.taskId));
  const common = [...new Set(withNotes.map((r) => r.taskId))].filter((id) => ids.has(id));
  const sw = solved(withNotes);
  const so = solved(without);
  let onlyWith = 0;
  let onlyWithout = 0;
  let both = 0;
  const retried = { tasks: 0, successWithNote: 0, successWithout: 0 };
  for (const id of common) {
    const w = sw.has(id);
    const o = so.has(id);
    if (w && o) both++;
    else if (w) onlyWith++;
    else if (o) onlyWithout++;
    const noted = withNotes
      .filter((r) => r.taskId === id && r.notes > 0)
      .sort((x, y) => x.round - y.round)[0];
    if (noted) {
      retried.tasks++;
      if (noted.success) retried.successWithNote++;
      if (o) retried.successWithout++;
    }
  }
  return {
    tasks: common.length,
    solvedWith: both + onlyWith,
    solvedWithout: both + onlyWithout,
    onlyWith,
    onlyWithout,
    both,
    retried,
    pairedActions: stats?.pairedMeanActions ?? null,
  };
}

/** Where the critical states came from: pairs with the teacher's own failures or the student's. */
export type MiningSource = 'teacher' | 'student';

export interface MiningBySource {
  /** Verified-success steps the states are drawn from (the yield's denominator). */
  successSteps: number;
  criticalStates: number;
  /** criticalStates / successSteps (the paper keeps about 3%). */
  yield: number;
  perSource: Record<
    MiningSource,
    { failedTrajectories: number; criticalStates: number; yield: number; perLabel: Record<string, number> }
  >;
  perLabel: Record<string, number>;
}

/**
 * Counts the mined states per failure label and per source. `sourceOf` maps a failing trajectory
 * id to its source; `failed` counts the failing trajectories each source offered the miner.
 */
export function miningBySource(
  states: readonly { label: string; failure: { trajectoryId: string } }[],
  sourceOf: ReadonlyMap<string, MiningSource>,
  failed: Record<MiningSource, number>,
  successSteps: number,
): MiningBySource {
  const empty = () => ({
    failedTrajectories: 0,
    criticalStates: 0,
    yield: 0,
    perLabel: {} as Record<string, number>,
  });
  const perSource: MiningBySource['perSource'] = { teacher: empty(), student: empty() };
  const perLabel: Record<string, number> = {};
  for (const s of states) {
    const src = sourceOf.get(s.failure.trajectoryId) ?? 'teacher';
    perSource[src].criticalStates++;
    perSource[src].perLabel[s.label] = (perSource[src].perLabel[s.label] ?? 0) + 1;
    perLabel[s.label] = (perLabel[s.label] ?? 0) + 1;
  }
  for (const src of ['teacher', 'student'] as const) {
    perSource[src].failedTrajectories = failed[src];
    perSource[src].yield = successSteps ? perSource[src].criticalStates / successSteps : 0;
  }
  return {
    successSteps,
    criticalStates: states.length,
    yield: successSteps ? states.length / successSteps : 0,
    perSource,
    perLabel,
  };
}
