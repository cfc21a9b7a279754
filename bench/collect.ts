/**
 * Episode throughput against the browser's floor, measured in one run (`npm run bench:collect`).
 *
 * Settings, each followed at once by its floor:
 *   teacher collection  heuristic teacher + rules reflector (2 rounds at most, stop after 1
 *                       success), screenshots on (collection feeds the multimodal export), at
 *                       1, 2 and 4 workers (browser contexts);
 *   student evaluation  a student trained here for a few epochs on the 1-worker teacher run,
 *                       evaluated on test tasks (one run) at 2 workers, screenshots off (the
 *                       student does not read them: the eval default for policy: agents).
 * The floor of a setting replays its own recorded episodes with no agent, reflector, verifier or
 * store: the same tasks under fresh world sessions, the same actions on the same pages, the same
 * number of contexts and the same screenshot setting. Per step it does what a real step costs the
 * browser: one action and one observation (a `done` step does neither, in both). Its steps are
 * the setting's own steps, so the ratio compares like with like. Each setting runs in `--chunks`
 * parts (default 3), each part followed at once by its floor, so that the load of a shared machine,
 * which drifts over minutes, weighs on both sides alike.
 *
 *   npm run bench:collect                  (24 tasks per setting)
 *   npm run bench:collect -- 40            (tasks per setting)
 *   npm run bench:collect -- 24 --workers 2 --no-student
 *
 * Targets (issue 17): teacher collection at 2 workers >= 0.8x its floor and >= 9 steps/s;
 * student evaluation >= 0.8x its floor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HeuristicAgent } from '../src/agent/heuristic/heuristic-agent.ts';
import { openWorldRuntime } from '../src/cli/runtime.ts';
import { sampleTasks } from '../src/cli/tasks-arg.ts';
import { collect } from '../src/collect/collect.ts';
import { runEpisodePool } from '../src/collect/episode-pool.ts';
import { RulesReflector } from '../src/collect/rules-reflector.ts';
import type { Trajectory } from '../src/core/trajectory.ts';
import { PolicyAgent } from '../src/policy/policy-agent.ts';
import { trainSft } from '../src/policy/sft-trainer.ts';
import { RunStore } from '../src/store/run-store.ts';
import { generateWorldTasks } from '../src/world/tasks.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workers: { type: 'string', default: '1,2,4' },
    'no-student': { type: 'boolean', default: false },
    'student-epochs': { type: 'string', default: '3' },
    chunks: { type: 'string', default: '3' },
  },
});
const perSetting = Number(positionals[0] ?? 24);
const workerCounts = values.workers.split(',').map(Number);
const chunks = Math.max(1, Number(values.chunks));
const loadBefore = loadavg();

const rt = await openWorldRuntime({ port: 0 });
const makeEnv = (screenshots: boolean) => () =>
  rt.host.newEnv({ allowlist: [rt.origin], screenshot: { enabled: screenshots, quality: 60 } });

interface Row {
  setting: string;
  workers: number;
  episodes: number;
  steps: number;
  seconds: number;
  rate: number;
  /** Mean ms per step in the agent's decision and in the browser (action + observation), when recorded. */
  modelMs?: number;
  actMs?: number;
  /** Mean ms per episode saving it to the store and verifying it. */
  saveMs?: number;
  verifyMs?: number;
}

const row = (setting: string, workers: number, ts: Trajectory[], seconds: number): Row => {
  const all = ts.flatMap((t) => t.steps);
  const mean = (f: (s: (typeof all)[number]) => number) =>
    all.reduce((a, s) => a + f(s), 0) / Math.max(1, all.length);
  return {
    setting,
    workers,
    episodes: ts.length,
    steps: all.length,
    seconds,
    rate: all.length / seconds,
    modelMs: mean((s) => s.timing?.modelMs ?? 0),
    actMs: mean((s) => s.timing?.actMs ?? 0),
    saveMs: spent.saveMs / Math.max(1, ts.length),
    verifyMs: spent.verifyMs / Math.max(1, ts.length),
  };
};

/** Replays recorded episodes: a fresh world session per episode, then each step's action and an observation. */
async function floor(ts: Trajectory[], workers: number, screenshots: boolean): Promise<Row> {
  const queue = [...ts];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      const env = await makeEnv(screenshots)();
      try {
        for (let t = queue.shift(); t; t = queue.shift()) {
          try {
            await rt.start(env, t.task);
            for (const s of t.steps) if (s.action.type !== 'done') await env.step(s.action);
          } catch (e) {
            // Reported, not hidden: an episode the floor could not replay makes its time look short.
            process.stderr.write(`floor: ${t.task.id}: ${(e as Error).message.split('\n')[0]}\n`);
          }
        }
      } finally {
        await env.close();
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const r = row(`floor (replay, screenshots ${screenshots ? 'on' : 'off'})`, workers, ts, seconds);
  // The recorded per-step timings are the setting's, not the replay's.
  return { ...r, modelMs: undefined, actMs: undefined, saveMs: undefined, verifyMs: undefined };
}

const pairs: Array<{ setting: Row; floor: Row; target?: { ratio: number; rate?: number } }> = [];
const dirs: string[] = [];
/** Wall ms spent saving trajectories and verifying them, per setting (work the floor skips). */
const spent = { saveMs: 0, verifyMs: 0 };
const tempStore = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmsweb-bench-collect-'));
  dirs.push(dir);
  const store = RunStore.open(dir);
  const save = store.saveTrajectory.bind(store);
  store.saveTrajectory = (...a: Parameters<typeof save>) => {
    const t = performance.now();
    try {
      return save(...a);
    } finally {
      spent.saveMs += performance.now() - t;
    }
  };
  spent.saveMs = 0;
  spent.verifyMs = 0;
  return store;
};
const verify: typeof rt.verify = async (t) => {
  const t0 = performance.now();
  try {
    return await rt.verify(t);
  } finally {
    spent.verifyMs += performance.now() - t0;
  }
};
/** Splits `xs` into `n` runs of near-equal length, in order. */
const chunksOf = <T>(xs: T[], n: number): T[][] =>
  Array.from({ length: Math.min(n, xs.length) }, (_, i) =>
    xs.slice(Math.floor((i * xs.length) / n), Math.floor(((i + 1) * xs.length) / n)),
  );

