import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { CriticalState } from '../core/critical-state.ts';
import { InputError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { Trajectory, type TrajectoryInput } from '../core/trajectory.ts';
import { RunStore } from '../store/index.ts';
import {
  loadCriticalStates,
  loadFullCorpus,
  parseCriticalStates,
  type RlExample,
  trajectoryExamples,
} from './critical-data.ts';
import { runRl } from './run-rl.ts';
import { TinyPolicy } from './testing/tiny-policy.ts';
import { toyExamples } from './testing/toy-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-rl-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const task: Task = {
  schemaVersion: 1,
  id: 'shop-1',
  suite: 'world',
  site: 'shop',
  objective: 'Search for red shoes',
  startUrl: 'http://shop.test/',
  verifier: { kind: 'world', template: 'search', params: { q: 'red shoes' } },
};
const box = { x: 0, y: 0, width: 1, height: 1 };
const obs = (notes: string[] = []) => ({
  url: 'http://shop.test/',
  elements: [{ index: 0, tag: 'input', name: 'Search', nodeKey: 'k0', bbox: box }],
  notes,
});
const truth: Action = { type: 'input', index: 0, text: 'red shoes', clear: true };

function criticalLine(id: string): string {
  return JSON.stringify(
    CriticalState.parse({
      id,
      task,
      success: {
        trajectoryId: 't1',
        stepIndex: 0,
        observation: obs(['reflection: type the query']),
        action: truth,
      },
      failure: { trajectoryId: 't2', stepIndex: 0, observation: obs(), action: { type: 'click', index: 0 } },
      comparability: { url: 1, elements: 1, memory: 1, progress: 1, total: 1 },
      label: 'input-error',
      labelSource: 'rules',
    }),
  );
}

describe('critical-state data', () => {
  it('loads the success side as (state, truth), stripping reflection notes and the verifier', async () => {
    const file = join(dir, 'critical.jsonl');
    writeFileSync(file, `${criticalLine('cs1')}\n\n${criticalLine('cs2')}\n`);
    const xs = await loadCriticalStates(file);
    expect(xs.map((x) => x.id)).toEqual(['cs1', 'cs2']);
    expect(xs[0].truth).toEqual(truth);
    expect(xs[0].state.observation.notes).toEqual([]);
    expect(xs[0].state.task).toEqual({
      id: 'shop-1',
      objective: 'Search for red shoes',
      startUrl: 'http://shop.test/',
      site: 'shop',
    });
  });

  it('names the file, line and field of bad input', async () => {
    const bad = `${criticalLine('ok')}\n${JSON.stringify({ ...JSON.parse(criticalLine('x')), label: 'nope' })}\n`;
    expect(() => parseCriticalStates(bad, 'c.jsonl')).toThrow(/c\.jsonl, line 2, field label/);
    expect(() => parseCriticalStates('{oops', 'c.jsonl')).toThrow(/c\.jsonl, line 1: not valid JSON/);
    await expect(loadCriticalStates(join(dir, 'missing.jsonl'))).rejects.toSatisfy(InputError.isInstance);
  });
});

describe('the order RL reads mined states in', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });
  // Two bases that mined the same states: the ids are random per run, and the miner listed them
  // in another order (the store's episode order differs).
  const base = (toys: RlExample[], run: string, order: number[]) =>
    order
      .map((i) => {
        const e = toys[i];
        return JSON.stringify(
          CriticalState.parse({
            id: `cs-${run}-${i}`,
            task: { ...task, id: e.state.task.id, objective: e.state.task.objective, site: 'toy' },
            success: {
              trajectoryId: `ok-${run}-${i}`,
              stepIndex: i % 3,
              observation: e.state.observation,
              action: e.truth,
            },
            failure: {
              trajectoryId: `fail-${run}-${i}`,
              stepIndex: i % 3,
              observation: e.state.observation,
              action: { type: 'scroll', direction: 'down' },
            },
            comparability: { url: 1, elements: 1, memory: 1, progress: 1, total: 1 },
            label: 'lookalike-element',
            labelSource: 'rules',
          }),
        );
      })
      .join('\n');
  const toys = toyExamples(12, 4);
  const a = parseCriticalStates(base(toys, 'a', [...toys.keys()]), 'a.jsonl');
  const b = parseCriticalStates(base(toys, 'b', [...toys.keys()].reverse()), 'b.jsonl');
  const content = (xs: RlExample[]) => xs.map((x) => JSON.stringify([x.state, x.truth]));

  it('is canonical: the same states in two orders, under other ids, give the same data order', () => {
    expect(a.map((x) => x.id)).not.toEqual(b.map((x) => x.id));
    expect(content(a)).toEqual(content(b));
    // Not the file order of either base.
    expect(content(a)).not.toEqual(content(toys));
  });

  it('trains the tiny policy to identical weights from either base', () => {
    const train = (examples: RlExample[]) => {
      const r = runRl({
        algo: 'dapo',
        reward: 'polarized',
        policy: new TinyPolicy({ seed: 3 }),
        examples,
        steps: 4,
        batchSize: 3,
        groupSize: 4,
        seed: 7,
      });
      const w = r.policy.trainableVariables().map((v) => Array.from(v.dataSync()));
      r.policy.dispose();
      return { w, rollouts: r.rolloutsSampled };
    };
    const ra = train(a);
    const rb = train(b);
    expect(rb.rollouts).toBe(ra.rollouts);
    expect(rb.w).toEqual(ra.w);
    // The same states in another order train other weights: the order is what the sort fixes.
    expect(train([...a].reverse()).w).not.toEqual(ra.w);
  });
});

describe('full-corpus data', () => {
  const trajectory = (id: string, success: boolean): TrajectoryInput => {
    const actions: Action[] = [
      truth,
      { type: 'click', index: 0 },
      { type: 'done', text: 'ok', success: true },
    ];
    return {
      id,
      task,
      agentId: 'teacher',
      steps: actions.map((action, index) => ({
        index,
        observation: obs(['note']),
        output: makeAgentOutput({}, [action]),
        action,
        result: {},
      })),
      endReason: 'done',
      verdict: { success, score: success ? 1 : 0, verifierId: 'world' },
      startedAt: '2025-01-01T00:00:00Z',
      endedAt: '2025-01-01T00:01:00Z',
    };
  };

  it('takes every step of verified successes only, with history and without notes', () => {
    const run = join(dir, 'run');
    const store = RunStore.open(run);
    store.saveTrajectory(trajectory('ok-1', true));
    store.saveTrajectory(trajectory('fail-1', false));
    store.close();
    const xs = loadFullCorpus(run);
    expect(xs.map((x) => x.id)).toEqual(['ok-1#0', 'ok-1#1', 'ok-1#2']);
    expect(xs[2].state.history.map((a) => a.type)).toEqual(['input', 'click']);
    expect(xs.every((x) => x.state.observation.notes.length === 0)).toBe(true);
    expect(trajectoryExamples([])).toEqual([]);
    // The store's order (the order workers finished) does not change the data order.
    const other = { ...trajectory('ok-0', true), task: { ...task, id: 'shop-0' } };
    const order = (ts: TrajectoryInput[]) =>
      trajectoryExamples(ts.map((t) => Trajectory.parse(t))).map((x) => x.id.split('#')[0]);
    expect(order([trajectory('ok-1', true), other])).toEqual(order([other, trajectory('ok-1', true)]));
    expect(() => loadFullCorpus(join(dir, 'nowhere'))).toThrow(/does not exist/);
  });
});
