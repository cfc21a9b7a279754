import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { CriticalState } from '../core/critical-state.ts';
import { InputError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { TrajectoryInput } from '../core/trajectory.ts';
import { RunStore } from '../store/index.ts';
import {
  loadCriticalStates,
  loadFullCorpus,
  parseCriticalStates,
  trajectoryExamples,
} from './critical-data.ts';

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
    expect(() => loadFullCorpus(join(dir, 'nowhere'))).toThrow(/does not exist/);
  });
});
