import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import {
  type CriticalStore,
  DEFAULT_ENV_MAX_STEPS,
  EnvRuntime,
  EnvServer,
  loadCriticalStore,
  siblingRuns,
} from '../../env/index.ts';
import { DEFAULT_WORLD_SEED } from '../../world/split.ts';
import { fileOption, intOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';

const ServeOptions = z.object({
  port: intOption(0, 65535).default(8000),
  host: z.string().min(1).default('127.0.0.1'),
  sessions: intOption(1, 64).default(4),
  critical: fileOption('give the mined critical.jsonl').optional(),
  run: z.array(z.string().min(1)).optional(),
  worldSeed: intOption(0).default(DEFAULT_WORLD_SEED),
  maxSteps: intOption(1, 500).default(DEFAULT_ENV_MAX_STEPS),
  idleTimeout: intOption(1).default(300),
});

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** `rmsweb env serve`: the offline world as an OpenEnv environment server. */
export function registerEnv(program: Command): void {
  const env = program
    .command('env')
    .description('The offline world as an environment for RL engines (OpenEnv)');
  env
    .command('serve')
    .description(
      'Serve the world over the OpenEnv protocol (WebSocket /ws; HTTP /reset /step /state /health /schema)',
    )
    .option('--port <n>', 'port (0: a free one, printed at start)', '8000')
    .option('--host <addr>', 'interface to bind', '127.0.0.1')
    .option('--sessions <n>', 'most concurrent sessions, one browser context each', '4')
    .option(
      '--critical <file>',
      'a mined critical.jsonl: resets may then start at its states (critical_state_id)',
    )
    .option(
      '--run <dir...>',
      "run folders holding the states' success runs (default: the folders beside the critical file's)",
    )
    .option('--world-seed <n>', `world seed of resets that name none (default ${DEFAULT_WORLD_SEED})`)
    .option(
      '--max-steps <n>',
      `step budget of an episode whose reset names none (default ${DEFAULT_ENV_MAX_STEPS})`,
    )
    .option('--idle-timeout <s>', 'close a session after this many seconds without a message', '300')
    .action(async (raw) => {
      const o = parseOptions(ServeOptions, raw, 'env serve');
      let critical: CriticalStore | null = null;
      if (o.critical) {
        if (!existsSync(o.critical))
          throw new InputError(`${o.critical} does not exist`, { file: o.critical, field: '--critical' });
        const runs = o.run ?? siblingRuns(o.critical);
        if (!runs.length)
          throw new InputError(
            `no run folders beside ${o.critical}: name the runs it was mined from with --run`,
            {
              field: '--run',
            },
          );
        critical = loadCriticalStore(o.critical, runs);
      }
      if (!LOOPBACK.has(o.host))
        process.stderr.write(
          `rmsweb env: binding ${o.host}: the protocol is reachable from the network (the world and browser stay on 127.0.0.1)\n`,
        );
      const runtime = new EnvRuntime({ worldSeed: o.worldSeed, critical });
      let server: EnvServer;
      try {
        server = await EnvServer.start({
          runtime,
          host: o.host,
          port: o.port,
          sessions: o.sessions,
          maxSteps: o.maxSteps,
          idleTimeoutMs: o.idleTimeout * 1000,
        });
      } catch (e) {
        await runtime.close();
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new InputError(`port ${o.port} is in use (pick another with --port, or 0 for a free one)`, {
            field: '--port',
          });
        throw e;
      }
      // Start the default world now, so the first reset does not pay for it.
      await runtime.world();
      const lines = [
        `rmsweb env: serving OpenEnv at ${server.url} (WebSocket ${server.url.replace(/^http/, 'ws')}/ws), ${o.sessions} sessions, world seed ${o.worldSeed}`,
      ];
      if (critical)
        lines.push(
          `  ${critical.states.size} critical states from ${o.critical}` +
            (critical.skipped.length ? ` (${critical.skipped.length} cannot be replayed here)` : ''),
        );
      process.stdout.write(`${lines.join('\n')}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await server.stop();
      process.stderr.write('rmsweb env: stopped\n');
    });
}