/**
 * Runs a setting chunk by chunk, each chunk followed at once by its floor, so load that drifts
 * during the run hits both sides alike; returns the summed rows.
 */
async function measured<T>(
  name: string,
  items: T[],
  workers: number,
  screenshots: boolean,
  run: (chunk: T[], store: RunStore) => Promise<void>,
): Promise<{ setting: Row; floor: Row; trajectories: Trajectory[] }> {
  const store = tempStore();
  const all: Trajectory[] = [];
  let settingS = 0;
  let floorS = 0;
  for (const chunk of chunksOf(items, chunks)) {
    const before = new Set(store.listTrajectorySummaries().map((t) => t.id));
    const t0 = performance.now();
    await run(chunk, store);
    settingS += (performance.now() - t0) / 1000;
    const ts = store.listTrajectories().filter((t) => !before.has(t.id));
    all.push(...ts);
    floorS += (await floor(ts, workers, screenshots)).seconds;
  }
  store.close();
  const setting = row(name, workers, all, settingS);
  const f = row(`floor (replay, screenshots ${screenshots ? 'on' : 'off'})`, workers, all, floorS);
  return {
    setting,
    floor: { ...f, modelMs: undefined, actMs: undefined, saveMs: undefined, verifyMs: undefined },
    trajectories: all,
  };
}

let teacherRun: Trajectory[] = [];
try {
  const train = sampleTasks(generateWorldTasks({ split: 'train' }), perSetting, 7);
  for (const workers of workerCounts) {
    const m = await measured('teacher collection (screenshots on)', train, workers, true, (chunk, store) =>
      collect({
        tasks: chunk,
        store,
        makeAgent: () => new HeuristicAgent(),
        makeEnv: makeEnv(true),
        start: rt.start,
        verify,
        reflector: new RulesReflector(),
        workers,
        maxRounds: 2,
        stopAfter: 1,
      }).then(() => {}),
    );
    if (!teacherRun.length) teacherRun = m.trajectories;
    pairs.push({ ...m, ...(workers === 2 ? { target: { ratio: 0.8, rate: 9 } } : {}) });
  }

  if (!values['no-student']) {
    const t0 = performance.now();
    const { policy } = await trainSft(teacherRun, { epochs: Number(values['student-epochs']), seed: 0 });
    const trainSeconds = (performance.now() - t0) / 1000;
    process.stderr.write(
      `student: trained ${values['student-epochs']} epochs in ${trainSeconds.toFixed(1)} s\n`,
    );
    const test = sampleTasks(generateWorldTasks({ split: 'test' }), perSetting, 7);
    const workers = 2;
    const m = await measured('student evaluation (screenshots off)', test, workers, false, (chunk, store) =>
      runEpisodePool({
        jobs: chunk.map((task) => ({
          task,
          key: `eval:bench:${task.id}#0`,
          round: 0,
          tags: ['eval'],
          seed: 0,
        })),
        store,
        // One policy shared by the workers' agents; it is disposed once, below.
        makeAgent: () => Object.assign(new PolicyAgent(policy), { close() {} }),
        makeEnv: makeEnv(false),
        start: rt.start,
        verify,
        workers,
        maxSteps: 15,
      }).then(() => {}),
    );
    policy.dispose();
    pairs.push({ ...m, target: { ratio: 0.8 } });
  }
} finally {
  await rt.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
const fmt = (r: Row) =>
  `${r.setting.padEnd(38)} workers ${r.workers}: ${String(r.episodes).padStart(3)} episodes, ${String(r.steps).padStart(4)} steps in ${r.seconds.toFixed(1).padStart(6)} s = ${r.rate.toFixed(2).padStart(6)} steps/s${r.modelMs !== undefined ? ` (per step: agent ${r.modelMs.toFixed(0)} ms, browser ${r.actMs?.toFixed(0)} ms; per episode: save ${r.saveMs?.toFixed(0)} ms, verify ${r.verifyMs?.toFixed(0)} ms)` : ''}`;
const lines = [
  `episode throughput vs the browser's floor, ${perSetting} world tasks per setting; ${cpus().length} CPUs, load average ${load(loadBefore)} -> ${load(loadavg())}`,
];
const verdicts: string[] = [];
for (const { setting, floor: f, target } of pairs) {
  const ratio = setting.rate / f.rate;
  lines.push(fmt(setting), `${fmt(f)}   setting/floor = ${ratio.toFixed(2)}x`);
  if (target) {
    const parts = [
      `${setting.setting} at ${setting.workers} workers: ${ratio.toFixed(2)}x floor ${ratio >= target.ratio ? `>= ${target.ratio} (met)` : `< ${target.ratio} (NOT met)`}`,
    ];
    if (target.rate !== undefined)
      parts.push(
        `${setting.rate.toFixed(2)} steps/s ${setting.rate >= target.rate ? `>= ${target.rate} (met)` : `< ${target.rate} (NOT met)`}`,
      );
    verdicts.push(parts.join('; '));
  }
}
process.stdout.write(`${lines.join('\n')}\ntargets:\n${verdicts.map((v) => `  ${v}`).join('\n')}\n`);
