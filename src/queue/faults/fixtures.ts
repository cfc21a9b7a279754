import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CriticalState } from '../../core/critical-state.ts';
import type { Trajectory } from '../../core/trajectory.ts';
import { createStudentPolicy } from '../../policy/student-policy.ts';
import { syntheticTrajectories } from '../../policy/testing/synthetic.ts';
import { RunStore } from '../../store/run-store.ts';

/** Repository root (where bin/rmsweb.js lives). */
export const REPO = join(import.meta.dirname, '../../..');

/** A run folder of synthetic verified successes (the student's SFT data). */
export function writeSyntheticRun(dir: string, n = 8): Trajectory[] {
  const trajectories = syntheticTrajectories(n, 3);
  const store = RunStore.open(dir);
  for (const t of trajectories) store.saveTrajectory(t);
  store.close();
  return trajectories;
}

/** Critical states built from the successes' steps (RL reads only the success side). */
export function writeCriticalStates(file: string, trajectories: Trajectory[]): number {
  const lines = trajectories.flatMap((t) =>
    t.steps.map((s, i) =>
      JSON.stringify(
        CriticalState.parse({
          id: `cs_${t.id}_${i}`,
          task: t.task,
          success: {
            trajectoryId: t.id,
            stepIndex: i,
            observation: s.observation,
            action: s.action,
            history: t.steps.slice(0, i).map((p) => p.action),
          },
          failure: {
            trajectoryId: 'other',
            stepIndex: i,
            observation: s.observation,
            action: { type: 'go_back' },
          },
          comparability: { url: 1, elements: 1, memory: 1, progress: 1, total: 1 },
          label: 'other',
          labelSource: 'test',
        }),
      ),
    ),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return lines.length;
}

/** A freshly initialised student checkpoint (the `--init` of `rmsweb rl`). */
export async function writeStudentCheckpoint(dir: string): Promise<void> {
  const p = await createStudentPolicy({ model: { seed: 1 } });
  await p.save(dir);
  p.dispose();
}

/** A spawned `rmsweb` CLI process with its output collected. */
export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node bin/rmsweb.js ...args` in the repository root. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const child = spawn(process.execPath, [join(REPO, 'bin/rmsweb.js'), ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out = (out + d.toString()).slice(-50_000);
  });
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-50_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the CLI to completion (killed after `timeoutMs`). */
export async function runCli(
  args: string[],
  timeoutMs = 120_000,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const r = spawnCli(args, env);
  const t = setTimeout(() => r.child.kill('SIGKILL'), timeoutMs);
  const e = await r.exited;
  clearTimeout(t);
  return { ...e, stdout: r.stdout(), stderr: r.stderr() };
}

/** Polls `pred` until it holds (or throws after `timeoutMs`, or when `alive` says the process is gone). */
export async function waitUntil(
  pred: () => boolean,
  what: string,
  timeoutMs: number,
  alive?: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (alive && !alive()) throw new Error(`process exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether a child has not exited yet. */
export function running(c: ChildProcess): boolean {
  return c.exitCode === null && c.signalCode === null;
}
