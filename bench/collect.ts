/**
 * Collection throughput with the heuristic teacher at 1, 2 and 4 workers, measured in one run on
 * the same task sample, printed as steps/s and as ratios against 1 worker.
 *
 *   npm run bench:collect            (default 24 tasks per setting)
 *   npm run bench:collect -- 40      (tasks per setting)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeuristicAgent } from '../src/agent/heuristic/heuristic-agent.ts';
import { openWorldRuntime } from '../src/cli/runtime.ts';
import { sampleTasks } from '../src/cli/tasks-arg.ts';
import { collect } from '../src/collect/collect.ts';
import { RulesReflector } from '../src/collect/rules-reflector.ts';
import { RunStore } from '../src/store/run-store.ts';
import { generateWorldTasks } from '../src/world/tasks.ts';

const perSetting = Number(process.argv[2] ?? 24);
const rt = await openWorldRuntime({ port: 0 });
const all = generateWorldTasks({ split: 'train' });
const rows: Array<{ workers: number; steps: number; seconds: number; rate: number }> = [];
try {
  for (const workers of [1, 2, 4]) {
    const dir = mkdtempSync(join(tmpdir(), 'rmsweb-bench-collect-'));
    const store = RunStore.open(dir);
    const tasks = sampleTasks(all, perSetting, 7);
    const t0 = performance.now();
    await collect({
      tasks,
      store,
      makeAgent: () => new HeuristicAgent(),
      makeEnv: rt.makeEnv,
      start: rt.start,
      verify: rt.verify,
      reflector: new RulesReflector(),
      workers,
      maxRounds: 2,
      stopAfter: 1,
    });
    const seconds = (performance.now() - t0) / 1000;
    const steps = store.listTrajectorySummaries().reduce((a, s) => a + s.steps, 0);
    rows.push({ workers, steps, seconds, rate: steps / seconds });
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await rt.close();
}
const base = rows[0].rate;
console.log(
  `collection throughput, heuristic teacher, ${perSetting} world train tasks per setting (max 2 rounds)`,
);
for (const r of rows) {
  console.log(
    `workers ${r.workers}: ${r.steps} steps in ${r.seconds.toFixed(1)} s = ${r.rate.toFixed(2)} steps/s (x${(r.rate / base).toFixed(2)} vs 1 worker)`,
  );
}
