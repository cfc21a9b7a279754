import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { Observation } from '../core/observation.ts';
import { RunStore } from '../store/run-store.ts';
import { EpisodeQueue, type QueuedEpisode } from './episode-queue.ts';
import { DEFAULT_QUEUE_NAME, episodeJobId } from './job-data.ts';
import { type EpisodeRuntime, type QueueWorkerHandle, startQueueWorker } from './queue-worker.ts';
import { redisServerPath, startTestRedis, type TestRedis } from './testing/redis-server.ts';
import { sampleWorldTasks } from './testing/tasks.ts';

// Coordinator semantics against a real Redis, with an in-process worker on a browserless runtime
// (a scripted env and an agent that answers at once), so only the queue itself is under test.
const redisBin = redisServerPath();

const obs = Observation.parse({ url: 'http://127.0.0.1:1/x', title: 'x' });
const fakeRuntime = (): EpisodeRuntime => ({
  makeEnv: async () => ({ reset: async () => obs, step: async () => obs, close: async () => {} }),
  verify: async () => ({ success: true, score: 1, reason: '', verifierId: 'fake', failedConditions: [] }),
  healthy: () => true,
  close: async () => {},
});

/** `flaky:N` fails to load its first N times (then answers), like a model server coming up late. */
const loads = new Map<string, number>();
function makeAgent(spec: string): Agent {
  const n = (loads.get(spec) ?? 0) + 1;
  loads.set(spec, n);
  const m = /^flaky:(\d+)$/.exec(spec);
  if (m && n <= Number(m[1])) throw new Error(`agent ${spec} failed to load (try ${n})`);
  return {
    id: spec,
    act: async () => {
      const actions = [{ type: 'done' as const, text: 'ok', success: true }];
      return { output: makeAgentOutput({}, actions), actions };
    },
  };
}

describe.skipIf(!redisBin)('EpisodeQueue (real Redis, in-process worker)', () => {
  let redis: TestRedis;
  let worker: QueueWorkerHandle;
  let dir: string;
  const task = sampleWorldTasks(1, 4)[0];
  const episode = (key: string, agent = 'ok'): QueuedEpisode => ({
    key,
    task,
    round: 0,
    notes: [],
    tags: ['test'],
    agent,
    maxSteps: 3,
    runtime: { kind: 'world', worldSeed: 1 },
  });

  beforeAll(async () => {
    redis = await startTestRedis(redisBin);
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-episode-queue-'));
    worker = await startQueueWorker({
      url: redis.url,
      concurrency: 2,
      openRuntime: async () => fakeRuntime(),
      makeAgent: (s) => makeAgent(s),
    });
  });
  afterAll(async () => {
    await worker?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('saves a result once even when the same key is submitted twice, and skips stored keys', async () => {
    const store = RunStore.open(join(dir, 'dup'));
    const q = await EpisodeQueue.open({ url: redis.url, store, pollMs: 200, backoffMs: 50 });
    const [a, b] = await Promise.all([q.run(episode('k1')), q.run(episode('k1'))]);
    expect(a.status).toBe('saved');
    expect(b).toBe(a);
    expect(store.countTrajectories()).toBe(1);
    expect(await q.run(episode('k1'))).toEqual({ status: 'stored' });
    await q.close();
    store.close();
  });

  it('reports a job that failed every attempt with its reason; a rerun retries it', async () => {
    const store = RunStore.open(join(dir, 'fail'));
    const q = await EpisodeQueue.open({ url: redis.url, store, pollMs: 200, backoffMs: 50, attempts: 3 });
    const out = await q.run(episode('k-flaky', 'flaky:3'));
    expect(out.status).toBe('failed');
    if (out.status === 'failed')
      expect(out.error.message).toMatch(
        /episode k-flaky failed after 3 attempt\(s\): agent flaky:3 failed to load \(try 3\)/,
      );
    expect(store.hasEpisode('k-flaky')).toBe(false);
    await q.close();
    // A restarted coordinator finds the failed job and runs it again; the fourth load succeeds.
    const q2 = await EpisodeQueue.open({ url: redis.url, store, pollMs: 200, backoffMs: 50 });
    expect((await q2.run(episode('k-flaky', 'flaky:3'))).status).toBe('saved');
    expect(store.countTrajectories()).toBe(1);
    await q2.close();
    store.close();
  });

  it('an aborted coordinator leaves the job queued; a new one on the same store re-attaches to it', async () => {
    const store = RunStore.open(join(dir, 'abort'));
    const q = await EpisodeQueue.open({ url: redis.url, store, pollMs: 200 });
    const ctl = new AbortController();
    const p = q.run(episode('k-abort', 'flaky:1'), { signal: ctl.signal });
    // Abort once the job is in Redis (its first attempt fails, so it then waits out a 2 s backoff).
    const raw = new Queue(DEFAULT_QUEUE_NAME, { connection: { url: redis.url } });
    const id = episodeJobId(q.runId, 'k-abort');
    for (let i = 0; i < 100 && (await raw.getJobState(id)) === 'unknown'; i++)
      await new Promise((r) => setTimeout(r, 50));
    await raw.close();
    ctl.abort();
    expect(await p).toEqual({ status: 'aborted' });
    await q.close();
    const q2 = await EpisodeQueue.open({ url: redis.url, store, pollMs: 200, backoffMs: 50 });
    expect(q2.runId).toBe(q.runId);
    const out = await q2.run(episode('k-abort', 'flaky:1'));
    expect(out.status).toBe('saved');
    expect(q2.reattached).toBe(1);
    expect(store.countTrajectories()).toBe(1);
    await q2.close();
    store.close();
  });

  it('fails invalid job data at once, without retries', async () => {
    const raw = new Queue(DEFAULT_QUEUE_NAME, { connection: { url: redis.url } });
    const id = episodeJobId('run_raw', 'bad');
    const job = await raw.add(
      'episode',
      { v: 1, runId: 'run_raw', key: 'bad', task: { id: 'no' } },
      { jobId: id, attempts: 3 },
    );
    for (let i = 0; i < 100 && (await raw.getJobState(id)) !== 'failed'; i++)
      await new Promise((r) => setTimeout(r, 100));
    const failed = await raw.getJob(id);
    expect(await raw.getJobState(id)).toBe('failed');
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toMatch(/carries invalid episode data: .*task/);
    await job.remove();
    await raw.close();
  });
});
