import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWorldTasks } from '../../world/tasks.ts';
import { runCli, writeCriticalStates, writeStudentCheckpoint, writeSyntheticRun } from './fixtures.ts';

// Corrupt input files: each command stops with exit 2 and an error naming the file and the line.
describe('fault: corrupt input files', () => {
  let dir: string;
  let critical: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-faults-input-'));
    const trajectories = writeSyntheticRun(join(dir, 'run'));
    critical = join(dir, 'critical.jsonl');
    writeCriticalStates(critical, trajectories);
    await writeStudentCheckpoint(join(dir, 'sft'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a task JSONL with a bad line: collect exits 2 naming the file and line, and writes nothing', async () => {
    const tasks = generateWorldTasks({ split: 'train' }).slice(0, 3);
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify(tasks[0])}\n${JSON.stringify(tasks[1])}\n{"id": "half a line", \n${JSON.stringify(tasks[2])}\n`,
    );
    const r = await runCli(['collect', '--tasks', file, '--out', join(dir, 'never'), '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}, line 3: not valid JSON`);
    // A valid JSON line that is not a Task names the field too.
    writeFileSync(file, `${JSON.stringify(tasks[0])}\n${JSON.stringify({ ...tasks[1], startUrl: 42 })}\n`);
    const r2 = await runCli(['collect', '--tasks', file, '--out', join(dir, 'never'), '--port', '0']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line 2, field startUrl: not a valid Task`),
    );
  }, 120_000);

  it('a corrupt critical-state JSONL: rl and export rl exit 2 naming the line', async () => {
    const lines = readFileSync(critical, 'utf8').trim().split('\n');
    const bad = join(dir, 'critical-bad.jsonl');
    lines[4] = lines[4].slice(0, Math.floor(lines[4].length / 2)); // truncated mid-record, as after a crash
    writeFileSync(bad, `${lines.join('\n')}\n`);
    const rl = await runCli([
      'rl',
      '--data',
      bad,
      '--init',
      join(dir, 'sft'),
      '--out',
      join(dir, 'rl-out'),
      '--steps',
      '1',
    ]);
    expect(rl.code).toBe(2);
    expect(rl.stderr).toContain(`${bad}, line 5: not valid JSON`);
    const ex = await runCli([
      'export',
      'rl',
      '--run',
      join(dir, 'run'),
      '--critical',
      bad,
      '--format',
      'jsonl',
      '--out',
      join(dir, 'rl.jsonl'),
    ]);
    expect(ex.code).toBe(2);
    expect(ex.stderr).toContain(`${bad}, line 5: not valid JSON`);
    // A JSON line that is not a critical state.
    lines[4] = JSON.stringify({ id: 'cs_x', task: { id: 't' } });
    writeFileSync(bad, `${lines.join('\n')}\n`);
    const rl2 = await runCli([
      'rl',
      '--data',
      bad,
      '--init',
      join(dir, 'sft'),
      '--out',
      join(dir, 'rl-out'),
      '--steps',
      '1',
    ]);
    expect(rl2.code).toBe(2);
    expect(rl2.stderr).toMatch(/critical-bad\.jsonl, line 5, field [\w.]+: not a critical state/);
  }, 120_000);

  it('a run folder whose store.sqlite is garbage: a clear error, not a stack trace', async () => {
    const run = join(dir, 'garbage-run');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'store.sqlite'), 'this is not a database\n'.repeat(200));
    const r = await runCli(['stats', '--run', run]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/store\.sqlite: cannot open run store: file is not a database/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
