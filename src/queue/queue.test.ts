import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserServer, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../browser/launch.ts';
import { DEFAULT_CHROMIUM_ARGS } from '../browser/options.ts';
import { episodeKey, progressFromStore } from '../collect/collect.ts';
import type { EpisodeJob } from '../collect/episode-pool.ts';
import { stableId } from '../core/ids.ts';
import { RunStore } from '../store/run-store.ts';
import { EpisodeQueue } from './episode-queue.ts';
import { runQueuedPool } from './queued-pool.ts';
import { type JsonProcess, spawnJsonProcess, stopProcess } from './testing/processes.ts';
import { redisServerPath, startTestRedis, type TestRedis } from './testing/redis-server.ts';
import { sampleWorldTasks } from './testing/tasks.ts';

const redisBin = redisServerPath();
if (!redisBin)
  console.warn(
    'queue tests skipped: redis-server is not installed (set RMSWEB_REDIS_SERVER or install redis-server)',
  );

describe.skipIf(!redisBin)('episode queue with real Redis and worker processes', () => {
  let redis: TestRedis;
  let dir: string;
  const procs: JsonProcess[] = [];
  let browserServer: BrowserServer | undefined;

  const startWorker = async (id: string, extra: string[] = []) => {
    const p = spawnJsonProcess('worker-main.ts', [
      '--redis',
      redis.url,
      '--id',
      id,
      '--concurrency',
      '2',
      '--lock-ms',
      '3000',
      ...extra,
    ]);
    procs.push(p);
    await p.waitFor((e) => e.type === 'ready', 60_000);
    return p;
  };

  beforeAll(async () => {
    redis = await startTestRedis(redisBin);
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-queue-'));
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => stopProcess(p)));
    await browserServer?.close().catch(() => {});
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a worker SIGKILLed mid-episode loses nothing: every episode is saved exactly once', async () => {
    const [a, b] = await Promise.all([startWorker('A'), startWorker('B')]);
    const store = RunStore.open(join(dir, 'kill-worker'));
    const queue = await EpisodeQueue.open({ url: redis.url, store, pollMs: 500, backoffMs: 300 });
    const tasks = sampleWorldTasks(4, 11);
    const jobs: EpisodeJob[] = tasks.map((task) => ({
      task,
      key: `rollout:heuristic:${task.id}#0`,
      round: 0,
      tags: ['rollout'],
      seed: 0,
    }));
    // Kill A once it has been inside an episode for a second (it holds the job's lock then).
    let killedKey: string | null = null;
    const killer = a
      .waitFor((e) => e.type === 'start', 60_000)
      .then(async (e) => {
        await new Promise((r) => setTimeout(r, 1000));
        if (!a.events.some((x) => x.type === 'done' && x.key === e.key)) {
          killedKey = e.key;
          a.kill('SIGKILL');
        }
      });
    const saved: string[] = [];
    const r = await runQueuedPool({
      queue,
      jobs,
      agent: 'heuristic',
      runtime: { kind: 'world', worldSeed: 1 },
      maxSteps: 4,
      onEpisode: ({ job }) => saved.push(job.key),
    });
    await killer;
    await queue.close();
    expect(killedKey, 'worker A was killed inside an episode').not.toBeNull();
    expect((await a.exited).signal).toBe('SIGKILL');
    expect(r).toEqual({ ran: 4, skipped: 0, errors: 0 });
    expect(saved.sort()).toEqual(jobs.map((j) => j.key).sort());
    for (const j of jobs) {
      expect(store.hasEpisode(j.key)).toBe(true);
      expect(store.countTrajectories({ taskId: j.task.id })).toBe(1);
    }
    expect(store.countTrajectories()).toBe(4);
    // The episode A died in was run again, to completion, by B.
    expect(b.events.some((e) => e.type === 'done' && e.key === killedKey)).toBe(true);
    // Results carried screenshots across (no shared disk): they are in this store's image folder.
    const t = store.listTrajectories()[0];
    expect(store.hasImage(t.steps[0].observation.screenshot!.hash)).toBe(true);
    store.close();
  }, 180_000);

  it('a coordinator killed mid-collection resumes on restart: no duplicates, every task finished', async () => {
    browserServer = await chromium.launchServer({
      executablePath: chromiumPath(),
      headless: true,
      args: [...DEFAULT_CHROMIUM_ARGS],
    });
    // A worker on a remote browser (Playwright connect) joins the surviving worker B.
    const c = await startWorker('C', ['--browser-ws', browserServer.wsEndpoint()]);
    const out = join(dir, 'kill-coordinator');
    const args = [
      '--redis',
      redis.url,
      '--out',
      out,
      '--tasks',
      '4',
      '--max-rounds',
      '2',
      '--max-steps',
      '4',
    ];
    const first = spawnJsonProcess('coordinator-main.ts', args);
    procs.push(first);
    await first.waitFor(
      (e) => e.type === 'saved' && first.events.filter((x) => x.type === 'saved').length >= 2,
      120_000,
    );
    first.kill('SIGKILL');
    await first.exited;
    const savedBefore = first.events.filter((e) => e.type === 'saved').length;

    const second = spawnJsonProcess('coordinator-main.ts', args);
    procs.push(second);
    const summary = await second.waitFor((e) => e.type === 'summary', 150_000);
    expect((await second.exited).code).toBe(0);
    expect(summary.errors).toBe(0);
    expect(
      summary.reattached,
      'the restart attached to jobs the first coordinator had queued',
    ).toBeGreaterThanOrEqual(1);

    const store = RunStore.open(out);
    const tasks = sampleWorldTasks(4);
    let total = 0;
    for (const task of tasks) {
      const p = progressFromStore(store, task, 2, 1);
      expect(p.done, `${task.id} finished`).toBe(true);
      for (let round = 0; round < p.round; round++) {
        expect(store.hasEpisode(episodeKey(task.id, round))).toBe(true);
        expect(store.countTrajectories({ taskId: task.id, round }), `${task.id} round ${round} once`).toBe(1);
        const t = store.listTrajectories({ taskId: task.id, round })[0];
        // Rounds after a failure carry the reflection written by the coordinator.
        if (round > 0) expect(t.notes.length).toBeGreaterThan(0);
        if (!t.verdict?.success && round < p.round - 1) {
          expect(p.reflections.some((r) => r.id === stableId('refl', task.id, round))).toBe(true);
        }
      }
      total += p.round;
    }
    expect(store.countTrajectories()).toBe(total);
    expect(total).toBeGreaterThan(savedBefore);
    expect(
      c.events.filter((e) => e.type === 'done').length,
      'the remote-browser worker ran episodes',
    ).toBeGreaterThan(0);
    store.close();
  }, 240_000);
});
