import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The CI smoke test of the whole pipeline: `rmsweb demo --preset tiny` end to end in a real
// browser against the offline world, then a rerun that must resume instead of redoing work.

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-demo-'));
const out = join(dir, 'demo');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function demo(): { status: number | null; stdout: string; stderr: string; seconds: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['bin/rmsweb.js', 'demo', '--preset', 'tiny', '--out', out], {
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (performance.now() - t0) / 1000 };
}

interface Report {
  stages: Array<{
    stage: string;
    summary: { pass1: { mean: number }; perSite: Record<string, { mean: number }>; tasks: number };
  }>;
  collection: { overall: { tasks: number; taskSuccessRate: number } };
  timings: Record<string, number>;
}

describe('rmsweb demo --preset tiny', () => {
  let first: ReturnType<typeof demo>;

  it('runs the whole pipeline and writes the report', { timeout: 330_000 }, () => {
    first = demo();
    expect(first.status, first.stderr.slice(-3000)).toBe(0);
    for (const f of ['report.json', 'report.md', 'report.html'])
      expect(existsSync(join(out, 'report', f))).toBe(true);
    const report = JSON.parse(readFileSync(join(out, 'report', 'report.json'), 'utf8')) as Report;
    const names = report.stages.map((s) => s.stage);
    expect(names[0]).toBe('teacher (no reflection)');
    // The student rows exist whenever the teacher produced training data.
    if (report.collection.overall.taskSuccessRate > 0) expect(names).toContain('SFT student');
    for (const s of report.stages) {
      expect(s.summary.tasks).toBeGreaterThan(0);
      for (const x of [s.summary.pass1.mean, ...Object.values(s.summary.perSite).map((r) => r.mean)]) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
      }
    }
    for (const stage of ['synth', 'collect', 'export-sft', 'eval-teacher'])
      expect(report.timings[stage]).toBeGreaterThanOrEqual(0);
    // The printed table: one row per evaluated stage, each with a percentage.
    const rows = first.stdout.split('\n').filter((l) => /^\| (teacher|SFT|RL)/.test(l));
    expect(rows.length).toBe(report.stages.length);
    for (const row of rows) expect(row).toMatch(/\d+\.\d% ± \d+\.\d/);
    expect(first.stdout).toContain(join(out, 'report', 'report.html'));
    const html = readFileSync(join(out, 'report', 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(existsSync(join(out, 'tasks', 'synth.jsonl'))).toBe(true);
    expect(existsSync(join(out, 'exports', 'trl', 'train.jsonl'))).toBe(true);
  });

  it('resumes: a rerun skips every finished stage', { timeout: 120_000 }, () => {
    const again = demo();
    expect(again.status, again.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report', 'report.json'), 'utf8')) as Report;
    const stages = Object.keys(report.timings).filter((k) => k !== 'sum of stages');
    expect(stages.length).toBeGreaterThanOrEqual(4);
    for (const stage of stages) expect(again.stderr).toContain(`[${stage}] done earlier`);
    expect(again.stderr).not.toMatch(/\] running/);
    expect(again.stdout).toMatch(/resumed: \d+ stage\(s\) finished earlier were skipped/);
    // Same results, and no episode was run again.
    expect(again.stdout.split('\n').filter((l) => l.startsWith('|'))).toEqual(
      first.stdout.split('\n').filter((l) => l.startsWith('|')),
    );
    expect(again.seconds).toBeLessThan(Math.max(60, first.seconds / 2));
  });
});
