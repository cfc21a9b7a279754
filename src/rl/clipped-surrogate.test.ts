import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { clipFraction, clippedSurrogate, meanOverParts } from './clipped-surrogate.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const t = (xs: number[]) => tf.tensor1d(xs);
const ln = Math.log;

describe('clipped surrogate', () => {
  it('takes the pessimistic side of the clipped ratio', () => {
    // ratios 1.5, 0.5, 1.5, 0.5, 1.1 with advantages +1, +1, -1, -1, +1
    const logp = t([ln(1.5), ln(0.5), ln(1.5), ln(0.5), ln(1.1)]);
    const old = t([0, 0, 0, 0, 0]);
    const adv = t([1, 1, -1, -1, 1]);
    const sym = Array.from(clippedSurrogate(logp, old, adv, 0.2, 0.2).dataSync());
    for (const [i, v] of [1.2, 0.5, -1.5, -0.8, 1.1].entries()) expect(sym[i]).toBeCloseTo(v, 5);
    // clip-higher lets a good action's ratio grow to 1.28
    const dapo = Array.from(clippedSurrogate(logp, old, adv, 0.2, 0.28).dataSync());
    expect(dapo[0]).toBeCloseTo(1.28, 5);
    expect(dapo[3]).toBeCloseTo(-0.8, 5);
    expect(clipFraction(logp, old, 0.2, 0.2)).toBeCloseTo(4 / 5, 6);
  });

  it('has the policy-gradient gradient at ratio 1', () => {
    const g = tf.grad((x: tf.Tensor) => tf.sum(clippedSurrogate(x, t([0, 0]), t([2, -3]))))(t([0, 0]));
    expect(Array.from(g.dataSync())).toEqual([2, -3]);
  });

  it('averages over the sub-decisions an action uses', () => {
    const v = tf.tensor2d([
      [1, 2, 3],
      [4, 0, 0],
    ]);
    const mask = tf.tensor2d([
      [1, 1, 1],
      [1, 0, 0],
    ]);
    expect(Array.from(meanOverParts(v, mask).dataSync())).toEqual([2, 4]);
  });
});
