import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { trainDapo } from './dapo.ts';
import { trainGrpo } from './grpo.ts';
import { METRICS } from './metrics.ts';
import { polarizedReward } from './reward/polarized.ts';
import type { RewardFn } from './reward/types.ts';
import { TinyPolicy } from './testing/tiny-policy.ts';
import { toyExamples } from './testing/toy-data.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const examples = toyExamples(24, 7);
const weights = (p: TinyPolicy) => p.trainableVariables().map((v) => Array.from(v.dataSync()));

describe('DAPO', () => {
  it('drops zero-variance groups and refills the batch from further states', () => {
    // A reward with no contrast on "Open the ..." states: their groups always have zero variance.
    const base = polarizedReward();
    const seenOpen: number[] = [];
    const reward: RewardFn = (s, t, obs) => {
      if (obs.url.endsWith('/home')) {
        seenOpen.push(1);
        return 0;
      }
      return base(s, t, obs);
    };
    const r = trainDapo(new TinyPolicy({ seed: 3, initScale: 0.5 }), examples, {
      steps: 6,
      batchSize: 4,
      groupSize: 6,
      lr: 0.05,
      seed: 2,
      reward,
      maxRefills: 5,
    });
    expect(seenOpen.length).toBeGreaterThan(0);
    for (const m of r.metrics) {
      // every group with signal is trained, every zero-variance group is dropped
      const seen = m[METRICS.rolloutsSampled] / 6;
      expect(m[METRICS.groupsTrained]).toBe(Math.round(seen * (1 - m[METRICS.zeroVarianceShare])));
      expect(m[METRICS.groupsTrained]).toBeLessThanOrEqual(4);
      expect(m[METRICS.kl]).toBe(0);
    }
    expect(r.metrics.some((m) => m[METRICS.zeroVarianceShare] > 0 && m[METRICS.refillRounds] > 0)).toBe(true);
    expect(r.metrics.some((m) => m[METRICS.groupsTrained] === 4)).toBe(true);
    expect(r.rolloutsSampled).toBe(r.metrics.reduce((a, m) => a + m[METRICS.rolloutsSampled], 0));
    r.policy.dispose();
  });

  it('makes no update when every group has zero variance, after spending its refills', () => {
    const policy = new TinyPolicy({ seed: 3 });
    const before = weights(policy);
    const r = trainDapo(policy, examples, {
      steps: 2,
      batchSize: 4,
      groupSize: 5,
      maxRefills: 2,
      reward: () => -1,
    });
    for (const m of r.metrics) {
      expect(m[METRICS.groupsTrained]).toBe(0);
      expect(m[METRICS.zeroVarianceShare]).toBe(1);
      expect(m[METRICS.refillRounds]).toBe(2);
      expect(m[METRICS.rolloutsSampled]).toBe(3 * 4 * 5);
    }
    expect(weights(policy)).toEqual(before);
    policy.dispose();
  });

  it('learns on the toy states and reproduces from its seed', () => {
    const opts = { steps: 20, batchSize: 4, groupSize: 6, lr: 0.05, seed: 9 };
    const a = trainDapo(new TinyPolicy({ seed: 5 }), examples, opts);
    const b = trainDapo(new TinyPolicy({ seed: 5 }), examples, opts);
    expect(b.metrics).toEqual(a.metrics);
    const first = a.metrics.slice(0, 4).reduce((s, m) => s + m[METRICS.meanReward], 0);
    const last = a.metrics.slice(-4).reduce((s, m) => s + m[METRICS.meanReward], 0);
    expect(last).toBeGreaterThan(first);
    a.policy.dispose();
    b.policy.dispose();
  });
});

describe('GRPO', () => {
  it('trains every group (no gates, no salvage), KL 0 at the start, and learns', () => {
    const r = trainGrpo(new TinyPolicy({ seed: 5 }), examples, {
      steps: 25,
      batchSize: 6,
      groupSize: 6,
      lr: 0.05,
      seed: 4,
    });
    expect(r.metrics[0][METRICS.klRef]).toBe(0);
    expect(r.metrics[0][METRICS.kl]).toBeCloseTo(0, 7);
    for (const m of r.metrics) {
      expect(m[METRICS.groupsTrained]).toBe(6);
      expect(m[METRICS.salvageShare]).toBe(0);
      expect(m[METRICS.salvageCe]).toBe(0);
      expect(Number.isFinite(m[METRICS.total])).toBe(true);
    }
    const first = r.metrics.slice(0, 5).reduce((s, m) => s + m[METRICS.meanReward], 0);
    const last = r.metrics.slice(-5).reduce((s, m) => s + m[METRICS.meanReward], 0);
    expect(last).toBeGreaterThan(first);
    expect(r.rolloutsSampled).toBe(25 * 6 * 6);
    r.policy.dispose();
  });
});
