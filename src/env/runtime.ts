import { type BrowserEnv, BrowserHost } from '../browser/index.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';
import { worldVerifier } from '../judge/world-verifier.ts';
import { DEFAULT_WORLD_SEED, generateWorldTasks, WorldServer } from '../world/index.ts';
import type { CriticalStore } from './critical.ts';

/**
 * What every session of one server shares: one Chromium (relaunched when it dies), one in-process
 * world per world seed asked for, their task lists, and the mined states of `--critical`.
 */

/** One world: its server, its tasks and its verifier. */
export interface WorldHandle {
  seed: number;
  origin: string;
  tasks: Task[];
  byId: Map<string, Task>;
  verify: (t: Trajectory) => Promise<Verdict>;
}

export interface EnvRuntimeOptions {
  /** The world seed of resets that name none (default DEFAULT_WORLD_SEED). */
  worldSeed?: number;
  critical?: CriticalStore | null;
  /** Launches the browser (tests count launches; default the local Chromium). */
  launch?: () => Promise<BrowserHost>;
}

export class EnvRuntime {
  readonly worldSeed: number;
  readonly critical: CriticalStore | null;
  private host: BrowserHost | null = null;
  private launching: Promise<BrowserHost> | null = null;
  private readonly worlds = new Map<number, Promise<{ server: WorldServer; handle: WorldHandle }>>();
  private readonly launch: () => Promise<BrowserHost>;
  /** Browser launches so far (the first, then one per crash). */
  launches = 0;

  constructor(o: EnvRuntimeOptions = {}) {
    this.worldSeed = o.worldSeed ?? DEFAULT_WORLD_SEED;
    this.critical = o.critical ?? null;
    this.launch = o.launch ?? (() => BrowserHost.launch());
  }

  /** The browser, launched on first use and again after it died (one launch however many ask). */
  async browser(): Promise<BrowserHost> {
    if (this.host?.isConnected) return this.host;
    this.launching ??= (async () => {
      await this.host?.close().catch(() => {});
      this.host = null;
      const h = await this.launch();
      this.launches++;
      this.host = h;
      return h;
    })().finally(() => {
      this.launching = null;
    });
    return this.launching;
  }

  /** Whether the browser is up (a session's env from a dead browser must be replaced). */
  get browserUp(): boolean {
    return this.host?.isConnected ?? false;
  }

  /** The running browser, if any (tests kill it to check recovery). */
  get currentHost(): BrowserHost | null {
    return this.host;
  }

  /** A browser env for one session: its own context, screenshots off (taken on request only). */
  async newEnv(world: WorldHandle): Promise<BrowserEnv> {
    const host = await this.browser();
    return host.newEnv({ allowlist: [world.origin], screenshot: { enabled: false } });
  }

  /** The world of `seed`, started in this process on a free port on first use. */
  world(seed = this.worldSeed): Promise<WorldHandle> {
    let w = this.worlds.get(seed);
    if (!w) {
      w = (async () => {
        const server = await WorldServer.start({ port: 0, seed });
        const tasks = generateWorldTasks({ seed, world: server.world });
        return {
          server,
          handle: {
            seed,
            origin: server.url,
            tasks,
            byId: new Map(tasks.map((t) => [t.id, t])),
            verify: worldVerifier(server.url),
          },
        };
      })();
      // A world that failed to start is tried again by the next reset that asks for it.
      w.catch(() => this.worlds.delete(seed));
      this.worlds.set(seed, w);
    }
    return w.then((x) => x.handle);
  }

  async close(): Promise<void> {
    await this.host?.close().catch(() => {});
    this.host = null;
    for (const w of this.worlds.values()) await w.then((x) => x.server.stop()).catch(() => {});
    this.worlds.clear();
  }
}
