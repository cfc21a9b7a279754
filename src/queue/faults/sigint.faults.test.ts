import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTasks } from '../../cli/tasks-arg.ts';
import { episodeKey, progressFromStore } from '../../collect/collect.ts';
import { loadStudentPolicy } from '../../policy/student-policy.ts';
import { RunStore } from '../../store/run-store.ts';
import {
  type CliRun,
  running,
  spawnCli,
  waitUntil,
  writeCriticalStates,
  writeStudentCheckpoint,
  writeSyntheticRun,
} from './fixtures.ts';

/** How many rows a run store holds right now (0 while it does not exist yet). */
function peek<T>(dir: string, read: (s: RunStore) => T, empty: T): T {
  if (!existsSync(join(dir, 'store.sqlite'))) return empty;
  let s: RunStore;
  try {
    s = RunStore.open(dir, { readonly: true });
  } catch {
    // The child may have created the file but not yet committed its tables.
    return empty;
  }
  try {
    return read(s);
  } finally {
    s.close();
  }
}

async function finish(
  r: CliRun,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const t = setTimeout(() => r.child.kill('SIGKILL'), timeoutMs);
  const e = await r.exited;
  clearTimeout(t);
  return e;
}

// Ctrl-C in the middle of the long commands, then the same command again.
describe('fault: SIGINT during collect, train sft and rl', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-faults-sigint-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('collect: stops with 130 after saving what finished; the rerun resumes with no duplicate episode', async () => {
    const out = join(dir, 'collect');
    const args = [
      'collect',
      '--tasks',
      'world:train:3',
      '--out',
      out,
      '--port',
      '0',
      '--workers',
      '2',
      '--max-rounds',
      '2',
      '--stop-after',
      '1',
      '--max-steps',
      '3',
      '--quiet',
    ];
    const first = spawnCli(args);
    await waitUntil(
      () => peek(out, (s) => s.countTrajectories(), 0) >= 1,
      'a first saved episode',
      120_000,
      () => running(first.child),
    );
    first.child.kill('SIGINT');
    const e1 = await finish(first, 60_000);
    expect(e1.code, first.stderr()).toBe(130);
    expect(first.stderr()).toContain('collect: interrupted');
    const before = peek(out, (s) => s.countTrajectories(), 0);
    console.info(`collect SIGINT: exit ${e1.code ?? e1.signal} with ${before} episodes saved`);
    expect(before).toBeGreaterThanOrEqual(1);

    const second = spawnCli(args);
    const e2 = await finish(second, 180_000);
    expect(e2.code, second.stderr()).toBe(0);
    const tasks = resolveTasks('world:train:3', { seed: 0, worldSeed: 1 });
    const s = RunStore.open(out, { readonly: true });
    let total = 0;
    for (const task of tasks) {
      const p = progressFromStore(s, task, 2, 1);
      expect(p.done, `${task.id} finished after the rerun`).toBe(true);
      for (let round = 0; round < p.round; round++) {
        expect(s.hasEpisode(episodeKey(task.id, round))).toBe(true);
        expect(s.countTrajectories({ taskId: task.id, round }), `${task.id} round ${round} saved once`).toBe(
          1,
        );
      }
      total += p.round;
    }
    expect(s.countTrajectories()).toBe(total);
    // An interrupted episode is never saved half-done.
    expect(s.listTrajectorySummaries().every((t) => t.steps > 0)).toBe(true);
    expect(s.listTrajectories().some((t) => t.endReason === 'aborted')).toBe(false);
    s.close();
  }, 360_000);

  it('train sft: Ctrl-C between epochs leaves a loadable checkpoint; --resume finishes the remaining epochs once each', async () => {
    writeSyntheticRun(join(dir, 'sft-run'), 40);
    const out = join(dir, 'sft');
    const args = [
      'train',
      'sft',
      '--run',
      join(dir, 'sft-run'),
      '--out',
      out,
      '--epochs',
      '5',
      '--backend',
      'cpu',
      '--quiet',
    ];
    const epochs = () => {
      try {
        return (JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')).epochs as unknown[]).length;
      } catch {
        return 0;
      }
    };
    const first = spawnCli(args);
    await waitUntil(
      () => epochs() >= 1,
      'the first epoch checkpoint',
      120_000,
      () => running(first.child),
    );
    first.child.kill('SIGINT');
    const e1 = await finish(first, 60_000);
    // train has no SIGINT handler: Node's default ends it at once (signal SIGINT, or 130 via a handler).
    expect(e1.signal === 'SIGINT' || e1.code === 130, `exit ${e1.code}/${e1.signal}`).toBe(true);
    const done = epochs();
    console.info(`train sft SIGINT: exit ${e1.code ?? e1.signal} after ${done} of 5 epochs`);
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThan(5);
    const mid = await loadStudentPolicy(out);
    mid.dispose();

    const second = spawnCli([...args, '--resume']);
    const e2 = await finish(second, 180_000);
    expect(e2.code, second.stderr()).toBe(0);
    const m = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')) as {
      epochs: Array<{ epoch: number }>;
    };
    expect(m.epochs.map((x) => x.epoch)).toEqual([1, 2, 3, 4, 5]);
    const final = await loadStudentPolicy(out);
    final.dispose();
    // No temp files left behind by an interrupted atomic write are mistaken for the checkpoint.
    expect(
      readdirSync(out)
        .filter((f) => !f.includes('.tmp-'))
        .sort(),
    ).toEqual(['config.json', 'metrics.json', 'weights.bin', 'weights.json']);
  }, 360_000);

  it('train sft: its launcher SIGKILLed, the training child (the larger heap) ends too', async () => {
    writeSyntheticRun(join(dir, 'orphan-run'), 40);
    const out = join(dir, 'orphan-sft');
    const r = spawnCli(
      ['train', 'sft', '--run', join(dir, 'orphan-run'), '--out', out, '--epochs', '200', '--quiet'],
      // A heap well above Node's default, so the launcher starts a child on any machine.
      { RMSWEB_HEAP_MB: '12288' },
    );
    /** Pids whose command line names this test's output folder. */
    const holders = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(out);
          } catch {
            return false;
          }
        });
    await waitUntil(
      () => existsSync(join(out, 'metrics.json')),
      'the first epoch checkpoint',
      120_000,
      () => running(r.child),
    );
    // Two processes: the launcher and the child it started with --max-old-space-size.
    expect(holders().length).toBe(2);
    r.child.kill('SIGKILL');
    await r.exited;
    await waitUntil(() => holders().length === 0, 'the training child to end', 15_000);
  }, 180_000);

  it('rl: Ctrl-C mid-run leaves no partial checkpoint; the rerun starts over and logs each step once', async () => {
    const trajectories = writeSyntheticRun(join(dir, 'rl-run'), 12);
    const critical = join(dir, 'critical.jsonl');
    writeCriticalStates(critical, trajectories);
    await writeStudentCheckpoint(join(dir, 'rl-init'));
    const out = join(dir, 'rl-out');
    const log = join(dir, 'rl-log');
    const steps = 40;
    const args = [
      'rl',
      '--data',
      critical,
      '--init',
      join(dir, 'rl-init'),
      '--out',
      out,
      '--steps',
      String(steps),
      '--batch',
      '4',
      '--group-size',
      '4',
      '--log-run',
      log,
      '--json',
    ];
    const series = `rl/salvage-ds/${out}`;
    const first = spawnCli(args);
    await waitUntil(
      () => peek(log, (s) => s.listMetrics(series).length, 0) >= 3,
      'three logged RL steps',
      120_000,
      () => running(first.child),
    );
    first.child.kill('SIGINT');
    const e1 = await finish(first, 60_000);
    const logged = peek(log, (s) => s.listMetrics(series).length, 0);
    console.info(
      `rl SIGINT: exit ${e1.code ?? e1.signal} after ${logged} of ${steps} steps; checkpoint written: ${existsSync(join(out, 'config.json'))}`,
    );
    if (e1.code === 0) {
      // It finished before the signal landed: nothing to check about interruption.
      expect(logged).toBe(steps);
    } else {
      expect(e1.signal === 'SIGINT' || e1.code === 130, `exit ${e1.code}/${e1.signal}`).toBe(true);
      expect(logged).toBeLessThan(steps);
      // rl writes its checkpoint only at the end: an interrupted run leaves none, never half of one.
      expect(existsSync(join(out, 'config.json'))).toBe(false);
    }
    const second = spawnCli(args);
    const e2 = await finish(second, 180_000);
    expect(e2.code, second.stderr()).toBe(0);
    const trained = await loadStudentPolicy(out);
    trained.dispose();
    expect(JSON.parse(readFileSync(join(out, 'rl-metrics.json'), 'utf8')).metrics).toHaveLength(steps);
    // The rerun replays steps 1..N; re-logged steps replace the interrupted run's points.
    expect(peek(log, (s) => s.listMetrics(series).map((p) => p.step), [] as number[])).toEqual(
      Array.from({ length: steps }, (_, i) => i + 1),
    );
  }, 360_000);
});
