import { afterAll, describe, expect, it } from 'vitest';
import { WorldServer } from '../world/server.ts';
import { generateWorldTasks } from '../world/tasks.ts';
import {
  checkAgentSpec,
  isDeterministicAgent,
  openWorldRuntime,
  resolveAgent,
  screenshotsFor,
  type WorldRuntime,
} from './runtime.ts';

describe('openWorldRuntime', () => {
  let rt: WorldRuntime | null = null;
  afterAll(async () => {
    await rt?.close();
  });

  it('takes over when the world it reused (another process started it) goes away', async () => {
    const owner = await WorldServer.start({ port: 0 });
    const port = owner.port;
    rt = await openWorldRuntime({ port, screenshots: false });
    expect(rt.origin).toBe(`http://127.0.0.1:${port}`);
    const task = generateWorldTasks({ split: 'train' }).find((t) => t.site === 'forms')!;
    const env = await rt.makeEnv();
    try {
      expect((await rt.start(env, task)).sessionId).toBeTruthy();
      await owner.stop();
      // The next episode starts a world of its own on the same port and runs as before.
      const again = await rt.start(env, task);
      expect(again.sessionId).toBeTruthy();
      expect(again.observation.url).toContain(`127.0.0.1:${port}/forms`);
      expect(rt.origin).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await env.close();
    }
  }, 60_000);
});

describe('screenshotsFor', () => {
  it('skips screenshots for the local student unless asked, keeps them for other agents and LLM judges', () => {
    expect(screenshotsFor('policy:models/sft')).toBe(false);
    expect(screenshotsFor('policy:models/sft', { override: true })).toBe(true);
    expect(screenshotsFor('policy:models/sft', { judge: 'openai:gpt-4o' })).toBe(true);
    expect(screenshotsFor('openai:gpt-4o')).toBe(true);
    expect(screenshotsFor('heuristic')).toBe(true);
    expect(screenshotsFor('heuristic', { override: false })).toBe(false);
  });
});

describe('lm: agent specs', () => {
  it('resolve to the LM student over a completions endpoint, and a bad one is refused as --agent', async () => {
    const agent = await resolveAgent('lm:openai:gemma@http://127.0.0.1:9/v1');
    expect(agent.id).toBe('lm:openai:gemma');
    expect(() => checkAgentSpec('lm:vllm:models/x')).toThrow(/lm:openai:<model>.*lm:hf:<dir>/);
    expect(() => checkAgentSpec('lm:hf:models/no-such-dir')).toThrow(/no-such-dir.*no such file or folder/);
    expect(isDeterministicAgent('lm:hf:models/x')).toBe(true);
    expect(isDeterministicAgent('lm:openai:gemma@http://127.0.0.1:9/v1')).toBe(true);
    expect(screenshotsFor('lm:openai:gemma@http://127.0.0.1:9/v1')).toBe(false);
  });
});
