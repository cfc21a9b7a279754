import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** The redis-server binary: $RMSWEB_REDIS_SERVER, else the first on PATH. */
export function redisServerPath(): string | null {
  const env = process.env.RMSWEB_REDIS_SERVER;
  if (env) return existsSync(env) ? env : null;
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  return r.status === 0 && p ? p : null;
}

/** A free TCP port on 127.0.0.1 (there is a small window before the caller binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A throwaway Redis for tests and benchmarks: loopback only, no persistence. */
export interface TestRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts redis-server on a free loopback port and waits until it answers PING. */
export async function startTestRedis(bin = redisServerPath()): Promise<TestRedis> {
  if (!bin) throw new Error('redis-server is not installed');
  for (let tries = 0; ; tries++) {
    const port = await freePort();
    const child = spawn(
      bin,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const url = `redis://127.0.0.1:${port}`;
    const ok = await waitForPing(url, child, 10_000);
    if (ok) {
      return {
        url,
        port,
        process: child,
        stop: () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      };
    }
    child.kill('SIGKILL');
    if (tries >= 2) throw new Error(`redis-server did not answer PING on port ${port}`);
  }
}

async function waitForPing(url: string, child: ChildProcess, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    c.on('error', () => {});
    try {
      await c.connect();
      if ((await c.ping()) === 'PONG') return true;
    } catch {
      // not up yet
    } finally {
      c.disconnect();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
