import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../store/index.ts';
import { METRICS, type StepMetrics } from './metrics.ts';
import { RL_ALGOS, runRl } from './run-rl.ts';
import { TinyPolicy } from './testing/tiny-policy.ts';
import { toyExamples } from './testing/toy-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-rl-run-'));
beforeAll(async () => {
  await tf.setBackend('cpu');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const examples = toyExamples(12, 1);

describe('runRl', () => {
  it.each(RL_ALGOS)(
    'runs %s by name, logs every step to the callback and the run store, leaks no tensors',
    (algo) => {
      const store = RunStore.open(join(dir, algo));
      const seen: StepMetrics[] = [];
      const policy = new TinyPolicy({ seed: 1 });
      const tensorsBefore = tf.memory().numTensors;
      const r = runRl({
        algo,
        reward: 'exact',
        policy,
        examples,
        steps: 3,
        batchSize: 3,
        groupSize: 4,
        seed: 5,
        onMetrics: (m) => seen.push(m),
        metricsStore: store,
        updateEpochs: 2,
      });
      // no tensor outlives the run (long ablations would otherwise grow without bound)
      expect(tf.memory().numTensors).toBe(tensorsBefore);
      expect(r.algo).toBe(algo);
      expect(r.reward).toBe('exact');
      expect(r.metrics).toEqual(seen);
      expect(r.metrics.map((m) => m.step)).toEqual([1, 2, 3]);
      const logged = store.listMetrics(`rl/${algo}`);
      expect(logged.map((p) => p.step)).toEqual([1, 2, 3]);
      expect(logged[2].values[METRICS.rolloutsTotal]).toBe(r.rolloutsSampled);
      // exact-match rewards are 0/1
      for (const m of r.metrics) expect(m[METRICS.meanReward]).toBeGreaterThanOrEqual(0);
      store.close();
      r.policy.dispose();
    },
  );

  it('passes algorithm-specific options through and validates the common ones', () => {
    const p = new TinyPolicy({ seed: 1 });
    const r = runRl({
      algo: 'salvage-ds',
      policy: p,
      examples,
      steps: 2,
      batchSize: 3,
      groupSize: 4,
      algoOptions: { competenceTau: 5 },
    });
    expect(r.metrics.every((m) => m[METRICS.salvageShare] === 1)).toBe(true);
    expect(() => runRl({ algo: 'grpo', policy: p, examples, salvage: false })).toThrow(/salvage-ds only/);
    expect(() => runRl({ algo: 'dapo', policy: p, examples, steps: 0 })).toThrow(/field steps/);
    expect(() => runRl({ algo: 'dapo', policy: p, examples: [] })).toThrow(/no training examples/);
    expect(() => runRl({ algo: 'ppo' as 'dapo', policy: p, examples })).toThrow(/field algo/);
    p.dispose();
  });
});
