import * as tf from '@tensorflow/tfjs';

/**
 * The PPO clipped surrogate objective, per element (to be maximized):
 *   min(ratio * A, clip(ratio, 1 - clipLow, 1 + clipHigh) * A),  ratio = exp(logp - oldLogp).
 * Symmetric clipping (clipLow = clipHigh = 0.2) is PPO/GRPO; DAPO's clip-higher raises clipHigh
 * (0.28) so low-probability actions with positive advantage can grow faster.
 * Works on any matching shapes: [N] for sequence-level, [N, 3] for sub-decision (token) level.
 */
export function clippedSurrogate(
  logProbs: tf.Tensor,
  oldLogProbs: tf.Tensor,
  advantages: tf.Tensor,
  clipLow = 0.2,
  clipHigh = clipLow,
): tf.Tensor {
  return tf.tidy(() => {
    const ratio = tf.exp(tf.sub(logProbs, oldLogProbs));
    const unclipped = tf.mul(ratio, advantages);
    const clipped = tf.mul(tf.clipByValue(ratio, 1 - clipLow, 1 + clipHigh), advantages);
    return tf.minimum(unclipped, clipped);
  });
}

/** Share of elements whose ratio fell outside the clip range (a health metric; no gradient). */
export function clipFraction(
  logProbs: tf.Tensor,
  oldLogProbs: tf.Tensor,
  clipLow = 0.2,
  clipHigh = clipLow,
  mask?: tf.Tensor,
): number {
  return tf.tidy(() => {
    const ratio = tf.exp(tf.sub(logProbs, oldLogProbs));
    const out = tf.logicalOr(tf.less(ratio, 1 - clipLow), tf.greater(ratio, 1 + clipHigh)).toFloat();
    const m = mask ?? tf.onesLike(out);
    const n = tf.sum(m).dataSync()[0];
    return n > 0 ? tf.sum(tf.mul(out, m)).dataSync()[0] / n : 0;
  });
}

/**
 * Sampling-time log-probs of each sub-decision of sampled actions as [N, 3] rows (type, element,
 * argument), 0 where the action has no such sub-decision - the "old" side of per-sub-decision ratios.
 */
export function partLogProbRows(
  samples: ReadonlyArray<{ parts: { type: number; element?: number; argument?: number } }>,
): tf.Tensor2D {
  return tf.tensor2d(
    samples.map((s) => [s.parts.type, s.parts.element ?? 0, s.parts.argument ?? 0]),
    [samples.length, 3],
  );
}

/**
 * Mean over the sub-decisions each action uses: [N, 3] values and mask -> [N]. This is GRPO's
 * 1/|o_i| sum_t, with an action's sub-decisions as its tokens.
 */
export function meanOverParts(values: tf.Tensor, mask: tf.Tensor): tf.Tensor1D {
  return tf.tidy(
    () => tf.div(tf.sum(tf.mul(values, mask), 1), tf.maximum(tf.sum(mask, 1), 1)) as tf.Tensor1D,
  );
}
