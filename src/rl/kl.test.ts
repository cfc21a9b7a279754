import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PolicyForward } from '../policy/types.ts';
import { k3, teacherForcedKl } from './kl.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const t = (xs: number[]) => tf.tensor1d(xs);

describe('k3 KL estimator', () => {
  it('is exp(ref - logp) - (ref - logp) - 1: zero when equal, positive otherwise', () => {
    const out = Array.from(k3(t([-1, -1, -2]), t([-1, -2, -1])).dataSync());
    expect(out[0]).toBe(0);
    expect(out[1]).toBeCloseTo(Math.exp(-1) + 1 - 1, 6);
    expect(out[2]).toBeCloseTo(Math.exp(1) - 1 - 1, 6);
  });
});

describe('exact teacher-forced KL', () => {
  const lsm = (rows: number[][]) => tf.logSoftmax(tf.tensor2d(rows)) as tf.Tensor2D;
  const fwd = (type: number[][], el: number[][], arg: number[][], mask: number[][]) =>
    ({
      typeLogProbs: lsm(type),
      elementLogProbs: lsm(el),
      argLogProbs: lsm(arg),
      partMask: tf.tensor2d(mask),
    }) as unknown as PolicyForward;
  const kl = (p: number[], q: number[]) => {
    const zp = p.map(Math.exp);
    const zq = q.map(Math.exp);
    const sp = zp.reduce((a, b) => a + b);
    const sq = zq.reduce((a, b) => a + b);
    return zp.reduce((a, v, i) => a + (v / sp) * Math.log(v / sp / (zq[i] / sq)), 0);
  };

  it('sums the categorical KL of the heads the action uses, and is 0 for equal policies', () => {
    const cur = fwd([[0, 1, 2]], [[1, 0, -1, 3]], [[0.5, 0.1]], [[1, 1, 0]]);
    const ref = fwd([[0, 0, 0]], [[0, 0, 0, 0]], [[2, -2]], [[1, 1, 0]]);
    const got = teacherForcedKl(cur, ref).dataSync()[0];
    // the argument head is unused (mask 0): only type + element count
    expect(got).toBeCloseTo(kl([0, 1, 2], [0, 0, 0]) + kl([1, 0, -1, 3], [0, 0, 0, 0]), 5);
    expect(teacherForcedKl(cur, cur).dataSync()[0]).toBeCloseTo(0, 7);
  });

  it('ignores impossible entries (very negative log-probs) without NaN in value or gradient', () => {
    const mask = tf.tensor2d([[1, 0, 0]]);
    const refType = tf.tensor2d([[Math.log(0.5), Math.log(0.5), -1e9]]);
    const g = tf.grad((x: tf.Tensor) =>
      tf.sum(
        teacherForcedKl(
          {
            typeLogProbs: x,
            elementLogProbs: refType,
            argLogProbs: refType,
            partMask: mask,
          } as unknown as PolicyForward,
          { typeLogProbs: refType, elementLogProbs: refType, argLogProbs: refType },
        ),
      ),
    )(tf.tensor2d([[Math.log(0.25), Math.log(0.75), Number.NEGATIVE_INFINITY]]));
    expect(Array.from(g.dataSync()).every(Number.isFinite)).toBe(true);
  });
});
