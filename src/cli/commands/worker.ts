import type { Command } from 'commander';
import { z } from 'zod';
import type { RuntimeSpec } from '../../queue/job-data.ts';
import { type EpisodeRuntime, startQueueWorker, type WorkerEvent } from '../../queue/queue-worker.ts';
import { intOption, positiveNumberOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { openWebRuntime, openWorldRuntime, resolveAgent, resolveLiveJudge } from '../runtime.ts';

const Options = z.object({
  redis: z.string().min(1),
  concurrency: intOption(1, 64).default(2),
  browserWs: z.string().optional(),
  port: intOption(0, 65535).optional(),
  queueName: z.string().min(1).optional(),
  screenshotQuality: intOption(1, 100).default(50),
  screenshotMaxWidth: intOption(100).optional(),
  maxResultMb: positiveNumberOption(256).default(8),
  lockMs: intOption(1000, 3_600_000).default(30_000),
  quiet: z.boolean().default(false),
});
type Options = z.output<typeof Options>;

/** Builds the browser + world (or live web) runtime a job asks for, from this worker's flags. */
async function openRuntime(o: Options, spec: RuntimeSpec): Promise<EpisodeRuntime> {
  const screenshot = {
    enabled: true,
    quality: o.screenshotQuality,
    ...(o.screenshotMaxWidth ? { maxWidth: o.screenshotMaxWidth } : {}),
  };
  if (spec.kind === 'world') {
    const rt = await openWorldRuntime({ port: o.port, seed: spec.worldSeed, browserWs: o.browserWs });
    return {
      makeEnv: () => rt.host.newEnv({ allowlist: [rt.origin], screenshot }),
      start: rt.start,
      verify: rt.verify,
      healthy: () => rt.host.isConnected,
      close: rt.close,
    };
  }
  const rt = await openWebRuntime({ browserWs: o.browserWs, allowlist: spec.allowlist });
  return {
    makeEnv: () => rt.host.newEnv({ ...(spec.allowlist ? { allowlist: spec.allowlist } : {}), screenshot }),
    verify: resolveLiveJudge(spec.suite, spec.judge),
    healthy: () => rt.host.isConnected,
    close: rt.close,
  };
}

function describe(e: WorkerEvent): string | null {
  switch (e.type) {
    case 'done':
      return `done  ${e.key}: ${e.steps} steps, ${e.success === null ? 'unverified' : e.success ? 'success' : 'failure'} (${e.endReason}) in ${(e.ms / 1000).toFixed(1)} s${e.droppedImages ? `, ${e.droppedImages} screenshots left out` : ''}`;
    case 'error':
      return `retry ${e.key}: attempt ${e.attempt} failed: ${e.error.message.split('\n')[0]}`;
    case 'runtime':
      return `${e.action === 'open' ? 'opened' : 'reopened (browser gone)'} runtime ${e.runtime}`;
    case 'warning':
      return e.message;
    default:
      return null;
  }
}

/** `rmsweb worker`: runs collection and evaluation episodes from a Redis job queue. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'Run a queue worker: take episode jobs from Redis (enqueued by collect, rollout or eval with --queue, and the verification branches of mine --verify --queue), run ' +
        'each in its own browser context on this machine (its own copy of the offline world, or the live web) and ' +
        'send the trajectory back in the job result. Start any number of workers on any number of machines; a ' +
        'worker that dies loses its jobs to the others after --lock-ms. Ctrl-C finishes running episodes and exits.',
    )
    .requiredOption('--redis <url>', 'redis://host:port[/db] (the same URL the coordinator got with --queue)')
    .option('--concurrency <k>', 'episodes at once (browser contexts)', '2')
    .option(
      '--browser-ws <url>',
      'connect to a remote browser (Playwright launchServer / run-server) instead of launching Chromium',
    )
    .option('--port <n>', 'world port (a running world is reused; else one starts in-process)')
    .option('--queue-name <name>', 'BullMQ queue name (default rmsweb-episodes)')
    .option('--screenshot-quality <q>', 'JPEG quality of screenshots sent back', '50')
    .option('--screenshot-max-width <px>', 'downscale screenshots wider than this')
    .option('--max-result-mb <mb>', 'bound on one result; the oldest screenshots are left out beyond it', '8')
    .option('--lock-ms <ms>', 'job lock; a dead worker’s jobs return to the queue after this long', '30000')
    .option('--quiet', 'no per-episode output')
    .action(async (raw) => {
      const o = parseOptions(Options, raw, 'worker');
      const w = await startQueueWorker({
        url: o.redis,
        queueName: o.queueName,
        concurrency: o.concurrency,
        lockMs: o.lockMs,
        maxResultBytes: Math.round(o.maxResultMb * 1024 * 1024),
        openRuntime: (spec) => openRuntime(o, spec),
        makeAgent: (spec, { seed }) => resolveAgent(spec, { seed }),
        onEvent: (e) => {
          const line = o.quiet && e.type !== 'warning' ? null : describe(e);
          if (line) process.stderr.write(`worker: ${line}\n`);
        },
      });
      process.stderr.write(
        `worker ${w.id}: waiting for episodes on ${o.redis} (concurrency ${o.concurrency})\n`,
      );
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = () => {
          if (stopping) process.exit(130);
          stopping = true;
          process.stderr.write(
            'worker: stopping after the running episodes (Ctrl-C again to quit at once)\n',
          );
          void w.close().then(resolve, resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      const s = w.stats();
      process.stderr.write(`worker ${w.id}: ${s.done} episodes returned, ${s.failed} failed attempts\n`);
    });
}
