import { initPolicyBackend } from '../../policy/backend.ts';
import { evaluateSteps, type StepExample } from '../../policy/evaluate.ts';
import { filterRepresentable, sftExamples } from '../../policy/sft-trainer.ts';
import { loadStudentPolicy } from '../../policy/student-policy.ts';
import { loadCriticalStates } from '../../rl/index.ts';
import type { RunStore } from '../../store/run-store.ts';

/**
 * Step-level probes of a checkpoint. pass@1 needs every step of a task right, so on a weak student
 * it sits at the floor and hides what RL changed; greedy step accuracy shows it: on the teacher's
 * verified successes on held-out test tasks (decisions the student never trained on) and on the
 * mined critical states (the decisions RL trained on).
 */
export interface StepProbes {
  heldOut: StepExample[];
  critical: StepExample[];
}

export interface StepAccuracies {
  /** Share of held-out teacher test steps where the greedy action is equivalent to the teacher's. */
  heldOut: number | null;
  /** The same on the success side of the mined critical states. */
  critical: number | null;
}

/** The probes: run 0 of the teacher's evaluation (successes only) and the mined critical states. */
export async function stepProbes(o: {
  store: RunStore;
  teacherLabel: string;
  taskIds: string[];
  critical: string | null;
}): Promise<StepProbes> {
  const ids = new Set(o.taskIds);
  const teacher = o.store
    .listTrajectories({ tag: `eval:${o.teacherLabel}`, success: true })
    .filter((t) => t.round === 0 && ids.has(t.task.id));
  const critical = o.critical
    ? (await loadCriticalStates(o.critical)).map((e) => ({ state: e.state, action: e.truth }))
    : [];
  return { heldOut: sftExamples(teacher), critical };
}

/** Greedy step accuracy (core action equivalence) of a checkpoint on the probes. */
export async function stepAccuracies(checkpoint: string, probes: StepProbes): Promise<StepAccuracies> {
  await initPolicyBackend();
  const policy = await loadStudentPolicy(checkpoint);
  try {
    // Labelled as SFT and RL label their steps (labelStep): a composed answer is scored against
    // the span the policy can express, and steps it can never produce are not probes.
    const acc = (xs: StepExample[]) => {
      const kept = filterRepresentable(xs, policy.featurizer).kept;
      return kept.length ? evaluateSteps(policy, kept).equivalentAccuracy : null;
    };
    return { heldOut: acc(probes.heldOut), critical: acc(probes.critical) };
  } finally {
    policy.dispose();
  }
}
