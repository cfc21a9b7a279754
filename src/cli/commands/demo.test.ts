import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../pipeline/base-snapshot.ts';
import { tinyAblateArgs, tinyDemo } from './testing/tiny-demo.ts';

// The CI smoke test of the whole pipeline: `rmsweb demo --preset tiny` end to end in a real
// browser against the offline world, then a rerun that must resume instead of redoing work. The
// loss of the machine before the ablation's small snapshot exists is demo-ablate-loss.long.test.ts
// (npm run test:long).

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-demo-'));
const out = join(dir, 'demo');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const demo = () => tinyDemo(out);

interface Report {
  stages: Array<{
    stage: string;
    summary: { pass1: { mean: number }; perSite: Record<string, { mean: number }>; tasks: number };
  }>;
  config: { preset: { dagger?: { rounds: number; select?: { valTasks: number } } } };
  sections?: Array<{ title: string; lines: string[] }>;
  collection: { overall: { tasks: number; taskSuccessRate: number } };
  collectionLedger?: { episodes: number; scored: number };
  mining?: { criticalStates: number };
  rlCurves: Array<{ name: string; points: Array<{ step: number; values: Record<string, number> }> }>;
  timings: Record<string, number>;
}

const readReport = () => JSON.parse(readFileSync(join(out, 'report', 'report.json'), 'utf8')) as Report;

/**
 * The first run, made once by whichever test needs it first: each test stands on its own (run
 * either alone with -t and it still has the run it checks), and the pipeline runs only once.
 */
let firstRun: ReturnType<typeof demo> | null = null;
function first(): ReturnType<typeof demo> {
  firstRun ??= demo();
  return firstRun;
}

