import { describe, expect, it } from 'vitest';
import { InputError, Trajectory } from '../core/index.ts';
import { ScriptedChatModel } from '../models/testing/scripted-chat-model.ts';
import { makeTrajectory } from '../store/fixtures.ts';
import { judgeUnderTest, parseJudgeSpec } from './judge-under-test.ts';
import { claimedSuccess, RulesJudge } from './rules-judge.ts';

const world = Trajectory.parse(makeTrajectory({ id: 'w1', success: false }));

describe('judge specs', () => {
  it('reads rules and [method:]openai specs, and names them canonically', () => {
    expect(parseJudgeSpec('rules')).toEqual({ kind: 'rules' });
    expect(parseJudgeSpec('openai:m@http://127.0.0.1:1/v1')).toEqual({
      kind: 'llm',
      method: 'webvoyager',
      model: 'openai:m@http://127.0.0.1:1/v1',
    });
    expect(parseJudgeSpec('WebJudge:openai:m')).toMatchObject({ method: 'webjudge', model: 'openai:m' });
    expect(judgeUnderTest(parseJudgeSpec('rules')).name).toBe('rules');
    for (const bad of ['answer', 'vllm:m', 'webjudge:rules', 'rubric:openai:'])
      expect(() => parseJudgeSpec(bad), bad).toThrow(InputError);
  });
});

describe('the rules judge', () => {
  it("reads the agent's closing claim on world tasks", async () => {
    const judge = new RulesJudge();
    const input = (t: Trajectory) => ({
      task: t.task,
      trajectory: t,
      finalAnswer: t.finalAnswer,
      loadImage: async () => null,
    });
    expect(claimedSuccess(world)).toBeNull();
    expect((await judge.verify(input(world))).failedConditions).toEqual(['no_done_action', 'no_answer']);
    const done = {
      ...world,
      finalAnswer: 'Added',
      steps: [{ ...world.steps[0], action: { type: 'done' as const, text: 'Added', success: true } }],
    };
    expect(await judge.verify(input(done))).toMatchObject({ success: true, verifierId: 'rules' });
  });
});

describe('the rubric judge under test', () => {
  it('judges a world task against a one-criterion rubric, its objective, and keeps the graded score', async () => {
    const model = new ScriptedChatModel([
      JSON.stringify({
        items: [{ index: 1, applies: true, earnedPoints: 0.5, justification: 'half' }],
        outcome: 'failure',
        blocker: 'none',
        summary: 'only half done',
      }),
    ]);
    const j = judgeUnderTest(parseJudgeSpec('rubric:openai:m@http://127.0.0.1:1/v1'), {
      makeModel: () => model,
    });
    const r = await j.judge(world, async () => null);
    expect(r).toMatchObject({
      judge: 'rubric:openai:m@http://127.0.0.1:1/v1',
      outcome: 'failure',
      score: 0.5,
    });
    expect(r.usage).toMatchObject({ promptTokens: 10, completionTokens: 5, calls: 1 });
    const prompt = JSON.stringify(model.calls[0].messages);
    expect(prompt).toContain(`1. ${world.task.objective} (max 1 points)`);
  });
});
