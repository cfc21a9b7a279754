import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RlExample } from './critical-data.ts';
import { METRICS } from './metrics.ts';
import type { RolloutGroup } from './rollouts.ts';
import { buildRows, disposeRows, salvageDsLoss, trainSalvageDs } from './salvage-ds.ts';
import { TinyPolicy } from './testing/tiny-policy.ts';
import { toyExamples } from './testing/toy-data.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const examples = toyExamples(24, 7);

/** Gate-failing groups (all -1) for the given examples: every one goes to the salvage loss. */
function failingGroups(xs: RlExample[]): RolloutGroup[] {
  return xs.map((example) => ({ example, samples: [], rewards: [-1, -1, -1, -1] }));
}

function grads(policy: TinyPolicy, loss: () => tf.Scalar): Float32Array[] {
  const { grads: g } = tf.variableGrads(loss, policy.trainableVariables());
  const out = policy.trainableVariables().map((v) => g[v.name].dataSync() as Float32Array);
  tf.dispose(g);
  return out;
}

function sftGrads(policy: TinyPolicy, xs: RlExample[]): Float32Array[] {
  const batch = policy.encode(xs.map((e) => e.state));
  const out = grads(
    policy,
    () =>
      tf.neg(
        tf.mean(
          policy.forward(
            batch,
            xs.map((e) => e.truth),
          ).logProbs,
        ),
      ) as tf.Scalar,
  );
  batch.dispose();
  return out;
}

function expectClose(a: Float32Array[], b: Float32Array[], digits = 5): void {
  expect(a.length).toBe(b.length);
  for (const [i, x] of a.entries()) for (const [j, v] of x.entries()) expect(v).toBeCloseTo(b[i][j], digits);
}

describe('Salvage-DS loss', () => {
  it('with beta_brake 0 the salvage gradient equals the SFT (cross-entropy) gradient', () => {
    const policy = new TinyPolicy({ seed: 1, initScale: 0.3 });
    const reference = policy.clone();
    // move the policy away from the reference so the brake KL has a non-zero gradient to leave out
    for (const v of policy.trainableVariables()) v.assign(tf.add(v, tf.mul(0.2, tf.onesLike(v))));
    const xs = examples.slice(0, 6);
    const rows = buildRows(policy, reference, [], failingGroups(xs));
    const salvage = grads(
      policy,
      () => salvageDsLoss(policy, rows, { clipEps: 0.2, beta: 0.001, betaBrake: 0 }).total,
    );
    const sft = sftGrads(policy, xs);
    expectClose(salvage, sft);
    expect(sft.some((g) => g.some((v) => Math.abs(v) > 1e-3))).toBe(true);
    // and the brake is a real term: with beta_brake 0.1 the gradient differs
    const braked = grads(
      policy,
      () => salvageDsLoss(policy, rows, { clipEps: 0.2, beta: 0.001, betaBrake: 0.1 }).total,
    );
    const diff = braked.flatMap((g, i) => Array.from(g, (v, j) => Math.abs(v - sft[i][j])));
    expect(Math.max(...diff)).toBeGreaterThan(1e-4);
    disposeRows(rows);
    policy.dispose();
    reference.dispose();
  });

  it('at the start (policy == reference) the brake KL is 0 and adds no gradient', () => {
    const policy = new TinyPolicy({ seed: 4, initScale: 0.3 });
    const reference = policy.clone();
    const xs = examples.slice(0, 6);
    const rows = buildRows(policy, reference, [], failingGroups(xs));
    const kl = tf.tidy(
      () => salvageDsLoss(policy, rows, { clipEps: 0.2, beta: 0.001, betaBrake: 0.1 }).kl.dataSync()[0],
    );
    expect(kl).toBeCloseTo(0, 7);
    const braked = grads(
      policy,
      () => salvageDsLoss(policy, rows, { clipEps: 0.2, beta: 0.001, betaBrake: 0.1 }).total,
    );
    expectClose(braked, sftGrads(policy, xs));
    disposeRows(rows);
    policy.dispose();
    reference.dispose();
  });
});

