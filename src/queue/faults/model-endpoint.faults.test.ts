import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmAgent } from '../../agent/llm-agent.ts';
import { BrowserHost } from '../../browser/launch.ts';
import {
  EPISODE_ERROR_RECORD,
  type EpisodeErrorRecord,
  type EpisodeJob,
  runEpisodePool,
} from '../../collect/episode-pool.ts';
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

  it('retries transient errors; an endpoint that stays broken is an episode error (not a failure), and the run goes on', async () => {
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
    // An endpoint that stays broken is an infrastructure error, not the agent failing: the episode
    // is not recorded (the next run retries it), only an error record that reports count.
    expect(r).toEqual({ ran: 2, skipped: 0, errors: 3 });
    const byTask = (id: string) => store.listTrajectories({ taskId: id })[0];

    const f = byTask(flaky.id);
    expect(seen.get(flaky.id)).toBe(3); // 429, 500, then the answer
    expect(f.endReason).toBe('done');
    expect(f.steps).toHaveLength(1);
    expect(byTask(healthy.id).endReason).toBe('done');

    const errors = new Map(
      store
        .listRecords<EpisodeErrorRecord>(EPISODE_ERROR_RECORD)
        .map((e) => [e.value.taskId, e.value.message]),
    );
    for (const t of [down, garbage, hang]) expect(byTask(t.id)).toBeUndefined();
    expect([...errors.keys()].sort()).toEqual([down.id, garbage.id, hang.id].sort());
    // The client retried each once per attempt budget; the pool did not retry on top of it.
    expect(seen.get(down.id)).toBe(3);
    expect(errors.get(down.id)).toMatch(/500.*upstream model crashed.*gave up after 3 attempts/);
    expect(seen.get(garbage.id)).toBe(3);
    expect(errors.get(garbage.id)).toMatch(/unparseable response body.*gave up after 3 attempts/);
    expect(errors.get(garbage.id)!.length).toBeLessThan(400);
    expect(errors.get(hang.id)).toMatch(/request timed out after 1500 ms.*gave up after 3 attempts/);
    for (const m of errors.values()) expect(m).not.toContain('sk-test-not-a-key');
    console.info(
      `model endpoint faults: 500 -> ${errors.get(down.id)}\n  garbage -> ${errors.get(garbage.id)}\n  hang -> ${errors.get(hang.id)}`,
    );
    store.close();
  }, 120_000);
});
