import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { TinyPolicy } from './tiny-policy.ts';
import { toyExamples } from './toy-data.ts';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('TinyPolicy (the rl/ test policy) honours the StudentPolicy contract', () => {
  const examples = toyExamples(6, 3);

  it('sampled log-probs equal teacher-forced log-probs, part by part', () => {
    const p = new TinyPolicy({ seed: 2, initScale: 0.5 });
    const batch = p.encode(examples.map((e) => e.state));
    const samples = p.sample(batch, 4, { rng: new Rng(1) });
    for (let k = 0; k < 4; k++) {
      const actions = samples.map((g) => g[k].action);
      tf.tidy(() => {
        const f = p.forward(batch, actions);
        const lp = f.logProbs.dataSync();
        const parts = f.partLogProbs.arraySync() as number[][];
        samples.forEach((g, i) => {
          expect(f.representable[i]).toBe(true);
          expect(lp[i]).toBeCloseTo(g[k].logProb, 4);
          expect(parts[i][0]).toBeCloseTo(g[k].parts.type, 4);
          expect(parts[i][1]).toBeCloseTo(g[k].parts.element ?? 0, 4);
          expect(parts[i][2]).toBeCloseTo(g[k].parts.argument ?? 0, 4);
          expect(p.logProb(examples[i].state, actions[i])).toBeCloseTo(lp[i], 4);
        });
      });
    }
    batch.dispose();
    p.dispose();
  });

  it('heads are normalized and every ground truth is representable; clones are equal but independent', () => {
    const p = new TinyPolicy({ seed: 2 });
    const batch = p.encode(examples.map((e) => e.state));
    tf.tidy(() => {
      const f = p.forward(
        batch,
        examples.map((e) => e.truth),
      );
      for (const head of [f.typeLogProbs, f.elementLogProbs, f.argLogProbs]) {
        for (const s of tf.sum(tf.exp(head), 1).dataSync()) expect(s).toBeCloseTo(1, 5);
      }
      expect(f.representable.every(Boolean)).toBe(true);
    });
    const c = p.clone();
    expect(c.logProb(examples[0].state, examples[0].truth)).toBe(
      p.logProb(examples[0].state, examples[0].truth),
    );
    c.trainableVariables()[0].assign(tf.zerosLike(c.trainableVariables()[0]));
    expect(c.logProb(examples[0].state, examples[0].truth)).not.toBe(
      p.logProb(examples[0].state, examples[0].truth),
    );
    expect(p.greedy(batch)).toHaveLength(examples.length);
    batch.dispose();
    p.dispose();
    c.dispose();
  });
});
