import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../agent/agent.ts';
import { HeuristicAgent } from '../../agent/heuristic/heuristic-agent.ts';
import { BrowserHost } from '../../browser/launch.ts';
import { type EpisodeJob, runEpisodePool } from '../../collect/episode-pool.ts';
import { worldVerifier } from '../../judge/world-verifier.ts';
import { RunStore } from '../../store/run-store.ts';
import { startWorldEpisode } from '../../world/episode.ts';
import { WorldServer } from '../../world/server.ts';
import { EpisodeQueue } from '../episode-queue.ts';
import { startQueueWorker, type WorkerEvent } from '../queue-worker.ts';
import { runQueuedPool } from '../queued-pool.ts';
import { makeOfflineAgent, openLocalWorldRuntime } from '../testing/local-runtime.ts';
import { redisServerPath, startTestRedis, type TestRedis } from '../testing/redis-server.ts';
import { sampleWorldTasks } from '../testing/tasks.ts';

/** Pids of this process's Chromium children (the browsers Playwright launched for us). */
function chromiumChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,ppid=,comm=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 3 && Number(f[1]) === process.pid && /chrom/.test(f[2]))
    .map((f) => Number(f[0]));
}

const jobsFor = (n: number, seed: number, prefix: string): EpisodeJob[] =>
  sampleWorldTasks(n, seed).map((task) => ({
    task,
    key: `${prefix}:${task.id}#0`,
    round: 0,
    tags: ['rollout'],
    seed: 0,
  }));

describe('fault: Chromium lost mid-episode', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-faults-browser-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('browser contexts closed from outside: the pool retries the episode in a fresh env, nothing lost or doubled', async () => {
    const server = await WorldServer.start({ port: 0, seed: 1 });
    const host = await BrowserHost.launch();
    const store = RunStore.open(join(dir, 'pool'));
    try {
      let calls = 0;
      let crashed = false;
      let envs = 0;
      // An agent that, on its third decision overall, closes every browser context under the running
      // episodes (as a crashing renderer or an external kill would), then plays on normally.
      const makeAgent = (): Agent => {
        const inner = new HeuristicAgent();
        return {
          id: inner.id,
          reset: (t) => inner.reset(t),
          act: async (input) => {
            if (++calls === 3 && !crashed) {
              crashed = true;
              await Promise.all(host.browser.contexts().map((c) => c.close()));
            }
            return inner.act(input);
          },
        };
      };
      const jobs = jobsFor(3, 5, 'pool');
      const errors: string[] = [];
      const r = await runEpisodePool({
        jobs,
        store,
        makeAgent,
        makeEnv: () => {
          envs++;
          return host.newEnv({ allowlist: [server.url], screenshot: { enabled: false } });
        },
        start: async (env, task) => startWorldEpisode(env, task, server.url),
        verify: worldVerifier(server.url),
        workers: 2,
        maxSteps: 4,
        onError: ({ job, error }) => errors.push(`${job.key}: ${error.message}`),
      });
      expect(crashed).toBe(true);
      expect(errors).toEqual([]);
      expect(r).toEqual({ ran: 3, skipped: 0, errors: 0 });
      // Two workers' envs, plus at least one replacement after the crash.
      expect(envs).toBeGreaterThanOrEqual(3);
      for (const j of jobs) {
        expect(store.countTrajectories({ taskId: j.task.id })).toBe(1);
        const t = store.listTrajectories({ taskId: j.task.id })[0];
        expect(t.endReason).not.toBe('error');
        expect(t.verdict).not.toBeNull();
      }
    } finally {
      store.close();
      await host.close();
      await server.stop();
    }
  }, 120_000);

  const redisBin = redisServerPath();
  it.skipIf(!redisBin)(
    'Chromium SIGKILLed under a queue worker: it relaunches, the job is retried with backoff, each episode saved once (skipped without redis-server)',
    async () => {
      const redis: TestRedis = await startTestRedis(redisBin);
      const store = RunStore.open(join(dir, 'queue'));
      const events: WorkerEvent[] = [];
      // Episodes running now, by job id, with their start time.
      const active = new Map<string, number>();
      const before = new Set(chromiumChildren());
      const browsers: number[] = [];
      const worker = await startQueueWorker({
        url: redis.url,
        concurrency: 2,
        lockMs: 5000,
        openRuntime: async (spec) => {
          const rt = await openLocalWorldRuntime(spec, { screenshots: false });
          browsers.push(...chromiumChildren().filter((p) => !before.has(p) && !browsers.includes(p)));
          return rt;
        },
        makeAgent: makeOfflineAgent,
        onEvent: (e) => {
          events.push(e);
          if (e.type === 'start') active.set(e.jobId, Date.now());
          if (e.type === 'done' || e.type === 'error') active.delete(e.jobId);
        },
      });
      const queue = await EpisodeQueue.open({ url: redis.url, store, pollMs: 300, backoffMs: 300 });
      try {
        const jobs = jobsFor(4, 9, 'queue');
        // Once an episode has been running for a second, kill the browser process outright.
        let killed = false;
        const killer = setInterval(() => {
          const since = [...active.values()];
          if (!killed && browsers.length && since.some((t) => Date.now() - t > 1000)) {
            killed = true;
            process.kill(browsers[0], 'SIGKILL');
          }
        }, 100);
        const r = await runQueuedPool({
          queue,
          jobs,
          agent: 'heuristic',
          runtime: { kind: 'world', worldSeed: 1 },
          maxSteps: 4,
        });
        clearInterval(killer);
        expect(killed).toBe(true);
        expect(r).toEqual({ ran: 4, skipped: 0, errors: 0 });
        const failedAttempts = events.filter((e) => e.type === 'error');
        expect(failedAttempts.length).toBeGreaterThanOrEqual(1);
        expect(events.some((e) => e.type === 'runtime' && e.action === 'reopen')).toBe(true);
        // A failed attempt was retried (attempt 2) and finished.
        const retried = events
          .filter((e) => e.type === 'start' && e.attempt > 1)
          .map((e) => (e as { key: string }).key);
        expect(retried.length).toBeGreaterThanOrEqual(1);
        for (const key of retried) expect(store.hasEpisode(key)).toBe(true);
        for (const j of jobs) expect(store.countTrajectories({ taskId: j.task.id })).toBe(1);
        expect(store.countTrajectories()).toBe(4);
      } finally {
        await queue.close();
        await worker.close();
        store.close();
        await redis.stop();
      }
    },
    150_000,
  );
});
