import type { Agent } from '../../agent/agent.ts';
import { HeuristicAgent } from '../../agent/heuristic/heuristic-agent.ts';
import { RandomAgent } from '../../agent/random-agent.ts';
import { BrowserHost } from '../../browser/launch.ts';
import { worldVerifier } from '../../judge/world-verifier.ts';
import { startWorldEpisode } from '../../world/episode.ts';
import { WorldServer } from '../../world/server.ts';
import type { RuntimeSpec } from '../job-data.ts';
import type { EpisodeRuntime } from '../queue-worker.ts';

/**
 * A world runtime for tests and benchmarks that does not go through the CLI: its own world server
 * on a free port and a local (or remote, `browserWs`) Chromium. Also exposes the host and server,
 * so fault tests can break them.
 */
export async function openLocalWorldRuntime(
  spec: RuntimeSpec,
  o: { browserWs?: string; screenshotQuality?: number; screenshots?: boolean } = {},
): Promise<EpisodeRuntime & { host: BrowserHost; server: WorldServer }> {
  if (spec.kind !== 'world') throw new Error(`local test runtime serves the world only, not ${spec.kind}`);
  const server = await WorldServer.start({ port: 0, seed: spec.worldSeed });
  let host: BrowserHost;
  try {
    host = await BrowserHost.open(o.browserWs);
  } catch (e) {
    await server.stop();
    throw e;
  }
  const verify = worldVerifier(server.url);
  return {
    host,
    server,
    makeEnv: () =>
      host.newEnv({
        allowlist: [server.url],
        screenshot: { enabled: o.screenshots ?? true, quality: o.screenshotQuality ?? 50 },
      }),
    start: async (env, task, ctx) => {
      const r = await startWorldEpisode(env, task, server.url, undefined, { perturb: ctx?.perturb });
      return { observation: r.observation, sessionId: r.sessionId, perturb: r.perturb };
    },
    verify,
    healthy: () => host.isConnected,
    close: async () => {
      await host.close().catch(() => {});
      await server.stop();
    },
  };
}

/** The offline agents by spec (the CLI resolves the rest). */
export function makeOfflineAgent(spec: string, o: { seed?: number }): Agent {
  if (spec === 'heuristic') return new HeuristicAgent();
  if (spec === 'random') return new RandomAgent(o.seed ?? 0);
  throw new Error(`test workers run offline agents only, not ${spec}`);
}