describe('Salvage-DS training loop', () => {
  const opts = { steps: 20, batchSize: 4, groupSize: 6, lr: 0.05, seed: 11 };

  it('KL to the reference is 0 at the start', () => {
    const r = trainSalvageDs(new TinyPolicy({ seed: 3 }), examples, { ...opts, steps: 2 });
    expect(r.metrics[0][METRICS.klRef]).toBe(0);
    expect(r.metrics[0][METRICS.kl]).toBeCloseTo(0, 7);
    expect(r.metrics[1][METRICS.klRef]).toBeGreaterThan(0);
    r.policy.dispose();
  });

  it('a seeded 20-step run reproduces exactly; another seed does not', () => {
    const a = trainSalvageDs(new TinyPolicy({ seed: 3 }), examples, opts);
    const b = trainSalvageDs(new TinyPolicy({ seed: 3 }), examples, opts);
    const c = trainSalvageDs(new TinyPolicy({ seed: 3 }), examples, { ...opts, seed: 12 });
    expect(a.metrics).toHaveLength(20);
    expect(b.metrics).toEqual(a.metrics);
    expect(c.metrics).not.toEqual(a.metrics);
    const wa = a.policy.trainableVariables().map((v) => Array.from(v.dataSync()));
    const wb = b.policy.trainableVariables().map((v) => Array.from(v.dataSync()));
    expect(wb).toEqual(wa);
    expect(a.rolloutsSampled).toBe(20 * 4 * 6);
    for (const r of [a, b, c]) r.policy.dispose();
  });

  it('routes gate-failing groups to salvage, or drops them with salvage: false', () => {
    // an unreachable competence threshold fails every group: all salvage, no policy-gradient term
    const all = trainSalvageDs(new TinyPolicy({ seed: 3 }), examples, {
      ...opts,
      steps: 3,
      competenceTau: 2,
    });
    for (const m of all.metrics) {
      expect(m[METRICS.salvageShare]).toBe(1);
      expect(m[METRICS.competenceGatePass]).toBe(0);
      expect(m[METRICS.policyLoss]).toBe(0);
      expect(m[METRICS.salvageCe]).toBeGreaterThan(0);
    }
    const dropped = trainSalvageDs(new TinyPolicy({ seed: 3 }), examples, {
      ...opts,
      steps: 3,
      competenceTau: 2,
      salvage: false,
    });
    const fresh = new TinyPolicy({ seed: 3 });
    const before = fresh.trainableVariables().map((v) => Array.from(v.dataSync()));
    fresh.dispose();
    for (const m of dropped.metrics) {
      expect(m[METRICS.salvageShare]).toBe(0);
      expect(m[METRICS.groupsTrained]).toBe(0);
      expect(m[METRICS.total]).toBe(0);
    }
    // nothing to train on: the weights did not move
    expect(dropped.policy.trainableVariables().map((v) => Array.from(v.dataSync()))).toEqual(before);
    all.policy.dispose();
    dropped.policy.dispose();
  });

  it('raises the reward of the greedy policy on the toy states', () => {
    const policy = new TinyPolicy({ seed: 5 });
    const greedyReward = () => {
      const batch = policy.encode(examples.map((e) => e.state));
      const g = policy.greedy(batch);
      batch.dispose();
      return (
        g.filter((s, i) => JSON.stringify(s.action) === JSON.stringify(examples[i].truth)).length /
        examples.length
      );
    };
    const before = greedyReward();
    const r = trainSalvageDs(policy, examples, { ...opts, steps: 40, batchSize: 6, groupSize: 8 });
    const after = greedyReward();
    expect(after).toBeGreaterThan(before + 0.2);
    const early = r.metrics.slice(0, 5).reduce((a, m) => a + m[METRICS.meanReward], 0) / 5;
    const late = r.metrics.slice(-5).reduce((a, m) => a + m[METRICS.meanReward], 0) / 5;
    expect(late).toBeGreaterThan(early);
    policy.dispose();
  });
});
