/**
 * Collection throughput in-process vs through the Redis queue with one and two worker processes,
 * measured in one run on the same task sample (heuristic teacher, rules reflector), printed as
 * steps/s and as ratios against in-process. Needs redis-server (started here on a free port).
 *
 *   npm run bench:queue            (default 12 tasks, max 2 rounds, 10 steps)
 *   npm run bench:queue -- 20      (tasks per setting)
 *
 * Every setting runs 2 browser contexts per process (in-process: --workers 2; each queue worker:
 * --concurrency 2) and includes its own browser start-up in the time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeuristicAgent } from '../src/agent/heuristic/heuristic-agent.ts';
import { collect } from '../src/collect/collect.ts';
import { RulesReflector } from '../src/collect/rules-reflector.ts';
import { EpisodeQueue } from '../src/queue/episode-queue.ts';
import { collectViaQueue } from '../src/queue/queued-collect.ts';
import { openLocalWorldRuntime } from '../src/queue/testing/local-runtime.ts';
import { type JsonProcess, spawnJsonProcess, stopProcess } from '../src/queue/testing/processes.ts';
import { startTestRedis } from '../src/queue/testing/redis-server.ts';
import { sampleWorldTasks } from '../src/queue/testing/tasks.ts';
import { RunStore } from '../src/store/run-store.ts';

const perSetting = Number(process.argv[2] ?? 12);
const maxRounds = 2;
const maxSteps = 10;
const tasks = sampleWorldTasks(perSetting, 3);
const redis = await startTestRedis();
const rows: Array<{ name: string; episodes: number; steps: number; seconds: number }> = [];

async function measure(name: string, run: (store: RunStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsweb-bench-queue-'));
  const store = RunStore.open(dir);
  const t0 = performance.now();
  try {
    await run(store);
    const seconds = (performance.now() - t0) / 1000;
    const s = store.listTrajectorySummaries();
    rows.push({ name, episodes: s.length, steps: s.reduce((a, x) => a + x.steps, 0), seconds });
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await measure('in-process (2 contexts)', async (store) => {
    const rt = await openLocalWorldRuntime({ kind: 'world', worldSeed: 1 });
    try {
      await collect({
        tasks,
        store,
        makeAgent: () => new HeuristicAgent(),
        makeEnv: rt.makeEnv,
        start: rt.start,
        verify: rt.verify!,
        reflector: new RulesReflector(),
        workers: 2,
        maxRounds,
        stopAfter: 1,
        maxSteps,
      });
    } finally {
      await rt.close();
    }
  });
  for (const n of [1, 2]) {
    const workers: JsonProcess[] = [];
    try {
      for (let i = 0; i < n; i++)
        workers.push(
          spawnJsonProcess('worker-main.ts', [
            '--redis',
            redis.url,
            '--concurrency',
            '2',
            '--id',
            `bench${i}`,
          ]),
        );
      await Promise.all(workers.map((w) => w.waitFor((e) => e.type === 'ready', 120_000)));
      await measure(`queue, ${n} worker process${n > 1 ? 'es' : ''} (2 contexts each)`, async (store) => {
        const queue = await EpisodeQueue.open({ url: redis.url, store, pollMs: 500 });
        try {
          await collectViaQueue({
            queue,
            tasks,
            store,
            agent: 'heuristic',
            runtime: { kind: 'world', worldSeed: 1 },
            reflector: new RulesReflector(),
            maxRounds,
            stopAfter: 1,
            maxSteps,
          });
        } finally {
          await queue.close();
        }
      });
    } finally {
      await Promise.all(workers.map((w) => stopProcess(w)));
    }
  }
} finally {
  await redis.stop();
}

const base = rows[0].steps / rows[0].seconds;
console.log(
  `collection throughput, heuristic teacher, ${perSetting} world train tasks (max ${maxRounds} rounds, ${maxSteps} steps)`,
);
for (const r of rows) {
  const rate = r.steps / r.seconds;
  console.log(
    `${r.name.padEnd(44)} ${String(r.episodes).padStart(3)} episodes, ${String(r.steps).padStart(4)} steps in ${r.seconds.toFixed(1).padStart(6)} s = ${rate.toFixed(2)} steps/s (x${(rate / base).toFixed(2)} vs in-process)`,
  );
}
