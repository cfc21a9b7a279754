import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initPolicyBackend } from './backend.ts';
import { bagIndex, embeddingBag } from './embedding-bag.ts';
import { matMul2d } from './ops.ts';

beforeAll(async () => {
  expect(await initPolicyBackend('wasm')).toBe('wasm');
});

const close = (a: number[] | number[][], b: number[] | number[][], tol = 1e-4) => {
  const fa = (a as number[]).flat();
  const fb = (b as number[]).flat();
  expect(fa.length).toBe(fb.length);
  for (const [i, x] of fa.entries()) expect(Math.abs(x - fb[i])).toBeLessThan(tol);
};

describe('custom ops on the wasm backend', () => {
  it('embeddingBag is a weighted mean of rows with the matching gradient', () => {
    const table = tf.tensor2d([
      [1, 2],
      [3, 4],
      [5, 6],
      [7, 8],
    ]);
    const bags = bagIndex([[0, 2], [], [3, 3, 1]]);
    close(embeddingBag(table, bags).arraySync(), [
      [3, 4],
      [0, 0],
      [17 / 3, 20 / 3],
    ]);
    // d/dtable of sum(out * c) with c = [[1, -1], [2, 2], [0.5, 1]]
    const c = tf.tensor2d([
      [1, -1],
      [2, 2],
      [0.5, 1],
    ]);
    const g = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(embeddingBag(t as tf.Tensor2D, bags), c)))(table);
    close(g.arraySync() as number[][], [
      [0.5, -0.5],
      [0.5 / 3, 1 / 3],
      [0.5, -0.5],
      [1 / 3, 2 / 3],
    ]);
  });

  it('matMul2d matches tf.matMul in value and gradient', () => {
    const a = tf.randomNormal([5, 3], 0, 1, 'float32', 1);
    const b = tf.randomNormal([3, 4], 0, 1, 'float32', 2);
    const c = tf.randomNormal([5, 4], 0, 1, 'float32', 3);
    close(matMul2d(a, b).arraySync(), tf.matMul(a, b).arraySync() as number[][]);
    const ours = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(matMul2d(x, y), c)))([a, b]);
    const ref = tf.grads((x: tf.Tensor, y: tf.Tensor) =>
      tf.sum(tf.mul(tf.matMul(x as tf.Tensor2D, y as tf.Tensor2D), c)),
    )([a, b]);
    close(ours[0].arraySync() as number[][], ref[0].arraySync() as number[][]);
    close(ours[1].arraySync() as number[][], ref[1].arraySync() as number[][]);
  });

  it('gather has a gradient on wasm (the UnsortedSegmentSum kernel we register)', () => {
    const x = tf.tensor2d([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const g = tf.grad((t: tf.Tensor) => tf.sum(tf.gather(t, tf.tensor1d([0, 2, 2], 'int32'))))(x);
    close(g.arraySync() as number[][], [
      [1, 1],
      [0, 0],
      [2, 2],
    ]);
  });
});
