import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { makeTrajectory } from '../../store/fixtures.ts';
import { RunStore } from '../../store/index.ts';
import { registerStats } from './stats.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-stats-'));
  const store = RunStore.open(join(dir, 'run'));
  store.saveTrajectory({
    ...makeTrajectory({ id: 't1', taskId: 'task-1', success: true }),
    tags: ['collect', 'teacher'],
  });
  store.close();
  const rollout = RunStore.open(join(dir, 'rollout'));
  rollout.saveTrajectory({
    ...makeTrajectory({ id: 'r1', taskId: 'task-2', success: false }),
    tags: ['rollout', 'student'],
  });
  rollout.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function stats(args: string[], run = 'run'): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerStats(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'rmsweb', 'stats', '--run', join(dir, run), ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

describe('rmsweb stats', () => {
  it('summarizes a tag the run holds and refuses one it does not, listing its tags', async () => {
    expect(JSON.parse(await stats(['--json'])).overall.tasks).toBe(1);
    const err = await stats(['--tag', 'nope']).catch((e) => e);
    expect(InputError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/no trajectories tagged "nope" in .*its tags: collect, teacher/);
  });

  it('summarizes a rollout folder without --tag (it holds no collection)', async () => {
    const s = JSON.parse(await stats(['--json'], 'rollout'));
    expect(s.overall.tasks).toBe(1);
    expect(s.overall.tasksSolved).toBe(0);
  });
});
