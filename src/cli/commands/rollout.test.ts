import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../store/index.ts';
import { generateWorldTasks } from '../../world/tasks.ts';

const cli = (...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawn(process.execPath, ['bin/rmsweb.js', ...args]);
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });

describe('rmsweb rollout --relabel (DAgger), end to end on the offline world', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-rollout-'));
    // Two short tasks: one the teacher solves (collected), one it never saw (skipped by --notes-from).
    const tasks = generateWorldTasks({ split: 'train' }).filter((t) =>
      t.id.startsWith('forms.status-lookup.'),
    );
    writeFileSync(join(dir, 'one.jsonl'), `${JSON.stringify(tasks[0])}\n`);
    writeFileSync(
      join(dir, 'two.jsonl'),
      `${tasks
        .slice(0, 2)
        .map((t) => JSON.stringify(t))
        .join('\n')}\n`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records the expert action at every step of the agent, and skips tasks the teacher never solved', async () => {
    const teacher = join(dir, 'teacher');
    const c = await cli(
      'collect',
      '--tasks',
      join(dir, 'one.jsonl'),
      '--stop-after',
      '1',
      '--out',
      teacher,
      '--workers',
      '1',
      '--port',
      '0',
      '--quiet',
    );
    expect(c.status, c.stderr).toBe(0);
    const out = join(dir, 'dagger');
    const r = await cli(
      'rollout',
      '--agent',
      'random',
      '--tasks',
      join(dir, 'two.jsonl'),
      '--out',
      out,
      '--relabel',
      'heuristic',
      '--notes-from',
      teacher,
      '--workers',
      '1',
      '--max-steps',
      '4',
      '--port',
      '0',
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 of 2 tasks skipped/);
    const store = RunStore.open(out, { create: false, readonly: true });
    const ts = store.listTrajectories();
    store.close();
    expect(ts).toHaveLength(1);
    expect(ts[0].steps.length).toBeGreaterThan(0);
    expect(ts[0].steps.every((s) => s.expertAction)).toBe(true);
    // The teacher's first move on the start page is its own, whatever the random agent did.
    expect(ts[0].steps[0].expertAction?.type).toBe('click');
    const bad = await cli(
      'rollout',
      '--agent',
      'random',
      '--tasks',
      join(dir, 'one.jsonl'),
      '--out',
      join(dir, 'x'),
      '--notes-from',
      teacher,
      '--quiet',
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--notes-from needs --relabel/);
  }, 180_000);

  it('takes screenshots unless --no-screenshots (a policy: student skips them by default)', async () => {
    const runs = { on: [] as string[], off: ['--no-screenshots'] };
    for (const [name, extra] of Object.entries(runs)) {
      const out = join(dir, `shots-${name}`);
      const r = await cli(
        'rollout',
        '--agent',
        'random',
        '--tasks',
        join(dir, 'one.jsonl'),
        '--out',
        out,
        '--workers',
        '1',
        '--max-steps',
        '2',
        '--port',
        '0',
        '--quiet',
        ...extra,
      );
      expect(r.status, r.stderr).toBe(0);
      const store = RunStore.open(out, { create: false, readonly: true });
      const [t] = store.listTrajectories();
      store.close();
      const shots = t.steps.map((s) => s.observation.screenshot);
      expect(shots.length).toBeGreaterThan(0);
      if (name === 'on') expect(shots.every((s) => s !== null)).toBe(true);
      else expect(shots.every((s) => s === null)).toBe(true);
    }
  }, 120_000);
});
