import { describe, expect, it } from 'vitest';
import type { Action } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { Observation } from '../core/observation.ts';
import { Task } from '../core/task.ts';
import type { Agent } from './agent.ts';
import { type EpisodeEnv, runEpisode } from './episode.ts';

const task = Task.parse({
  id: 't1',
  suite: 'custom',
  site: 'x',
  objective: 'Press the button',
  startUrl: 'http://127.0.0.1/x',
  verifier: { kind: 'judge' },
});

/** A scripted in-memory env: a counter page whose button increments a value; index 9 does not exist. */
function counterEnv(): EpisodeEnv & { clicks: number; lastStepTiming?: { observeMs: number } } {
  const env = {
    clicks: 0,
    lastStepTiming: undefined as { observeMs: number } | undefined,
    obs(error: string | null = null) {
      return Observation.parse({
        url: 'http://127.0.0.1/x',
        elements: [
          {
            index: 0,
            tag: 'button',
            name: `Clicked ${env.clicks}`,
            bbox: { x: 0, y: 0, width: 10, height: 10 },
            nodeKey: 'b',
          },
        ],
        lastActionError: error,
        ...(error ? { lastActionErrorKind: 'not_found' } : {}),
      });
    },
    async reset() {
      env.clicks = 0;
      return env.obs();
    },
    async step(a: Action) {
      env.lastStepTiming = { observeMs: 7 + env.clicks };
      if (a.type === 'click' && a.index === 0) {
        env.clicks++;
        return env.obs();
      }
      return env.obs(`${a.type}: no element with index ${(a as { index?: number }).index}`);
    },
  };
  return env;
}

function scripted(actions: Action[]): Agent & { seen: Observation[] } {
  const seen: Observation[] = [];
  let i = 0;
  return {
    id: 'scripted',
    seen,
    async act({ observation }) {
      seen.push(observation);
      const a = actions[Math.min(i++, actions.length - 1)];
      return { output: makeAgentOutput({ memory: `did ${i}` }, [a]), actions: [a] };
    },
  };
}

describe('runEpisode', () => {
  it('runs to done, records the final answer, injects notes and memory', async () => {
    const agent = scripted([
      { type: 'click', index: 0 },
      { type: 'click', index: 0 },
      { type: 'done', text: 'two', success: true },
    ]);
    const t = await runEpisode({ agent, env: counterEnv(), task, notes: ['avoid X'] });
    expect(t.endReason).toBe('done');
    expect(t.finalAnswer).toBe('two');
    expect(t.steps).toHaveLength(3);
    expect(agent.seen.every((o) => o.notes[0] === 'avoid X')).toBe(true);
    expect(agent.seen[1].memory).toBe('did 1');
    expect(t.steps[1].observation.elements[0].name).toBe('Clicked 1');
  });

  it('reports a failed action in the next observation instead of throwing', async () => {
    const agent = scripted([
      { type: 'click', index: 9 },
      { type: 'done', text: '', success: false },
    ]);
    const t = await runEpisode({ agent, env: counterEnv(), task });
    expect(t.steps[0].result.error).toMatch(/no element with index 9/);
    expect(t.steps[0].result.errorKind).toBe('not_found');
    expect(agent.seen[1].lastActionErrorKind).toBe('not_found');
    expect(agent.seen[1].lastActionError).toMatch(/index 9/);
    expect(t.endReason).toBe('done');
  });

  it("records the environment's observe time and counts the rest of the step as acting", async () => {
    const agent = scripted([
      { type: 'click', index: 0 },
      { type: 'click', index: 0 },
      { type: 'done', text: '', success: true },
    ]);
    const t = await runEpisode({ agent, env: counterEnv(), task });
    expect(t.steps.map((s) => s.timing.observeMs)).toEqual([7, 8, 0]);
    for (const s of t.steps) expect(s.timing.actMs).toBeGreaterThanOrEqual(0);
    expect(t.steps[0].result.errorKind).toBeUndefined();
  });

  it('ends a loop of the same action on the same page with a reason', async () => {
    const agent = scripted([{ type: 'scroll', down: true, pages: 1 }]);
    const t = await runEpisode({ agent, env: counterEnv(), task, loopK: 3 });
    expect(t.endReason).toBe('loop');
    expect(t.steps).toHaveLength(3);
    expect(t.endDetail).toMatch(/repeated scroll/);
  });

  it('stops at the step budget and ends with error when the agent throws', async () => {
    const budget = await runEpisode({
      agent: scripted([{ type: 'click', index: 0 }]),
      env: counterEnv(),
      task,
      maxSteps: 4,
    });
    expect(budget.endReason).toBe('max_steps');
    expect(budget.steps).toHaveLength(4);
    const failing: Agent = {
      id: 'f',
      act: async () => {
        throw new Error('model down');
      },
    };
    const err = await runEpisode({ agent: failing, env: counterEnv(), task });
    expect(err.endReason).toBe('error');
    expect(err.endDetail).toMatch(/model down/);
  });

  it('times out a slow agent decision', async () => {
    const slow: Agent = { id: 's', act: () => new Promise(() => {}) };
    const t = await runEpisode({ agent: slow, env: counterEnv(), task, stepTimeoutMs: 50 });
    expect(t.endReason).toBe('timeout');
  });

  it('calls the verifier with the finished trajectory', async () => {
    const t = await runEpisode({
      agent: scripted([{ type: 'done', text: 'ok', success: true }]),
      env: counterEnv(),
      task,
      verify: async (tr) => ({
        success: tr.finalAnswer === 'ok',
        score: 1,
        reason: '',
        verifierId: 'v',
        failedConditions: [],
      }),
    });
    expect(t.verdict?.success).toBe(true);
  });

  it('records an expert label at every step without executing it, the expert reading its own notes', async () => {
    const agent = scripted([
      { type: 'scroll', down: true, pages: 1 },
      { type: 'done', text: 'x', success: true },
    ]);
    const expert = scripted([{ type: 'click', index: 0 }]);
    const env = counterEnv();
    const t = await runEpisode({
      agent,
      env,
      task,
      notes: ['student notes'],
      expert: { agent: expert, notes: ['prefer: click'] },
    });
    expect(t.steps.map((s) => s.action.type)).toEqual(['scroll', 'done']);
    expect(t.steps.map((s) => s.expertAction)).toEqual([
      { type: 'click', index: 0 },
      { type: 'click', index: 0 },
    ]);
    expect(env.clicks).toBe(0);
    expect(expert.seen.every((o) => o.notes.length === 1 && o.notes[0] === 'prefer: click')).toBe(true);
    expect(agent.seen.every((o) => o.notes[0] === 'student notes')).toBe(true);
  });
});
