import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.ts';
import type { EpisodeEnv } from '../agent/episode.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { ModelApiError } from '../core/errors.ts';
import { Observation } from '../core/observation.ts';
import { Task } from '../core/task.ts';
import type { Verdict } from '../core/trajectory.ts';
import { JUDGE_VERDICT_RECORD, judgeVerdictKey, withJudgeFailures } from '../judge/judge-under-test.ts';
import { unparseableVerdict } from '../judge/verifier.ts';
import { makeTrajectory } from '../store/fixtures.ts';
import { RunStore } from '../store/run-store.ts';
import { WORLD_VERIFIER_ID } from '../world/world.ts';
import { formatLedger, storedLedger } from './ledger.ts';
import { renderMarkdown } from './report.ts';
import { runEval } from './run-eval.ts';

const task = (id: string, suite: 'webvoyager' | 'world' = 'webvoyager') =>
  Task.parse({
    id,
    suite,
    site: 'shop',
    objective: `task ${id}`,
    startUrl: 'http://127.0.0.1/x',
    verifier: suite === 'world' ? { kind: 'world', template: 't', params: {} } : { kind: 'judge' },
  });

const env = (): EpisodeEnv & { close(): Promise<void> } => {
  const obs = () => Observation.parse({ url: 'http://127.0.0.1/x', elements: [] });
  return { reset: async () => obs(), step: async () => obs(), close: async () => {} };
};

/** Answers at once; on task `agent-down` its model endpoint is down (an infrastructure error). */
const agent = (): Agent => ({
  id: 'scripted',
  async act({ task: t }) {
    if (t.id === 'agent-down')
      throw new ModelApiError('agent endpoint answered 503', { status: 503, isRetryable: true });
    const a = { type: 'done' as const, text: `answer for ${t.id}`, success: true };
    return { output: makeAgentOutput({}, [a]), actions: [a] };
  },
});

/** A fake LLM judge (TESTS ONLY): its verdict, an unreadable reply, or its endpoint down, by task. */
const judge = withJudgeFailures(async (t: { task: Task }): Promise<Verdict> => {
  const id = t.task.id;
  if (id === 'judge-down')
    throw new ModelApiError('judge endpoint answered 502', { status: 502, isRetryable: true });
  if (id === 'judge-garbled') return unparseableVerdict('webvoyager-judge', 'no verdict found', 'hmm');
  const success = id.startsWith('ok');
  return {
    success,
    score: success ? 1 : 0,
    reason: '',
    verifierId: 'webvoyager-judge',
    failedConditions: [],
  };
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-ledger-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the reward-integrity ledger', () => {
  it('counts agent failures, infrastructure errors, judge errors and verdicts; pass@1 is over scored episodes', async () => {
    const store = RunStore.open(dir);
    const ids = ['ok-1', 'ok-2', 'bad-1', 'agent-down', 'judge-down', 'judge-garbled'];
    const s = await runEval({
      label: 'l',
      agentId: 'scripted',
      suite: 'webvoyager',
      tasks: ids.map((id) => task(id)),
      store,
      runs: 1,
      makeAgent: agent,
      makeEnv: async () => env(),
      verify: judge,
      workers: 1,
    });
    expect(s.ledger).toEqual({
      episodes: 6,
      scored: 3,
      successes: 2,
      agentFailures: 1,
      infraErrors: 1,
      judgeErrors: 2,
      unjudged: 0,
      bySource: { 'webvoyager-judge': 3 },
    });
    // The unreadable verdict is not a failure: pass@1 is 2 of the 3 scored episodes, not 2 of 4.
    expect(s.pass1.mean).toBeCloseTo(2 / 3, 12);
    expect(s.errored).toBe(2);
    const line = formatLedger(s.ledger!);
    expect(line).toBe(
      '6 episodes: 3 scored (3 by webvoyager-judge): 2 success(es), 1 agent failure(s); left out of pass@1: 1 infrastructure error(s), 2 judge error(s)',
    );
    const md = renderMarkdown({ title: 't', createdAt: 'now', stages: [{ stage: 'l', summary: s }] });
    expect(md).toContain(
      `## Where the rewards came from\n\npass@1 counts scored episodes only.\n\n- l: ${line}`,
    );
    store.close();
  });

  it("gives a calibrated judge's agreement with the verifier on a world run's episodes", () => {
    const store = RunStore.open(dir);
    for (const [i, success] of [true, true, false, false].entries()) {
      const t = makeTrajectory({ id: `t${i}`, taskId: `w${i}`, success, tags: ['eval', 'eval:w'] });
      store.saveTrajectory({
        ...t,
        verdict: { success, score: success ? 1 : 0, verifierId: WORLD_VERIFIER_ID },
      });
      const judged = i === 3 ? 'error' : i === 2 ? 'success' : 'success';
      store.putRecord(JUDGE_VERDICT_RECORD, judgeVerdictKey('webvoyager:openai:g', `t${i}`), {
        judge: 'webvoyager:openai:g',
        trajectoryId: `t${i}`,
        taskId: `w${i}`,
        site: 'shop',
        outcome: judged,
        ...(judged === 'error' ? { errorKind: 'unparseable' } : {}),
        score: null,
        reason: '',
        usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 },
        ms: 0,
        at: 'now',
      });
    }
    const l = storedLedger(store, { tag: 'eval:w' });
    expect(l).toMatchObject({ episodes: 4, scored: 4, successes: 2, agentFailures: 2 });
    expect(l.judgeAgreement).toEqual([
      { judge: 'webvoyager:openai:g', n: 3, agreement: 2 / 3, kappa: 0, errors: 1 },
    ]);
    expect(formatLedger(l)).toMatch(
      /webvoyager:openai:g agrees with the verifier on 66\.7% of 3 \(kappa 0\.00; 1 judge error\(s\)\)$/,
    );
    store.close();
  });
});