describe('rmsweb demo --preset tiny', () => {
  it('runs every stage of the pipeline and writes the report', { timeout: 570_000 }, () => {
    const run = first();
    expect(run.status, run.stderr.slice(-3000)).toBe(0);
    for (const f of ['report.json', 'report.md', 'report.html'])
      expect(existsSync(join(out, 'report', f))).toBe(true);
    const report = readReport();
    const names = report.stages.map((s) => s.stage);
    expect(names[0]).toBe('teacher (no reflection)');
    for (const s of report.stages) {
      expect(s.summary.tasks).toBeGreaterThan(0);
      for (const x of [s.summary.pass1.mean, ...Object.values(s.summary.perSite).map((r) => r.mean)]) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
      }
    }
    // Every stage ran in this invocation and recorded its wall time: the tiny preset's teacher solves
    // collection tasks and the student's rollouts fail some, so nothing is skipped for lack of data.
    expect(report.collection.overall.taskSuccessRate).toBeGreaterThan(0);
    // The collection's rewards are accounted for like an evaluation's.
    expect(report.collectionLedger?.scored).toBeGreaterThan(0);
    expect(readFileSync(join(out, 'report', 'report.md'), 'utf8')).toMatch(
      /## Collection with reflection[^#]*- rewards: /,
    );
    expect(report.mining?.criticalStates ?? 0).toBeGreaterThan(0);
    const rounds = report.config.preset.dagger?.rounds ?? 0;
    const dagger = Array.from({ length: rounds }, (_, i) => [
      `dagger-rollout${i + 1}`,
      `train-sft-dagger${i + 1}`,
      `eval-sft-dagger${i + 1}`,
    ]).flat();
    // The student RL starts from is chosen on a validation split of train tasks, each candidate its own stage.
    const select = report.config.preset.dagger?.select;
    expect(select, 'the tiny preset exercises the choice').toBeTruthy();
    const choice = [
      'val-sft',
      ...Array.from({ length: rounds }, (_, i) => `val-sft-dagger${i + 1}`),
      'select-student',
    ];
    const stages = [
      'synth',
      'collect',
      'export-sft',
      'train-sft',
      ...dagger,
      ...choice,
      'rollout',
      'mine',
      'rl-salvage-ds',
      'eval-teacher',
      'eval-sft',
      'eval-salvage-ds',
      'step-accuracy',
    ];
    for (const stage of stages) {
      expect(report.timings[stage], stage).toBeGreaterThanOrEqual(0);
      expect(run.stderr, stage).toContain(`[${stage}] running`);
    }
    expect(names).toHaveLength(2 + rounds + 1);
    const studentSection = JSON.stringify(report.sections);
    expect(studentSection).toMatch(
      new RegExp(
        `the student RL starts from, chosen on ${select?.valTasks} train tasks outside the collection`,
      ),
    );
    expect(names.at(-1)).toMatch(/Salvage-DS/);
    // RL metrics: the curve in the report, and rl-metrics.json beside the RL checkpoint.
    const curve = report.rlCurves.find((c) => c.name.startsWith('salvage-ds'));
    expect(curve?.points.length ?? 0).toBeGreaterThan(0);
    for (const p of curve?.points ?? [])
      for (const v of Object.values(p.values)) expect(Number.isFinite(v)).toBe(true);
    const rlMetrics = JSON.parse(
      readFileSync(join(out, 'models', 'salvage-ds', 'rl-metrics.json'), 'utf8'),
    ) as {
      steps: number;
      metrics: unknown[];
    };
    expect(rlMetrics.metrics.length).toBe(rlMetrics.steps);
    expect(rlMetrics.metrics.length).toBe(curve?.points.length);
    // The printed table: one row per evaluated stage, each with a percentage.
    const rows = run.stdout.split('\n').filter((l) => /^\| (teacher|SFT|RL)/.test(l));
    expect(rows.length).toBe(report.stages.length);
    for (const row of rows) expect(row).toMatch(/\d+\.\d% ± \d+\.\d/);
    expect(run.stdout).toContain(join(out, 'report', 'report.html'));
    const html = readFileSync(join(out, 'report', 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(existsSync(join(out, 'tasks', 'synth.jsonl'))).toBe(true);
    expect(existsSync(join(out, 'exports', 'trl', 'train.jsonl'))).toBe(true);
  });

  it('resumes: a rerun skips every finished stage', { timeout: 720_000 }, () => {
    const before = first();
    expect(before.status, before.stderr.slice(-3000)).toBe(0);
    const again = demo();
    expect(again.status, again.stderr.slice(-3000)).toBe(0);
    const report = readReport();
    const stages = Object.keys(report.timings).filter((k) => k !== 'sum of stages');
    expect(stages.length).toBeGreaterThanOrEqual(4);
    for (const stage of stages) expect(again.stderr).toContain(`[${stage}] done earlier`);
    expect(again.stderr).not.toMatch(/\] running/);
    expect(again.stderr).not.toMatch(/does not validate/);
    expect(again.stdout).toMatch(/resumed: \d+ stage\(s\) finished earlier were skipped/);
    // Same results, and no episode was run again.
    expect(again.stdout.split('\n').filter((l) => l.startsWith('|'))).toEqual(
      before.stdout.split('\n').filter((l) => l.startsWith('|')),
    );
    expect(again.seconds).toBeLessThan(Math.max(60, before.seconds / 2));
  });
});

