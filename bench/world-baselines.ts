/**
 * Measures the two baselines of the offline world in real Chromium: the reference solvers (on
 * `--per-template` sampled tasks of every template) and a seeded random clicker (on `--random`
 * sampled tasks, `--steps` actions each). Prints per-site success rates.
 *
 *   npx tsx bench/world-baselines.ts [--sites shop,travel] [--per-template 3] [--random 60] [--steps 15] [--seed 1]
 */
import { Rng } from '../src/core/rng.ts';
import type { Task } from '../src/core/task.ts';
import {
  describeRun,
  type HarnessRun,
  sampleByTemplate,
  WorldHarness,
} from '../src/world/testing/solve-harness.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const perTemplate = Number(arg('per-template', '3'));
const randomCount = Number(arg('random', '60'));
const steps = Number(arg('steps', '15'));
const seed = Number(arg('seed', '1'));

function table(title: string, runs: HarnessRun[]): string {
  const sites = [...new Set(runs.map((r) => r.task.site))];
  const line = (name: string, rs: HarnessRun[]) => {
    const ok = rs.filter((r) => r.verdict.success).length;
    const score = rs.reduce((s, r) => s + r.verdict.score, 0) / Math.max(1, rs.length);
    return `  ${name.padEnd(8)} ${String(ok).padStart(4)}/${String(rs.length).padEnd(4)} success ${((100 * ok) / Math.max(1, rs.length)).toFixed(1).padStart(5)}%  mean score ${score.toFixed(2)}`;
  };
  return [
    title,
    ...sites.map((s) =>
      line(
        s,
        runs.filter((r) => r.task.site === s),
      ),
    ),
    line('all', runs),
  ].join('\n');
}

const h = await WorldHarness.open({ seed });
try {
  const sites = arg('sites', [...h.world.sites.keys()].join(',')).split(',');
  const all = h.tasks().filter((t) => sites.includes(t.site));
  const reference: HarnessRun[] = [];
  for (const t of sampleByTemplate(all, perTemplate, `bench:${seed}`)) {
    const r = await h.solve(t);
    reference.push(r);
    if (!r.verdict.success) process.stderr.write(`${describeRun(r)}\n`);
  }
  const pool: Task[] = new Rng(`random:${seed}`).shuffle(all).slice(0, randomCount);
  const random: HarnessRun[] = [];
  for (const t of pool) random.push(await h.random(t, { seed, steps }));
  for (const r of random.filter((x) => x.verdict.success))
    process.stderr.write(`random success: ${describeRun(r)}\n`);
  process.stdout.write(`${table(`reference solver (${perTemplate} tasks per template)`, reference)}\n`);
  process.stdout.write(`${table(`random clicker (${steps} actions, seed ${seed})`, random)}\n`);
} finally {
  await h.close();
}
