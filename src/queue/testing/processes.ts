import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** A child process that prints one JSON object per line (the test worker and coordinator). */
export interface JsonProcess {
  child: ChildProcess;
  events: Array<Record<string, any>>;
  stderr: () => string;
  /** Resolves with the first event matching `pred` (also one already seen). */
  waitFor(pred: (e: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal if still running. */
  kill(signal?: NodeJS.Signals): void;
}

/** Runs `src/queue/testing/<script>` through tsx and collects its JSON event lines. */
export function spawnJsonProcess(
  script: string,
  args: string[],
  cwd = join(import.meta.dirname, '../../..'),
): JsonProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Array<Record<string, any>> = [];
  const listeners = new Set<() => void>();
  let buf = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i = buf.indexOf('\n');
    while (i >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line.startsWith('{')) {
        try {
          events.push(JSON.parse(line));
        } catch {
          // not an event line
        }
      }
      i = buf.indexOf('\n');
    }
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const l of listeners) l();
      resolve({ code, signal });
    });
  });
  return {
    child,
    events,
    stderr: () => err,
    exited,
    kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitFor(pred, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(pred);
          if (hit) {
            cleanup();
            resolve(hit);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(
              new Error(
                `${script} exited (${child.exitCode ?? child.signalCode}) before the awaited event; stderr:\n${err}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`timed out after ${timeoutMs} ms waiting for an event from ${script}; stderr:\n${err}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** SIGTERMs a process and waits for it, SIGKILLing it if it lingers. */
export async function stopProcess(p: JsonProcess, graceMs = 15_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(t);
}
