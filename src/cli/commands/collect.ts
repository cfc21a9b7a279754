import type { Command } from 'commander';
import { z } from 'zod';
import { type CollectOptions, collect } from '../../collect/collect.ts';
import { computeRunStats, formatRunStats } from '../../collect/stats.ts';
import { InputError } from '../../core/errors.ts';
import { collectViaQueue } from '../../queue/queued-collect.ts';
import { RunStore } from '../../store/run-store.ts';
import { recordStage } from '../manifest.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { openQueueCoordinator, QUEUE_OPTION_HELP } from '../queue-mode.ts';
import { openWorldRuntime, resolveAgent, resolveReflector } from '../runtime.ts';
import { resolveTasks } from '../tasks-arg.ts';

const Options = z.object({
  tasks: z.string().min(1),
  teacher: z.string().default('heuristic'),
  reflector: z.string().default('rules'),
  judge: z.string().default('programmatic'),
  out: z.string().min(1),
  workers: z.coerce.number().int().min(1).max(32).default(2),
  maxRounds: z.coerce.number().int().min(1).max(20).default(5),
  stopAfter: z.coerce.number().int().min(1).max(20).default(2),
  maxSteps: z.coerce.number().int().min(1).max(200).default(30),
  seed: z.coerce.number().int().default(0),
  worldSeed: z.coerce.number().int().default(1),
  port: z.coerce.number().int().min(0).max(65535).optional(),
  browserWs: z.string().optional(),
  queue: z.string().optional(),
  progress: z.boolean().default(false),
  quiet: z.boolean().default(false),
});

/** `rmsweb collect`: teacher collection with reflection into a run folder. */
export function registerCollect(program: Command): void {
  program
    .command('collect')
    .description(
      'Teacher collection with reflection: attempt each task in rounds; after a failed round a reflector writes a\n' +
        'note injected into the next round; stop after --stop-after verified successes or --max-rounds rounds.\n' +
        'Every attempt is kept. Rerunning the same command resumes.',
    )
    .requiredOption(
      '--tasks <spec>',
      'world:train[:N][:SITES] | world:test[:N][:SITES] | FILE (JSONL or JSON array of Task); SITES: comma-separated, e.g. mail,recipes',
    )
    .requiredOption('--out <dir>', 'run folder, e.g. runs/teacher')
    .option('--teacher <spec>', 'heuristic | openai:MODEL[@URL]', 'heuristic')
    .option('--reflector <spec>', 'rules | openai:MODEL[@URL]', 'rules')
    .option('--judge <spec>', 'programmatic (world tasks)', 'programmatic')
    .option('--workers <k>', 'parallel browser contexts', '2')
    .option('--max-rounds <n>', 'rounds per task at most', '5')
    .option('--stop-after <n>', 'stop a task after this many verified successes', '2')
    .option('--max-steps <n>', 'step budget per episode', '30')
    .option('--seed <n>', 'seed of task sampling', '0')
    .option('--world-seed <n>', 'seed of the offline world', '1')
    .option('--port <n>', 'world port (a running world is reused; else one starts in-process)')
    .option('--browser-ws <url>', 'connect to a remote browser instead of launching Chromium')
    .option('--queue <redis-url>', QUEUE_OPTION_HELP)
    .option('--progress', 'force the progress bar even without a terminal')
    .option('--quiet', 'no progress output')
    .action(async (raw) => {
      const o = parseOptions(Options, raw, 'collect');
      if (o.judge !== 'programmatic') {
        throw new InputError(
          'collect on world tasks uses the programmatic verifier; LLM judges apply to live suites (rmsweb eval)',
          { field: '--judge' },
        );
      }
      const tasks = resolveTasks(o.tasks, { seed: o.seed, worldSeed: o.worldSeed });
      const store = RunStore.open(o.out);
      recordStage(store, 'collect', { ...o, tasks: o.tasks, taskCount: tasks.length }, o.seed);
      const rt = o.queue
        ? null
        : await openWorldRuntime({ port: o.port, seed: o.worldSeed, browserWs: o.browserWs });
      const queue = o.queue ? await openQueueCoordinator(o.queue, store, { quiet: o.quiet }) : null;
      const reflector = resolveReflector(o.reflector);
      const sig = abortOnSigint('collect');
      const already = new Set(store.listTrajectorySummaries({ tag: 'collect' }).map((s) => s.taskId));
      let done = tasks.filter((t) => already.has(t.id)).length;
      const bar = createProgress('collect', tasks.length, {
        force: o.progress,
        quiet: o.quiet,
        initial: done,
      });
      // Only this run's tasks count: the folder may hold others (an earlier, larger --tasks).
      const wanted = new Set(tasks.map((t) => t.id));
      let solved = new Set(
        store
          .listTrajectorySummaries({ tag: 'collect', success: true })
          .map((s) => s.taskId)
          .filter((id) => wanted.has(id)),
      ).size;
      bar.update(done, { solved: done ? solved / done : 0 });
      const t0 = Date.now();
      try {
        const common: Omit<CollectOptions, 'makeAgent' | 'makeEnv' | 'verify'> = {
          tasks,
          store,
          reflector,
          maxRounds: o.maxRounds,
          stopAfter: o.stopAfter,
          maxSteps: o.maxSteps,
          seed: o.seed,
          signal: sig.signal,
          onEpisode: ({ trajectory, taskDone }) => {
            if (!taskDone) return;
            done++;
            if (store.listTrajectorySummaries({ taskId: trajectory.task.id, success: true }).length) solved++;
            bar.update(done, { 'task success': done ? solved / done : 0 });
          },
          onError: ({ task, round, error }) =>
            process.stderr.write(`\ncollect: ${task.id} round ${round}: ${error.message}\n`),
        };
        const r = queue
          ? await collectViaQueue({
              ...common,
              queue,
              agent: o.teacher,
              agentSeed: o.seed,
              runtime: { kind: 'world', worldSeed: o.worldSeed },
            })
          : await collect({
              ...common,
              makeAgent: () => resolveAgent(o.teacher, { seed: o.seed }),
              makeEnv: rt!.makeEnv,
              start: rt!.start,
              verify: rt!.verify,
              workers: o.workers,
            });
        bar.stop();
        const secs = (Date.now() - t0) / 1000;
        if (!o.quiet) {
          process.stdout.write(
            `\ncollected ${r.episodes} episodes in ${secs.toFixed(1)} s (${r.errors} errors) into ${store.dir}\n\n`,
          );
          process.stdout.write(`${formatRunStats(computeRunStats(store))}\n`);
        }
        if (sig.signal.aborted) process.exitCode = 130;
      } finally {
        bar.stop();
        sig.dispose();
        await rt?.close();
        await queue?.close();
        store.close();
      }
    });
}
