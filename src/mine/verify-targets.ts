import {
  actionsEquivalent,
  type CriticalState,
  type FailureLabel,
  Rng,
  stableId,
  type Trajectory,
} from '../core/index.ts';

/**
 * What verification checks: the miner's critical states, and two baselines that pick a state on
 * the same success/failure pair without the miner (to show what the miner's choice adds).
 */

/** Who picked the state: the miner, or a baseline on the same pair. */
export type VerifyMethod = 'miner' | 'first-diff' | 'random';
export const VERIFY_METHODS: readonly VerifyMethod[] = ['miner', 'first-diff', 'random'];

/** One state to check: a position on a success run and the failure action to branch on. */
export interface VerifyTarget {
  method: VerifyMethod;
  /** The critical state's id (miner), or one derived from it (baselines). */
  id: string;
  /** The miner's critical state on the same pair (its label and site group every method's rows). */
  stateId: string;
  success: Trajectory;
  /** Position in `success.steps`. */
  i: number;
  failure: Trajectory;
  /** Position in `failure.steps`: its action is the one branched on. */
  j: number;
  label: FailureLabel;
  site: string;
}

function positionOf(t: Trajectory, stepIndex: number): number {
  return t.steps.findIndex((s) => s.index === stepIndex);
}

/**
 * The miner's critical states as targets. States whose runs are not among `trajectories` (or whose
 * task is not a world task) are returned in `skipped` with the reason.
 */
export function minerTargets(
  states: readonly CriticalState[],
  trajectories: ReadonlyMap<string, Trajectory>,
): { targets: VerifyTarget[]; skipped: Array<{ id: string; reason: string }> } {
  const targets: VerifyTarget[] = [];
  const skipped: Array<{ id: string; reason: string }> = [];
  for (const cs of states) {
    if (cs.task.suite !== 'world') {
      skipped.push({ id: cs.id, reason: `suite ${cs.task.suite}: only world tasks can be replayed` });
      continue;
    }
    const success = trajectories.get(cs.success.trajectoryId);
    const failure = trajectories.get(cs.failure.trajectoryId);
    if (!success || !failure) {
      skipped.push({ id: cs.id, reason: 'a trajectory of its pair is not in the runs read' });
      continue;
    }
    const i = positionOf(success, cs.success.stepIndex);
    const j = positionOf(failure, cs.failure.stepIndex);
    if (i < 0 || j < 0) {
      skipped.push({ id: cs.id, reason: 'its step is not in the stored trajectory' });
      continue;
    }
    targets.push({
      method: 'miner',
      id: cs.id,
      stateId: cs.id,
      success,
      i,
      failure,
      j,
      label: cs.label,
      site: cs.task.site,
    });
  }
  return { targets, skipped };
}

/** Shared positions (k < both lengths) where the two runs' actions differ. */
function differingSteps(s: Trajectory, f: Trajectory): number[] {
  const out: number[] = [];
  const n = Math.min(s.steps.length, f.steps.length);
  for (let k = 0; k < n; k++) {
    const a = s.steps[k];
    const b = f.steps[k];
    if (!actionsEquivalent(a.action, b.action, a.observation, b.observation)) out.push(k);
  }
  return out;
}

/**
 * The two baselines on each miner target's pair: `first-diff`, the first step where the two runs'
 * actions differ; `random`, a seeded random step shared by both runs (among those where the actions
 * differ: at a step where both runs did the same thing the two branches are one, so it could never be
 * confirmed and would only make the baseline look worse). Both branch at step k of both runs.
 */
export function baselineTargets(miner: readonly VerifyTarget[], seed = 0): VerifyTarget[] {
  const out: VerifyTarget[] = [];
  for (const t of miner) {
    const diffs = differingSteps(t.success, t.failure);
    if (diffs.length === 0) continue;
    const first = diffs[0];
    out.push({ ...t, method: 'first-diff', id: `${t.id}:first-diff`, i: first, j: first });
    const k = new Rng(`verify-random:${seed}:${t.id}`).pick(diffs);
    out.push({ ...t, method: 'random', id: `${t.id}:random`, i: k, j: k });
  }
  return out;
}

/** A stable id for a baseline state, so records never collide with the miner's. */
export function targetStateId(t: VerifyTarget): string {
  return t.method === 'miner' ? t.id : stableId('cs', t.method, t.success.id, t.i, t.failure.id, t.j);
}
