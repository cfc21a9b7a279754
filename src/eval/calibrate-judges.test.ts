import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelApiError, type TrajectoryInput } from '../core/index.ts';
import { judgeUnderTest, parseJudgeSpec } from '../judge/judge-under-test.ts';
import type { ChatGenerateOptions, ChatGenerateResult, ChatModel } from '../models/index.ts';
import { makeTrajectory } from '../store/fixtures.ts';
import { RunStore } from '../store/run-store.ts';
import { WORLD_VERIFIER_ID } from '../world/world.ts';
import { calibrateJudges } from './calibrate-judges.ts';
import { renderCalibrationMarkdown, renderCalibrationSvg } from './judge-calibration.ts';

/**
 * A world episode the verifier scored `truth`; the agent claimed success (done) when `claims`, and
 * its answer names how the fake judge model will behave on it.
 */
function episode(i: number, truth: boolean, claims: boolean, behaviour: string): TrajectoryInput {
  const t = makeTrajectory({ id: `traj_${String(i).padStart(2, '0')}`, taskId: `task_${i}`, success: truth });
  const answer = `${behaviour} answer ${i}`;
  const steps = t.steps as any[];
  steps[steps.length - 1] = {
    ...steps[steps.length - 1],
    action: { type: 'done', text: answer, success: claims },
    result: { isDone: true, success: claims, extractedContent: answer },
  };
  return {
    ...t,
    site: undefined,
    task: { ...t.task, site: i % 2 ? 'shop' : 'mail' },
    finalAnswer: answer,
    verdict: {
      success: truth,
      score: truth ? 1 : 0,
      reason: truth ? 'all conditions met' : 'cart.item not met',
      verifierId: WORLD_VERIFIER_ID,
      failedConditions: truth ? [] : ['cart.item'],
    },
  } as TrajectoryInput;
}

/**
 * A fake judge endpoint for TESTS ONLY: it reads the behaviour word from the answer in the prompt
 * and answers SUCCESS, NOT SUCCESS, an unreadable reply, an endpoint failure or nothing at all.
 */
class BehaviourModel implements ChatModel {
  readonly id = 'fake-judge';
  readonly provider = 'fake';
  calls = 0;
  down = true;
  async doGenerate(opts: ChatGenerateOptions): Promise<ChatGenerateResult> {
    this.calls++;
    const user = opts.messages[1].content;
    const text =
      typeof user === 'string' ? user : user.map((p) => (p.type === 'text' ? p.text : '')).join('');
    const reply = (s: string): ChatGenerateResult => ({
      choices: [{ text: s, finishReason: 'stop' }],
      usage: { promptTokens: 100, completionTokens: 20, costUsd: 0.001, calls: 1 },
      cached: false,
      rawId: null,
      modelId: this.id,
    });
    if (text.includes('yes answer')) return reply('It is done.\nVerdict: SUCCESS');
    if (text.includes('no answer')) return reply('Wrong item.\nVerdict: NOT SUCCESS');
    if (text.includes('garbage answer')) return reply('I am not sure what to say.');
    if (text.includes('down answer') && this.down)
      throw new ModelApiError('judge endpoint answered 503 after 0 retries', {
        status: 503,
        isRetryable: true,
      });
    if (text.includes('down answer')) return reply('Verdict: SUCCESS');
    if (text.includes('hang answer')) return new Promise(() => {});
    throw new Error(`unexpected prompt: ${text.slice(0, 80)}`);
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-calibrate-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('calibrateJudges', () => {
  it('scores judges against the verifier, counts judge errors apart, and resumes', async () => {
    const store = RunStore.open(dir);
    const plan: Array<[boolean, boolean, string]> = [
      [true, true, 'yes'], // agrees
      [true, true, 'yes'],
      [true, true, 'no'], // judge misses a success
      [true, true, 'garbage'], // unparseable
      [false, true, 'yes'], // judge fooled by a claimed success
      [false, false, 'no'],
      [false, true, 'down'], // endpoint down
      [false, true, 'hang'], // timeout
    ];
    for (const [i, [truth, claims, b]] of plan.entries()) store.saveTrajectory(episode(i, truth, claims, b));
    // A live-suite episode with an LLM verdict is not ground truth and never sampled.
    store.saveTrajectory({
      ...makeTrajectory({ id: 'traj_live', success: true }),
      task: { ...makeTrajectory().task, suite: 'webvoyager', verifier: { kind: 'judge' } },
    });
    const model = new BehaviourModel();
    const judges = () => [
      judgeUnderTest(parseJudgeSpec('rules')),
      judgeUnderTest(parseJudgeSpec('openai:fake-judge@http://127.0.0.1:9/v1'), {
        makeModel: () => model,
        timeoutMs: 300,
      }),
    ];
    const progress: number[] = [];
    const r = await calibrateJudges({
      store,
      run: dir,
      judges: judges(),
      sample: 20,
      seed: 3,
      resamples: 500,
      onProgress: (done) => progress.push(done),
    });
    expect(r.sample.ids).toHaveLength(8);
    expect(r.sample.ids).not.toContain('traj_live');
    expect(progress.at(-1)).toBe(16);

    const rules = r.rows.find((x) => x.row === 'rules')!;
    // rules reads the claim: it agrees except where the agent claimed a success it did not have.
    expect(rules.stats.confusion).toEqual({ tp: 4, fp: 3, fn: 0, tn: 1, errors: 0 });

    const llm = r.rows.find((x) => x.row === 'webvoyager:openai:fake-judge@http://127.0.0.1:9/v1')!;
    expect(llm.stats.confusion).toEqual({ tp: 2, fp: 1, fn: 1, tn: 1, errors: 3 });
    expect(llm.errorKinds).toEqual({ unparseable: 1, endpoint: 1, timeout: 1 });
    expect(llm.stats.errorRate.value).toBeCloseTo(3 / 8, 12);
    expect(llm.stats.agreement.value).toBeCloseTo(3 / 5, 12);
    expect(llm.tokensPerVerdict).toBeGreaterThan(0);
    const vote = r.rows.find((x) => x.kind === 'majority')!;
    expect(vote.stats.n).toBe(8);

    // The disagreements name the episode, both verdicts and both reasons.
    const fooled = r.disagreements.find((d) => d.trajectoryId === 'traj_04' && d.judge !== 'rules')!;
    expect(fooled).toMatchObject({ truth: false, judged: true, verifierReason: 'cart.item not met' });
    expect(fooled.judgeReason).toMatch(/It is done/);
    const md = renderCalibrationMarkdown(r);
    expect(md).toContain('[traj_04](/judge/traj_04)');
    expect(md).toMatch(/1 unparseable, 1 endpoint, 1 timeout/);
    expect(renderCalibrationSvg(r)).toMatch(/^<svg[\s\S]*judge errors: 3/);

    // Rerun: finished pairs are skipped; the endpoint and timeout errors are asked again.
    const before = model.calls;
    model.down = false;
    const again = await calibrateJudges({
      store,
      run: dir,
      judges: judges(),
      sample: 20,
      seed: 3,
      resamples: 500,
    });
    expect(model.calls - before).toBe(2);
    const llm2 = again.rows.find((x) => x.kind === 'judge' && x.row !== 'rules')!;
    expect(llm2.errorKinds).toEqual({ unparseable: 1, timeout: 1 });
    expect(llm2.stats.confusion.fp).toBe(2);
    store.close();
  });
});
