import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmAgent } from '../../agent/llm-agent.ts';
import { BrowserHost } from '../../browser/launch.ts';
import { type EpisodeJob, runEpisodePool } from '../../collect/episode-pool.ts';
import { worldVerifier } from '../../judge/world-verifier.ts';
import { OpenAIChatModel } from '../../models/openai-chat-model.ts';
import {
  type FakeOpenAIServer,
  type FakeReply,
  startFakeOpenAIServer,
} from '../../models/testing/fake-openai-server.ts';
import { RunStore } from '../../store/run-store.ts';
import { startWorldEpisode } from '../../world/episode.ts';
import { WorldServer } from '../../world/server.ts';
import { sampleWorldTasks } from '../testing/tasks.ts';

// A model endpoint that answers 429, 500, garbage or nothing at all. The fake server's replies are
// protocol fixtures: they exercise retries and error reporting, not any model's quality.
const GIVE_UP = JSON.stringify({
  evaluation_previous_goal: 'Start',
  memory: '',
  next_goal: 'Stop here',
  action: [{ done: { text: 'not found', success: false } }],
});

describe('fault: model endpoint failures', () => {
  let dir: string;
  let fake: FakeOpenAIServer;
  let world: WorldServer;
  let host: BrowserHost;
  const tasks = sampleWorldTasks(5, 21);
  const [flaky, down, garbage, hang, healthy] = tasks;
  const seen = new Map<string, number>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-faults-model-'));
    world = await WorldServer.start({ port: 0, seed: 1 });
    host = await BrowserHost.launch();
    // Replies depend on which task's prompt the request carries, so worker order does not matter.
    fake = await startFakeOpenAIServer({
      fallback: (req): FakeReply => {
        const text = JSON.stringify(req.body);
        const task = tasks.find((t) => text.includes(JSON.stringify(t.objective).slice(1, -1)));
        const n = (seen.get(task?.id ?? '?') ?? 0) + 1;
        seen.set(task?.id ?? '?', n);
        if (task === flaky)
          return n === 1
            ? { type: 'error', status: 429, message: 'Rate limit reached' }
            : n === 2
              ? { type: 'error', status: 500 }
              : { type: 'text', text: GIVE_UP };
        if (task === down) return { type: 'error', status: 500, message: 'upstream model crashed' };
        if (task === garbage) return { type: 'garbage' };
        if (task === hang) return { type: 'hang' };
        return { type: 'text', text: GIVE_UP };
      },
    });
  });

  afterAll(async () => {
    await fake?.close();
    await host?.close();
    await world?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('retries transient errors, records a readable error when the endpoint stays broken, and the run goes on', async () => {
    const store = RunStore.open(join(dir, 'run'));
    const makeAgent = () =>
      new LlmAgent({
        model: new OpenAIChatModel({
          model: 'fake-model',
          baseURL: fake.baseURL,
          apiKey: 'sk-test-not-a-key',
          timeoutMs: 1500,
          retry: { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 100 },
        }),
        vision: false,
      });
    const jobs: EpisodeJob[] = tasks.map((task) => ({
      task,
      key: `eval:fake:${task.id}#0`,
      round: 0,
      tags: ['eval'],
      seed: 0,
    }));
    const r = await runEpisodePool({
      jobs,
      store,
      makeAgent,
      makeEnv: () => host.newEnv({ allowlist: [world.url], screenshot: { enabled: false } }),
      start: (env, task) => startWorldEpisode(env, task, world.url),
      verify: worldVerifier(world.url),
      workers: 2,
      maxSteps: 3,
    });
    // Every episode is recorded; endpoint failures are the agent's failure, not lost episodes.
    expect(r).toEqual({ ran: 5, skipped: 0, errors: 0 });
    const byTask = (id: string) => store.listTrajectories({ taskId: id })[0];

    const f = byTask(flaky.id);
    expect(seen.get(flaky.id)).toBe(3); // 429, 500, then the answer
    expect(f.endReason).toBe('done');
    expect(f.steps).toHaveLength(1);

    const d = byTask(down.id);
    expect(seen.get(down.id)).toBe(3); // first try + 2 retries
    expect(d.endReason).toBe('error');
    expect(d.endDetail).toMatch(
      /^agent failed at step 0: .*500.*upstream model crashed.*gave up after 3 attempts/,
    );

    const g = byTask(garbage.id);
    expect(g.endReason).toBe('error');
    expect(seen.get(garbage.id)).toBe(3);
    expect(g.endDetail).toMatch(
      /^agent failed at step 0: .*unparseable response body.*gave up after 3 attempts/,
    );
    expect(g.endDetail.length).toBeLessThan(400);

    const h = byTask(hang.id);
    expect(['error', 'timeout']).toContain(h.endReason);
    expect(h.endDetail).toMatch(/request timed out after 1500 ms.*gave up after 3 attempts/);

    expect(byTask(healthy.id).endReason).toBe('done');
    for (const t of [d, g, h]) {
      expect(t.verdict?.success).toBe(false);
      expect(t.endDetail).not.toContain('sk-test-not-a-key');
    }
    console.info(
      `model endpoint faults: 500 -> ${d.endDetail}\n  garbage -> ${g.endDetail}\n  hang -> ${h.endDetail}`,
    );
    store.close();
  }, 120_000);
});
