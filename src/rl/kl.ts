import * as tf from '@tensorflow/tfjs';
import type { Action } from '../core/action.ts';
import type { PolicyForward, PolicyState, StudentPolicy } from '../policy/types.ts';

/**
 * KL penalties against a frozen reference policy.
 */

/**
 * The k3 estimator of KL(pi || ref) per sample, from log-probs of actions sampled from pi:
 *   exp(ref - logp) - (ref - logp) - 1.
 * Unbiased, always >= 0, and low variance (Schulman's "Approximating KL divergence"); the GRPO choice.
 */
export function k3(logProbs: tf.Tensor, refLogProbs: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const d = tf.sub(refLogProbs, logProbs);
    return tf.sub(tf.sub(tf.exp(d), d), 1);
  });
}

// Log-probs below this are treated as "impossible" entries: clamping keeps 0 * (-inf) out of the
// forward pass and NaN out of its gradient, while leaving every real log-prob untouched.
const FLOOR = -1e4;

function headKl(p: tf.Tensor2D, q: tf.Tensor2D): tf.Tensor1D {
  const lp = tf.maximum(p, FLOOR);
  const lq = tf.maximum(q, FLOOR);
  return tf.sum(tf.mul(tf.exp(lp), tf.sub(lp, lq)), 1) as tf.Tensor1D;
}

/**
 * Exact KL(current || reference) per row under teacher forcing: the sum, over the sub-decisions the
 * given action uses (partMask), of the full categorical KL of each head. Heads are conditioned on the
 * same teacher-forced prefix (type, then element) in both forwards, so this is the KL of the action
 * distribution along the ground-truth path - no sampling noise. Compute `reference` from frozen variables
 * (not in the optimizer's var list) so gradients flow only through `current`.
 * Returns [N]; 0 exactly when the two policies agree.
 */
export function teacherForcedKl(
  current: PolicyForward,
  reference: Pick<PolicyForward, 'typeLogProbs' | 'elementLogProbs' | 'argLogProbs'>,
): tf.Tensor1D {
  return tf.tidy(() => {
    const perHead = tf.stack(
      [
        headKl(current.typeLogProbs, reference.typeLogProbs),
        headKl(current.elementLogProbs, reference.elementLogProbs),
        headKl(current.argLogProbs, reference.argLogProbs),
      ],
      1,
    );
    return tf.sum(tf.mul(perHead, current.partMask), 1) as tf.Tensor1D;
  });
}

/**
 * Mean exact teacher-forced KL(policy || reference) over (state, action) pairs: the `charts/kl_ref`
 * diagnostic. Also returns which actions the policy can express at all. No gradient.
 */
export function meanTeacherForcedKl(
  policy: StudentPolicy,
  reference: StudentPolicy,
  states: PolicyState[],
  actions: Action[],
): { kl: number; representable: boolean[] } {
  if (states.length === 0) return { kl: 0, representable: [] };
  const batch = policy.encode(states);
  try {
    return tf.tidy(() => {
      const cur = policy.forward(batch, actions);
      const ref = reference.forward(batch, actions);
      return { kl: tf.mean(teacherForcedKl(cur, ref)).dataSync()[0], representable: cur.representable };
    });
  } finally {
    batch.dispose();
  }
}
