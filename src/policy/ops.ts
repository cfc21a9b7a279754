import * as tf from '@tensorflow/tfjs';

/**
 * 2-D matrix product whose gradient uses explicit transposes. The wasm backend's matMul with
 * transpose flags (what tfjs's own gradient calls) runs several times slower than a transpose
 * followed by a plain matMul, and the gradient is most of a training step.
 */
export const matMul2d = tf.customGrad(((a: tf.Tensor2D, b: tf.Tensor2D, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a, b),
    gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
      const [sa, sb] = saved as [tf.Tensor2D, tf.Tensor2D];
      return [tf.matMul(dy, tf.transpose(sb)), tf.matMul(tf.transpose(sa), dy)];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (
  a: tf.Tensor,
  b: tf.Tensor,
) => tf.Tensor2D;
