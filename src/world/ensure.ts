import { WorldServer } from './server.ts';
import { DEFAULT_WORLD_PORT, DEFAULT_WORLD_SEED } from './split.ts';

/** A world to talk to: one that was already running, or one started in this process. */
export interface EnsuredWorld {
  /** Origin of the world, e.g. `http://127.0.0.1:7311`. */
  origin: string;
  /** The in-process server when this call started one; null when a running world was reused. */
  server: WorldServer | null;
  /** Stops the in-process server (a no-op for a reused world). */
  stop(): Promise<void>;
}

/** Whether a world with this seed answers /__world/health on the port. */
export async function probeWorld(port: number, seed: number, timeoutMs = 1_500): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/__world/health`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return false;
    const body = (await res.json()) as { ok?: unknown; seed?: unknown };
    return body.ok === true && body.seed === seed;
  } catch {
    return false;
  }
}

/**
 * Uses the world on `port` when one with the same seed is running there; otherwise starts one in
 * this process, on that port, or on a free port when the port is taken (by another program or a
 * world with another seed). Commands that need the world call this, so none needs `world serve`.
 */
export async function ensureWorld(opts: { port?: number; seed?: number } = {}): Promise<EnsuredWorld> {
  const port = opts.port ?? DEFAULT_WORLD_PORT;
  const seed = opts.seed ?? DEFAULT_WORLD_SEED;
  if (await probeWorld(port, seed)) {
    return { origin: `http://127.0.0.1:${port}`, server: null, stop: async () => {} };
  }
  let server: WorldServer;
  try {
    server = await WorldServer.start({ port, seed });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' && (e as NodeJS.ErrnoException).code !== 'EACCES')
      throw e;
    server = await WorldServer.start({ port: 0, seed });
  }
  return { origin: server.url, server, stop: () => server.stop() };
}
