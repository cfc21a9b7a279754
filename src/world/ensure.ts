import { WorldServer } from './server.ts';
import { DEFAULT_WORLD_PORT, DEFAULT_WORLD_SEED } from './split.ts';

/** A world the caller can use: its origin, and how to stop it if this process started it. */
export interface EnsuredWorld {
  origin: string;
  /** The in-process server, or null when an already-running world was reused. */
  server: WorldServer | null;
  stop(): Promise<void>;
}

async function healthSeed(origin: string): Promise<number | null> {
  try {
    const res = await fetch(`${origin}/__world/health`, { signal: AbortSignal.timeout(1500) });
    if (!res.ok) return null;
    const body = (await res.json()) as { ok?: boolean; seed?: number };
    return body.ok ? (body.seed ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * Uses the world already serving on `port` when it runs the same seed (`rmsweb world serve`);
 * otherwise starts one in this process, on that port or, when the port is taken by something
 * else, on a free one. Port 0 always starts a private world on a free port.
 */
export async function ensureWorld(opts: { port?: number; seed?: number } = {}): Promise<EnsuredWorld> {
  const seed = opts.seed ?? DEFAULT_WORLD_SEED;
  const port = opts.port ?? DEFAULT_WORLD_PORT;
  if (port !== 0) {
    const origin = `http://127.0.0.1:${port}`;
    const running = await healthSeed(origin);
    if (running === seed) return { origin, server: null, stop: async () => {} };
  }
  let server: WorldServer;
  try {
    server = await WorldServer.start({ port, seed });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    server = await WorldServer.start({ port: 0, seed });
  }
  return { origin: server.url, server, stop: () => server.stop() };
}
