import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BranchJournal } from '../mine/branch-journal.ts';
import type { BranchResult } from '../mine/branches.ts';
import { DEFAULT_COMPARABILITY_WEIGHTS } from '../mine/comparability.ts';
import { mineCriticalStates } from '../mine/mine.ts';
import { LOOKALIKE_FAILURE, SUCCESS } from '../mine/scenarios.test-helpers.ts';
import { continuation, FakeShop, verifyCart } from '../mine/verify.test-helpers.ts';
import { verifyTargets } from '../mine/verify.ts';
import { baselineTargets, minerTargets, type VerifyTarget } from '../mine/verify-targets.ts';
import { RunStore } from '../store/run-store.ts';
import { EpisodeQueue } from './episode-queue.ts';
import { type QueueWorkerHandle, startQueueWorker } from './queue-worker.ts';
import { queuedBranchRunner } from './queued-verify.ts';
import { redisServerPath, startTestRedis, type TestRedis } from './testing/redis-server.ts';

const redisBin = redisServerPath();

function memoryJournal(): BranchJournal & { map: Map<string, BranchResult> } {
  const map = new Map<string, BranchResult>();
  return { map, get: (k) => map.get(k), put: (r) => void map.set(r.key, r) };
}

/** What must not depend on where a branch ran (wall times do). */
function outcome(r: Awaited<ReturnType<typeof verifyTargets>>['results'][number]) {
  const v = r.verification;
  const branch = (b: typeof v.success) => b && { ...b, wallMs: 0 };
  return {
    method: r.target.method,
    label: v.label,
    reason: v.reason,
    replay: v.replay,
    success: branch(v.success),
    failure: branch(v.failure),
  };
}

describe.skipIf(!redisBin)('mine --verify over the queue (real Redis, in-process worker)', () => {
  let redis: TestRedis;
  let dir: string;
  let worker: QueueWorkerHandle;
  let targets: VerifyTarget[];

  beforeAll(async () => {
    redis = await startTestRedis(redisBin);
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-qverify-'));
    // World seed 2 stands for a world that no longer reproduces the recorded runs, 3 for one whose
    // results render late (the replay waits for them).
    worker = await startQueueWorker({
      url: redis.url,
      concurrency: 2,
      openRuntime: async (spec) => ({
        makeEnv: async () =>
          new FakeShop({
            brokenSearch: spec.kind === 'world' && spec.worldSeed === 2,
            slowResults: spec.kind === 'world' && spec.worldSeed === 3 ? 2 : 0,
          }),
        start: async (env) => ({ observation: await env.reset({ startUrl: SUCCESS.task.startUrl }) }),
        verify: verifyCart,
        healthy: () => true,
        close: async () => {},
      }),
      makeAgent: (spec) => continuation(spec === 'recovering'),
    });
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const runs = new Map([SUCCESS, LOOKALIKE_FAILURE].map((t) => [t.id, t]));
    const miner = minerTargets(criticalStates, runs).targets;
    // And one state after a prefix click on a listing (the product page), where a late list matters.
    targets = [
      ...miner,
      ...baselineTargets(miner),
      { ...miner[0], id: `${miner[0].id}:product`, i: 2, j: 2 },
    ];
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const queued = async (name: string, o: { worldSeed?: number; journal?: BranchJournal } = {}) => {
    const store = RunStore.open(join(dir, name));
    const queue = await EpisodeQueue.open({ url: redis.url, store, pollMs: 200, backoffMs: 100 });
    try {
      return await verifyTargets(targets, {
        runBranch: queuedBranchRunner({
          queue,
          agent: 'sticky',
          runtime: { kind: 'world', worldSeed: o.worldSeed ?? 1 },
          maxSteps: 30,
          notesFor: () => [],
          threshold: 0.9,
          weights: { ...DEFAULT_COMPARABILITY_WEIGHTS },
        }),
        policyId: 'sticky',
        notesFor: () => [],
        workers: 4,
        journal: o.journal,
      });
    } finally {
      await queue.close();
      store.close();
    }
  };

  it('labels every target as the in-process run does, and a rerun reads branches back', async () => {
    const local = await verifyTargets(targets, {
      makeEnv: async () => new FakeShop(),
      start: async (env) => ({ observation: await env.reset({ startUrl: SUCCESS.task.startUrl }) }),
      verify: verifyCart,
      makeAgent: () => continuation(false),
      policyId: 'sticky',
      notesFor: () => [],
      workers: 1,
    });
    const journal = memoryJournal();
    const remote = await queued('same', { journal });
    expect(remote.results.map(outcome)).toEqual(local.results.map(outcome));
    expect(remote.results.find((r) => r.target.method === 'miner')?.verification.label).toBe('confirmed');
    expect(remote.results.every((r) => !r.errored)).toBe(true);
    expect(local.episodes).toBeGreaterThan(0);
    expect(remote.episodes).toBe(local.episodes);
    expect(journal.map.size).toBe(local.episodes);

    // Same queue store, empty journal: every branch is already stored, nothing runs on the workers.
    const before = worker.stats().done;
    const again = await queued('same');
    expect(worker.stats().done).toBe(before);
    expect(again.results.map(outcome)).toEqual(local.results.map(outcome));
  }, 120_000);

  it('reads a branch whose replay waited for a late page as the in-process run does', async () => {
    const local = await verifyTargets(targets, {
      makeEnv: async () => new FakeShop({ slowResults: 2 }),
      start: async (env) => ({ observation: await env.reset({ startUrl: SUCCESS.task.startUrl }) }),
      verify: verifyCart,
      makeAgent: () => continuation(false),
      policyId: 'sticky',
      notesFor: () => [],
      workers: 1,
    });
    const remote = await queued('slow', { worldSeed: 3 });
    expect(remote.results.map(outcome)).toEqual(local.results.map(outcome));
    expect(remote.results.every((r) => r.verification.replay.reproduced)).toBe(true);
  }, 120_000);

  it('reports a prefix that no longer reproduces as replay-failed, not as an error', async () => {
    const broken = await queued('broken', { worldSeed: 2 });
    for (const r of broken.results) {
      expect(r.errored).toBe(false);
      expect(r.verification.label).toBe('replay-failed');
      expect(r.verification.replay.reproduced).toBe(false);
    }
    expect(broken.results[0].verification.replay.detail).toMatch(/no counterpart|comparability/);
  }, 120_000);
});
