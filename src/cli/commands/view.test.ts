import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTrajectory } from '../../store/fixtures.ts';
import { RunStore } from '../../store/index.ts';

const BIN = fileURLToPath(new URL('../../../bin/rmsweb.js', import.meta.url));
let tmp: string;
let child: ChildProcess | null = null;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rmsweb-view-cli-'));
  const store = RunStore.open(join(tmp, 'run'));
  store.saveTrajectory(makeTrajectory({ id: 'traj-a', taskId: 'task-cli-1', success: false }));
  store.close();
});

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

function run(args: string[]): {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
} {
  const proc = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d) => {
    out += d;
  });
  proc.stderr?.on('data', (d) => {
    err += d;
  });
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, out: () => out, err: () => err, exit };
}

describe('rmsweb view', () => {
  it('serves the run on 127.0.0.1 and stops cleanly on SIGTERM', async () => {
    const r = run(['view', join(tmp, 'run'), '--no-open']);
    child = r.proc;
    const deadline = Date.now() + 30_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline && r.proc.exitCode === null) {
      url = /http:\/\/127\.0\.0\.1:\d+\//.exec(r.out())?.[0];
      if (!url) await new Promise((res) => setTimeout(res, 100));
    }
    expect(url, r.err()).toBeDefined();
    const tasks = await fetch(`${url}tasks`);
    expect(tasks.status).toBe(200);
    expect(await tasks.text()).toContain('task-cli-1');
    r.proc.kill('SIGTERM');
    await expect(r.exit).resolves.toBe(0);
  });
});
