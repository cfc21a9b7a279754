import * as tf from '@tensorflow/tfjs';
import { type Action, parseAction } from '../core/action.ts';
import { actionsEquivalent } from '../core/action-equivalence.ts';
import type { LocalStudentPolicy } from './student-policy.ts';
import type { PolicyState } from './types.ts';

/** One supervised step: a state and the action taken in it. */
export interface StepExample {
  state: PolicyState;
  action: Action;
}

function canonical(a: Action): string {
  const parsed = parseAction(a) as Record<string, unknown>;
  const keys = Object.keys(parsed)
    .filter((k) => parsed[k] !== undefined && parsed[k] !== null)
    .sort();
  return JSON.stringify(keys.map((k) => [k, parsed[k]]));
}

/** Structural equality of two actions (same fields and values once schema defaults are filled in). */
export function actionsEqual(a: Action, b: Action): boolean {
  return canonical(a) === canonical(b);
}

export interface StepAccuracy {
  n: number;
  /** Share of steps where the greedy action equals the ground truth structurally. */
  stepAccuracy: number;
  /** Share of steps where it is equivalent under core actionsEquivalent (same element, normalized text). */
  equivalentAccuracy: number;
  /** Mean teacher-forced cross-entropy over the sub-decisions that are present. */
  loss: number;
}

/** Greedy step accuracy and teacher-forced loss of a policy on examples, in batches. */
export function evaluateSteps(
  policy: LocalStudentPolicy,
  examples: readonly StepExample[],
  batchSize = 64,
): StepAccuracy {
  let exact = 0;
  let equiv = 0;
  let lossSum = 0;
  for (let i = 0; i < examples.length; i += batchSize) {
    const chunk = examples.slice(i, i + batchSize);
    const batch = policy.encode(chunk.map((e) => e.state));
    try {
      const greedy = policy.greedy(batch);
      greedy.forEach((g, j) => {
        const gt = chunk[j].action;
        if (actionsEqual(g.action, gt)) exact++;
        if (actionsEquivalent(g.action, gt, chunk[j].state.observation)) equiv++;
      });
      lossSum += tf.tidy(() => {
        const f = policy.forward(
          batch,
          chunk.map((e) => e.action),
        );
        return -tf.sum(tf.mul(f.partLogProbs, f.partMask)).dataSync()[0];
      });
    } finally {
      batch.dispose();
    }
  }
  const n = examples.length;
  return {
    n,
    stepAccuracy: n ? exact / n : 0,
    equivalentAccuracy: n ? equiv / n : 0,
    loss: n ? lossSum / n : 0,
  };
}