describe('rmsweb ablate --preset tiny --from the demo', () => {
  const results = join(dir, 'results');
  const ablateOut = join(dir, 'ablate');
  // A copy of the demo, so this test can lose it as a machine would.
  const from = join(dir, 'demo-for-ablate');
  const env = { ...process.env, FORCE_COLOR: '0' };
  const ablate = () =>
    spawnSync(process.execPath, tinyAblateArgs({ from, results, out: ablateOut }), {
      encoding: 'utf8',
      timeout: 540_000,
      env,
    });
  const ledgerFile = join(results, 'ablation-tiny.ledger.json');
  const readLedger = () =>
    JSON.parse(readFileSync(ledgerFile, 'utf8')) as {
      base: { hash: string; parts: Record<string, string> };
      units: Record<string, { run: { perTask: Record<string, unknown> } }>;
    };
  const table = (md: string) => md.split('\n').filter((l) => l.startsWith('|'));
  const rowNames = (md: string) => table(md).map((l) => l.split('|')[1]);
  const mdFile = join(results, 'ablation-tiny.md');

  it('keeps every finished seed in the ledger and what the rest read of the base in a snapshot: each survives the loss of its folders', {
    timeout: 1_500_000,
  }, () => {
    const before = first();
    expect(before.status, before.stderr.slice(-3000)).toBe(0);
    cpSync(out, from, { recursive: true });
    const a = ablate();
    expect(a.status, a.stderr.slice(-3000)).toBe(0);
    const md = readFileSync(mdFile, 'utf8');
    // The copy to commit names the run folders by role; the run folder's own copy keeps their paths.
    expect(md).not.toContain(from);
    expect(md).toContain("--from <the demo's data folder>");
    expect(readFileSync(join(ablateOut, 'ablation.md'), 'utf8')).toContain(from);
    // Every row of the table has its seed in the ledger, with the per-task outcomes the paired CIs resample.
    const json = JSON.parse(readFileSync(join(results, 'ablation-tiny.json'), 'utf8')) as { rows: unknown[] };
    const ledger = readLedger();
    expect(Object.keys(ledger.units).length).toBe(json.rows.length);
    for (const u of Object.values(ledger.units)) expect(Object.keys(u.run.perTask).length).toBeGreaterThan(0);
    // First the base with its run stores, then, once the stages that read them have run, the small one.
    expect(a.stderr).toMatch(/\[snapshot\] .*ablation-tiny\.base: the base with its \d+ run stores/);
    expect(a.stderr).toMatch(/\[snapshot\] .*ablation-tiny\.base: \d+ files/);
    expect(readSnapshot(join(results, 'ablation-tiny.base')).phase).toBe('complete');
    expect(existsSync(join(results, 'ablation-tiny.base', 'files', 'base', 'collect'))).toBe(false);

    // The ablation's run folder is lost, the committed ledger stays: nothing runs again.
    rmSync(ablateOut, { recursive: true, force: true });
    const b = ablate();
    expect(b.status, b.stderr.slice(-3000)).toBe(0);
    expect(b.stderr).not.toMatch(/\] running/);
    expect(b.stderr).toMatch(/in the ledger \(pass@1/);
    expect(table(readFileSync(mdFile, 'utf8'))).toEqual(table(md));

    // The demo folder is lost too, and up to three seeds were never measured: the snapshot lays out
    // what they read (the student, the plain SFT student, the mined and verified states, the
    // teacher's episodes), and only their own stages run. The confirmed row exists only when
    // verification confirmed a state, the plain rows only when the validation split chose a
    // relabelled student as the start.
    rmSync(ablateOut, { recursive: true, force: true });
    rmSync(from, { recursive: true, force: true });
    const doc = JSON.parse(readFileSync(ledgerFile, 'utf8'));
    const dropped = ['dapo-mined', 'salvage-ds-confirmed', 'salvage-ds-plain'].filter((k) => k in doc.units);
    expect(dropped).toContain('dapo-mined');
    for (const k of dropped) delete doc.units[k];
    writeFileSync(ledgerFile, JSON.stringify(doc));
    const c = ablate();
    expect(c.status, c.stderr.slice(-3000)).toBe(0);
    expect(c.stderr).toMatch(/\[snapshot\] --from .* was missing: restored \d+ files/);
    const ran = [...c.stderr.matchAll(/\[([\w-]+)\] running/g)].map((m) => m[1]).sort();
    expect(ran).toEqual(dropped.flatMap((u) => [`rl-${u}`, `eval-${u}`, `step-accuracy-${u}`]).sort());
    expect(rowNames(readFileSync(mdFile, 'utf8'))).toEqual(rowNames(md));
    expect(readLedger().base.hash).toBe(ledger.base.hash);

    // A ledger measured on another base is refused, naming what differs, and left as it was.
    const other = JSON.parse(readFileSync(ledgerFile, 'utf8'));
    other.base.parts.student = 'another';
    other.base.hash = 'another';
    writeFileSync(ledgerFile, JSON.stringify(other));
    const d = ablate();
    expect(d.status).toBe(2);
    expect(d.stderr).toMatch(/measured on another base \(student differ\)/);
    expect(readLedger().base.hash).toBe('another');
  });
});

describe('the launcher of demo, ablate and train', () => {
  it('refuses an RMSWEB_HEAP_MB that is not a whole number of MB, before anything runs', () => {
    const where = join(dir, 'never');
    const r = spawnSync(process.execPath, ['bin/rmsweb.js', 'demo', '--preset', 'tiny', '--out', where], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, RMSWEB_HEAP_MB: '12g' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('RMSWEB_HEAP_MB must be a whole number of MB');
    expect(existsSync(where)).toBe(false);
  });
});
