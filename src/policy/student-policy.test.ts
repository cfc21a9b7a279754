import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../core/action.ts';
import { InputError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { initPolicyBackend } from './backend.ts';
import { createStudentPolicy, type LocalStudentPolicy, loadStudentPolicy } from './student-policy.ts';
import { syntheticTrajectories, tinyState } from './testing/synthetic.ts';

const key = (a: Action) => JSON.stringify(a);
let policy: LocalStudentPolicy;
const dirs: string[] = [];

beforeAll(async () => {
  expect(await initPolicyBackend('wasm')).toBe('wasm');
  policy = await createStudentPolicy({ model: { seed: 11 } });
});
afterAll(() => {
  policy.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function trajectoryStates() {
  return syntheticTrajectories(4, 3, 3).flatMap((t) =>
    t.steps.map((s, i) => ({
      state: { task: t.task, observation: s.observation, history: t.steps.slice(0, i).map((x) => x.action) },
      action: s.action,
    })),
  );
}

describe('LocalStudentPolicy', () => {
  it('gives a distribution over the whole candidate set that sums to 1', () => {
    for (const { state } of trajectoryStates().slice(0, 4)) {
      const all = policy.enumerate(state);
      const total = all.reduce((a, x) => a + Math.exp(x.logProb), 0);
      expect(Math.abs(total - 1)).toBeLessThan(1e-5);
      expect(new Set(all.map((x) => key(x.action))).size).toBe(all.length);
    }
    const tiny = policy.enumerate(tinyState());
    expect(
      tiny.some((x) => x.action.type === 'select_dropdown' && x.action.text === 'Price: low to high'),
    ).toBe(true);
    expect(Math.abs(tiny.reduce((a, x) => a + Math.exp(x.logProb), 0) - 1)).toBeLessThan(1e-5);
  });

  it('forward part log-probs sum to logProb() and logProb matches the enumeration', () => {
    const state = tinyState();
    const all = policy.enumerate(state);
    const picks = all.filter((_, i) => i % 3 === 0);
    const batch = policy.encode(picks.map(() => state));
    const { parts, total, rep } = tf.tidy(() => {
      const f = policy.forward(
        batch,
        picks.map((p) => p.action),
      );
      return { parts: f.partLogProbs.arraySync(), total: f.logProbs.arraySync(), rep: f.representable };
    });
    batch.dispose();
    picks.forEach((p, i) => {
      expect(rep[i]).toBe(true);
      const sum = parts[i].reduce((a, b) => a + b, 0);
      expect(sum).toBeCloseTo(total[i], 4);
      expect(policy.logProb(state, p.action)).toBeCloseTo(p.logProb, 4);
    });
    expect(policy.logProb(state, { type: 'navigate', url: 'http://x', new_tab: false })).toBe(
      Number.NEGATIVE_INFINITY,
    );
  });

  it('samples actions with the frequencies their log-probs give', () => {
    const state = tinyState();
    const probs = new Map(policy.enumerate(state).map((x) => [key(x.action), x.logProb]));
    const batch = policy.encode([state]);
    const n = 6000;
    const samples = policy.sample(batch, n, { rng: new Rng(5) })[0];
    batch.dispose();
    const counts = new Map<string, number>();
    for (const s of samples) {
      expect(s.logProb).toBeCloseTo(probs.get(key(s.action))!, 4);
      counts.set(key(s.action), (counts.get(key(s.action)) ?? 0) + 1);
    }
    // Pearson chi-square over cells expecting >= 5 samples, the rest pooled into one cell.
    let chi = 0;
    let cells = 0;
    let restExp = 0;
    let restObs = 0;
    for (const [k, lp] of probs) {
      const exp = n * Math.exp(lp);
      const obs = counts.get(k) ?? 0;
      if (exp >= 5) {
        chi += (obs - exp) ** 2 / exp;
        cells++;
      } else {
        restExp += exp;
        restObs += obs;
      }
    }
    if (restExp > 0) {
      chi += (restObs - restExp) ** 2 / Math.max(restExp, 1);
      cells++;
    }
    const df = cells - 1;
    expect(df).toBeGreaterThan(5);
    expect(chi).toBeLessThan(df + 5 * Math.sqrt(2 * df));
  });

  it('is deterministic: the same seed gives the same weights and samples', async () => {
    const a = await createStudentPolicy({ model: { seed: 4 } });
    const b = await createStudentPolicy({ model: { seed: 4 } });
    const c = await createStudentPolicy({ model: { seed: 5 } });
    const wa = a.model.snapshot();
    const wb = b.model.snapshot();
    for (const k of Object.keys(wa))
      expect(Buffer.from(wa[k].buffer).equals(Buffer.from(wb[k].buffer))).toBe(true);
    expect(Buffer.from(wa.el_w1.buffer).equals(Buffer.from(c.model.snapshot().el_w1.buffer))).toBe(false);
    const states = trajectoryStates().map((x) => x.state);
    const draw = (p: LocalStudentPolicy) => {
      const batch = p.encode(states);
      const s = p.sample(batch, 4, { rng: new Rng(9) });
      batch.dispose();
      return s.map((row) => row.map((x) => `${key(x.action)}@${x.logProb}`));
    };
    expect(draw(a)).toEqual(draw(b));
    for (const p of [a, b, c]) p.dispose();
  });

  it('round-trips a checkpoint with identical outputs and refuses another featurizer version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmsweb-policy-'));
    dirs.push(dir);
    await policy.save(dir);
    const loaded = await loadStudentPolicy(dir);
    const states = trajectoryStates();
    const run = (p: LocalStudentPolicy) => {
      const batch = p.encode(states.map((s) => s.state));
      const g = p.greedy(batch).map((s) => `${key(s.action)}@${s.logProb}`);
      const lp = tf.tidy(() =>
        Array.from(
          p
            .forward(
              batch,
              states.map((s) => s.action),
            )
            .logProbs.dataSync(),
        ),
      );
      batch.dispose();
      return { g, lp };
    };
    expect(run(loaded)).toEqual(run(policy));
    loaded.dispose();
    const cfgPath = join(dir, 'config.json');
    const cfg = JSON.parse(readFileSync(cfgPath, 'utf8'));
    writeFileSync(cfgPath, JSON.stringify({ ...cfg, featurizerVersion: cfg.featurizerVersion + 1 }));
    await expect(loadStudentPolicy(dir)).rejects.toThrow(/featurizer version/);
    await expect(loadStudentPolicy(join(dir, 'missing'))).rejects.toBeInstanceOf(InputError);
  });

  it('clones into independent variables', () => {
    const copy = policy.clone();
    const state = tinyState();
    expect(copy.enumerate(state)).toEqual(policy.enumerate(state));
    copy.trainableVariables()[0].assign(tf.zerosLike(copy.trainableVariables()[0]));
    expect(copy.enumerate(state)).not.toEqual(policy.enumerate(state));
    copy.dispose();
  });
});

describe('tensor hygiene', () => {
  it('leaves no tensors behind after decoding, scoring and a training step', async () => {
    const { JsAdam } = await import('./adam.ts');
    const states = trajectoryStates();
    const adam = new JsAdam(policy.trainableVariables(), 1e-3);
    const before = tf.memory().numTensors;
    const batch = policy.encode(states.map((s) => s.state));
    policy.greedy(batch);
    policy.sample(batch, 3, { rng: new Rng(1) });
    policy.logProb(states[0].state, states[0].action);
    policy.enumerate(states[0].state);
    const { value, grads } = tf.variableGrads(() => {
      const f = policy.forward(
        batch,
        states.map((s) => s.action),
      );
      return tf.neg(tf.sum(tf.mul(f.partLogProbs, f.partMask))) as tf.Scalar;
    }, policy.trainableVariables());
    expect(Object.keys(grads)).toHaveLength(policy.trainableVariables().length);
    adam.step(grads, 5);
    tf.dispose([value, ...Object.values(grads)]);
    batch.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});
