import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tinyDemo } from './testing/tiny-demo.ts';

// The CI smoke test of the whole pipeline: `rmsweb demo --preset tiny` end to end in a real
// browser against the offline world, then a rerun that must resume instead of redoing work.
// `rmsweb ablate --from` such a demo (its ledger, its snapshots, the loss of its folders) is
// demo-ablate-loss.long.test.ts (npm run test:long); src/cli/commands/ablate.test.ts covers ablate
// in CI.

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
