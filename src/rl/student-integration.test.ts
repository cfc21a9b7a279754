import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudentPolicy, type LocalStudentPolicy } from '../policy/student-policy.ts';
import { syntheticTrajectories } from '../policy/testing/synthetic.ts';
import { trajectoryExamples } from './critical-data.ts';
import { METRICS } from './metrics.ts';
import { runRl } from './run-rl.ts';
import { buildRows, disposeRows, salvageDsLoss } from './salvage-ds.ts';

// The same contract checks as with the test policy, on the real local student (policy/).
const examples = trajectoryExamples(syntheticTrajectories(8, 2));
let policy: LocalStudentPolicy;

beforeAll(async () => {
  policy = await createStudentPolicy({ model: { seed: 3 } });
});
afterAll(() => policy.dispose());

function grads(loss: () => tf.Scalar): number[] {
  const vars = policy.trainableVariables();
  const { grads: g } = tf.variableGrads(loss, vars);
  const out = vars.flatMap((v) => Array.from(g[v.name].dataSync()));
  tf.dispose(g);
  return out;
}

describe('Salvage-DS on the local student', () => {
  it('salvage gradient with beta_brake 0 equals the SFT gradient', () => {
    const reference = policy.clone();
    for (const v of policy.trainableVariables()) v.assign(tf.add(v, tf.mul(0.05, tf.onesLike(v))));
    const xs = examples.slice(0, 6);
    const rows = buildRows(
      policy,
      reference,
      [],
      xs.map((example) => ({ example, samples: [], rewards: [-1, -1] })),
    );
    const salvage = grads(
      () => salvageDsLoss(policy, rows, { clipEps: 0.2, beta: 0.001, betaBrake: 0 }).total,
    );
    const batch = policy.encode(xs.map((e) => e.state));
    const sft = grads(
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
    disposeRows(rows);
    reference.dispose();
    expect(sft).toHaveLength(salvage.length);
    const scale = sft.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const worst = sft.reduce((m, v, i) => Math.max(m, Math.abs(v - salvage[i])), 0);
    expect(scale).toBeGreaterThan(1e-4);
    expect(worst / scale).toBeLessThan(1e-4);
  });

  it('starts at KL 0 and a seeded run reproduces exactly', () => {
    const run = () => {
      const p = policy.clone();
      const r = runRl({
        algo: 'salvage-ds',
        policy: p,
        examples,
        steps: 3,
        batchSize: 4,
        groupSize: 4,
        seed: 8,
      });
      p.dispose();
      return r.metrics;
    };
    const a = run();
    expect(a[0][METRICS.klRef]).toBe(0);
    expect(run()).toEqual(a);
  });
});
