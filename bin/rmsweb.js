#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx so `npx rmsweb` works right after `npm ci`,
// with no build step for the user.
import { spawn } from 'node:child_process';
import { totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';

// Training keeps every recorded step of its runs in memory: the full preset's second DAgger round
// trains on ~27k steps and needs more than Node's default heap (about 4 GB here), which would end
// the run with "JavaScript heap out of memory" after an hour of work. The commands that train run
// in a child Node with a heap of 60% of the machine's memory (at most 16 GB) unless the heap was
// already set (NODE_OPTIONS=--max-old-space-size=..., or RMSWEB_HEAP_MB=0 to keep the default).
const TRAINING_COMMANDS = new Set(['demo', 'ablate', 'train']);
const heapEnv = process.env.RMSWEB_HEAP_MB;
if (heapEnv && !/^\d+$/.test(heapEnv)) {
  // A typo here would otherwise leave a long run on the default heap, to fail an hour in.
  process.stderr.write(
    `rmsweb: RMSWEB_HEAP_MB must be a whole number of MB (0: Node's default heap), not "${heapEnv}"\n`,
  );
  process.exit(2);
}
const wantMb = heapEnv ? Number(heapEnv) : Math.min(16384, Math.floor((totalmem() / 1048576) * 0.6));
const haveMb = getHeapStatistics().heap_size_limit / 1048576;

if (TRAINING_COMMANDS.has(process.argv[2]) && !process.env.RMSWEB_CHILD && wantMb > haveMb * 1.1) {
  // The child runs in its own process group, so a Ctrl-C at the terminal reaches only this launcher,
  // which passes every signal on exactly once (a second Ctrl-C still quits the child at once).
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${wantMb}`,
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit', detached: true, env: { ...process.env, RMSWEB_CHILD: String(process.pid) } },
  );
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    // End the way the child ended, so callers see the same signal.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    setTimeout(() => process.exit(1), 1000).unref();
  });
} else {
  if (process.env.RMSWEB_CHILD) {
    // A launcher killed outright (SIGKILL) cannot pass anything on: end the same way, as the one
    // process would have (every stage resumes after a crash).
    const parent = Number(process.env.RMSWEB_CHILD);
    setInterval(() => {
      // process.ppid is read once at start-up, so ask whether the launcher still exists.
      try {
        process.kill(parent, 0);
      } catch {
        process.kill(process.pid, 'SIGKILL');
      }
    }, 1000).unref();
  }
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli/main.ts');
  await main(process.argv);
}
