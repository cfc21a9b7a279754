import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Trajectory } from '../core/trajectory.ts';
import { evaluateSteps } from './evaluate.ts';
import { DEFAULT_FEATURIZER } from './featurizer.ts';
import {
  expertRelabeledExamples,
  filterRepresentable,
  sftExamples,
  splitByTask,
  trainSft,
} from './sft-trainer.ts';
import { syntheticTrajectories } from './testing/synthetic.ts';

describe('sft data', () => {
  it('takes every step of verified successes, with the earlier actions as history and notes stripped', () => {
    const [ok, failed] = syntheticTrajectories(2, 5);
    const withNotes = Trajectory.parse({
      ...ok,
      steps: ok.steps.map((s) => ({ ...s, observation: { ...s.observation, notes: ['avoid: lookalikes'] } })),
    });
    const ex = sftExamples([withNotes, { ...failed, verdict: { ...failed.verdict!, success: false } }]);
    expect(ex).toHaveLength(ok.steps.length);
    ex.forEach((e, i) => {
      expect(e.state.history).toEqual(ok.steps.slice(0, i).map((s) => s.action));
      expect(e.state.observation.notes).toEqual([]);
      expect(e.action).toEqual(ok.steps[i].action);
      expect(Object.keys(e.state.task).sort()).toEqual(['id', 'objective', 'site', 'startUrl']);
    });
  });

  it('splits by task, seeded, and counts steps the policy cannot express', () => {
    const ex = sftExamples(syntheticTrajectories(40, 2));
    const a = splitByTask(ex, 0.25, 1);
    const b = splitByTask(ex, 0.25, 1);
    expect(a.val.map((e) => e.taskId)).toEqual(b.val.map((e) => e.taskId));
    const trainTasks = new Set(a.train.map((e) => e.taskId));
    expect(a.val.length).toBeGreaterThan(0);
    expect(a.val.every((e) => !trainTasks.has(e.taskId))).toBe(true);
    expect(a.valTasks).toBe(10);
    const input = ex[0].state.observation.elements.find((e) => e.tag === 'input')!.index;
    const odd = [
      { ...ex[0], action: { type: 'navigate' as const, url: 'http://x/', new_tab: false } },
      { ...ex[0], action: { type: 'done' as const, text: 'no', success: false } },
      { ...ex[0], action: { type: 'click' as const, index: 999 } },
      { ...ex[0], action: { type: 'input' as const, index: input, text: 'zzz unrelated text', clear: true } },
      ex[0],
    ];
    const r = filterRepresentable(odd, DEFAULT_FEATURIZER);
    expect(r.skipped).toEqual({
      'unsupported-type': 1,
      'gave-up': 1,
      'type-unavailable': 0,
      'element-not-kept': 1,
    });
    expect(r.kept).toHaveLength(2);
    expect(r.partial).toBe(1);
  });
});

describe('expert-relabelled data (DAgger)', () => {
  it('labels every relabelled step with the expert action, whatever the outcome, and keeps them out of validation', async () => {
    const pool = syntheticTrajectories(8, 4);
    const a = pool[0];
    const b = pool.reduce((x, y) => (y.steps.length > x.steps.length ? y : x));
    expect(b.steps.length).toBeGreaterThanOrEqual(3);
    const failed = Trajectory.parse({
      ...b,
      verdict: { ...b.verdict!, success: false },
      steps: b.steps.map((s, i) => (i === 1 ? s : { ...s, expertAction: a.steps[0].action })),
    });
    const ex = expertRelabeledExamples([failed, a]);
    expect(ex).toHaveLength(b.steps.length - 1);
    expect(ex.every((e) => e.expert && e.taskId === b.task.id)).toBe(true);
    expect(ex.map((e) => e.stepIndex)).toEqual(b.steps.map((_, i) => i).filter((i) => i !== 1));
    // The state is the one the (student's) trajectory reached: its own earlier actions as history.
    expect(ex[1].state.history).toEqual(b.steps.slice(0, 2).map((s) => s.action));
    expect(ex.every((e) => JSON.stringify(e.action) === JSON.stringify(a.steps[0].action))).toBe(true);

    const ok = syntheticTrajectories(12, 3);
    const relabeled = ok.map((t) =>
      Trajectory.parse({ ...t, steps: t.steps.map((s) => ({ ...s, expertAction: s.action })) }),
    );
    const outDir = mkdtempSync(join(tmpdir(), 'rmsweb-sft-'));
    const r = await trainSft(ok, { epochs: 1, valFrac: 0.25, relabeled, trainEvalSize: 0, outDir });
    // metrics.json records how many rollouts were relabelled, not the rollouts themselves.
    const metrics = JSON.parse(readFileSync(join(outDir, 'metrics.json'), 'utf8'));
    expect(metrics.options.relabeledRollouts).toBe(relabeled.length);
    expect(metrics.options.relabeled).toBeUndefined();
    rmSync(outDir, { recursive: true, force: true });
    expect(r.data.expertExamples).toBeGreaterThan(0);
    expect(r.data.val).toBeLessThan(r.data.examples - r.data.train);
    expect(r.data.train + r.data.val).toBeLessThan(r.data.examples);
    r.policy.dispose();
  });
});

describe('trainSft', () => {
  it('overfits a tiny dataset to 100% greedy step accuracy', async () => {
    const trajectories = syntheticTrajectories(8, 21);
    const { policy, data, epochs } = await trainSft(trajectories, {
      epochs: 15,
      trainEvalSize: 0,
      batchSize: 8,
      lr: 0.01,
      seed: 3,
      valFrac: 0,
    });
    expect(data.examples).toBe(data.steps);
    expect(epochs.at(-1)!.trainLoss).toBeLessThan(epochs[0].trainLoss);
    const acc = evaluateSteps(policy, sftExamples(trajectories));
    expect(acc.stepAccuracy).toBe(1);
    expect(acc.equivalentAccuracy).toBe(1);
    policy.dispose();
  });
});
