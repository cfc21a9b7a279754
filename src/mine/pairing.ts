import type { Trajectory } from '../core/index.ts';

/**
 * Which side of a pair a run can stand on. A verified success is a success; a run without a success
 * verdict that hit the step limit or looped is wandering; a run whose verifier said no is failed.
 * Anything else (no verdict, ended by error or done unverified) is unverified and never paired:
 * without a verdict we cannot know which side it belongs to.
 */
export type RunKind = 'success' | 'failed' | 'wandering' | 'unverified';

export function runKind(t: Trajectory): RunKind {
  if (t.verdict?.success === true) return 'success';
  if (t.endReason === 'max_steps' || t.endReason === 'loop') return 'wandering';
  if (t.verdict?.success === false) return 'failed';
  return 'unverified';
}

/** A verified success and a failed or wandering run of the same task. */
export interface RunPair {
  taskId: string;
  success: Trajectory;
  failure: Trajectory;
  failureKind: 'failed' | 'wandering';
}

export interface PairingSummary {
  trajectories: number;
  /** Trajectories dropped because another with the same id came first (the same run in two stores). */
  duplicates: number;
  /** Trajectories with no steps: nothing to compare. */
  empty: number;
  tasks: number;
  successes: number;
  failed: number;
  wandering: number;
  unverified: number;
  /** Tasks with at least one pair. */
  tasksWithPairs: number;
  /** Steps over all verified successes: the denominator of the yield. */
  successSteps: number;
  /** The same, per task site. */
  successStepsBySite: Record<string, number>;
}

/**
 * Pairs every verified success of a task with every failed or wandering run of the same task.
 * Deterministic: tasks by id, runs by id, whatever order the stores returned them in.
 */
export function pairTrajectories(trajectories: readonly Trajectory[]): {
  pairs: RunPair[];
  summary: PairingSummary;
} {
  const byId = new Map<string, Trajectory>();
  let duplicates = 0;
  let empty = 0;
  for (const t of trajectories) {
    if (byId.has(t.id)) duplicates++;
    else if (t.steps.length === 0) empty++;
    else byId.set(t.id, t);
  }
  const byTask = new Map<string, Trajectory[]>();
  for (const t of byId.values()) {
    const list = byTask.get(t.task.id);
    if (list) list.push(t);
    else byTask.set(t.task.id, [t]);
  }
  const summary: PairingSummary = {
    trajectories: trajectories.length,
    duplicates,
    empty,
    tasks: byTask.size,
    successes: 0,
    failed: 0,
    wandering: 0,
    unverified: 0,
    tasksWithPairs: 0,
    successSteps: 0,
    successStepsBySite: {},
  };
  const pairs: RunPair[] = [];
  for (const taskId of [...byTask.keys()].sort()) {
    const runs = byTask.get(taskId)!.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const successes: Trajectory[] = [];
    const failures: Array<{ t: Trajectory; kind: 'failed' | 'wandering' }> = [];
    for (const t of runs) {
      const kind = runKind(t);
      summary[kind === 'success' ? 'successes' : kind]++;
      if (kind === 'success') {
        successes.push(t);
        summary.successSteps += t.steps.length;
        summary.successStepsBySite[t.task.site] =
          (summary.successStepsBySite[t.task.site] ?? 0) + t.steps.length;
      } else if (kind !== 'unverified') failures.push({ t, kind });
    }
    if (successes.length && failures.length) summary.tasksWithPairs++;
    for (const s of successes) {
      for (const f of failures) pairs.push({ taskId, success: s, failure: f.t, failureKind: f.kind });
    }
  }
  return { pairs, summary };
}
