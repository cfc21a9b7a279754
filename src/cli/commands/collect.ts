import type { Command } from 'commander';
import { z } from 'zod';
import {
  type CollectOptions,
  collect,
  DEFAULT_MAX_ROUNDS,
  DEFAULT_STOP_AFTER,
} from '../../collect/collect.ts';
import { computeRunStats, formatRunStats } from '../../collect/stats.ts';
import { InputError, RmswebError } from '../../core/errors.ts';
import { formatLedger, storedLedger } from '../../eval/ledger.ts';
import type { EpisodeQueue } from '../../queue/episode-queue.ts';
import { parseRedisUrl } from '../../queue/job-data.ts';
import { collectViaQueue } from '../../queue/queued-collect.ts';
import { RunStore } from '../../store/run-store.ts';
import { episodesNotRun } from '../episode-errors.ts';
import { recordStage } from '../manifest.ts';
import {
  AllowPrivateOption,
  addAllowPrivateOption,
  addBrowserOptions,
  addEpisodeOptions,
  addProgressOptions,
  addQueueOption,
  addWorldOptions,
  BrowserOptions,
  EpisodeOptions,
  intOption,
  ProgressOptions,
  QueueOptions,
  seedOption,
  WorldOptions,
} from '../options.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { openQueueCoordinator } from '../queue-mode.ts';
import { checkAgentSpec, openWorldRuntime, resolveAgent, resolveReflector } from '../runtime.ts';
import { resolveTasks } from '../tasks-arg.ts';

const Options = z.object({
  tasks: z.string().min(1),
  teacher: z.string().default('heuristic'),
  reflector: z.string().default('rules'),
  judge: z.string().default('programmatic'),
  out: z.string().min(1),
  maxRounds: intOption(1, 20).default(DEFAULT_MAX_ROUNDS),
  stopAfter: intOption(1, 20).default(DEFAULT_STOP_AFTER),
  seed: seedOption.default(0),
  ...EpisodeOptions,
  ...BrowserOptions,
  ...WorldOptions,
  ...QueueOptions,
  ...ProgressOptions,
  ...AllowPrivateOption,
});

/** `rmsweb collect`: teacher collection with reflection into a run folder. */
export function registerCollect(program: Command): void {
  const cmd = program
    .command('collect')
    .description(
      'Teacher collection with reflection: attempt each task in rounds; after a failed round a reflector writes a\n' +
        'note injected into the next round; stop after --stop-after verified successes or --max-rounds rounds.\n' +
        'Every attempt is kept. An episode that could not be run (model endpoint down, browser lost) is not an\n' +
        'attempt: it is never reflected on, the command exits 1 saying how many, and a rerun retries it. So does\n' +
        "a reflection that could not be run. A reflection whose reply failed its schema twice is the model's\n" +
        'outcome, not an error: it is recorded and counted, and the next round runs without a note.\n' +
        'Rerunning the same command resumes.',
    )
    .requiredOption(
      '--tasks <spec>',
      'world:train[:N][:SITES] | world:test[:N][:SITES] | FILE (JSONL or JSON array of Task); SITES: comma-separated, e.g. mail,recipes',
    )
    .requiredOption('--out <dir>', 'run folder, e.g. runs/teacher')
    .option('--teacher <spec>', 'heuristic | openai:MODEL[@URL]', 'heuristic')
    .option('--reflector <spec>', 'rules | openai:MODEL[@URL]', 'rules')
    .option('--judge <spec>', 'programmatic (world tasks)', 'programmatic')
    .option('--max-rounds <n>', `rounds per task at most (default ${DEFAULT_MAX_ROUNDS})`)
    .option(
      '--stop-after <n>',
      `stop a task after this many verified successes (default ${DEFAULT_STOP_AFTER})`,
    )
    .option('--seed <n>', 'seed of task sampling', '0');
  addEpisodeOptions(cmd);
  addBrowserOptions(cmd);
  addAllowPrivateOption(cmd);
  addWorldOptions(cmd);
  addQueueOption(cmd);
  addProgressOptions(cmd).action(async (raw) => {
    const o = parseOptions(Options, raw, 'collect');
    // Everything that can be refused is checked before the run folder exists.
    if (o.judge !== 'programmatic') {
      throw new InputError(
        'collect on world tasks uses the programmatic verifier; LLM judges apply to live suites (rmsweb eval)',
        { field: '--judge' },
      );
    }
    checkAgentSpec(o.teacher, '--teacher');
    const reflector = resolveReflector(o.reflector);
    const tasks = resolveTasks(o.tasks, {
      seed: o.seed,
      worldSeed: o.worldSeed,
      allowPrivate: o.allowPrivate,
    });
    if (o.queue) parseRedisUrl(o.queue, '--queue');
    const rt = o.queue
      ? null
      : await openWorldRuntime({ port: o.port, seed: o.worldSeed, browserWs: o.browserWs });
    let store: RunStore | null = null;
    let queue: EpisodeQueue | null = null;
    const sig = abortOnSigint('collect');
    let bar: ReturnType<typeof createProgress> | null = null;
    const t0 = Date.now();
    try {
      store = RunStore.open(o.out);
      const st = store;
      queue = o.queue ? await openQueueCoordinator(o.queue, store, { quiet: o.quiet }) : null;
      recordStage(store, 'collect', { ...o, tasks: o.tasks, taskCount: tasks.length }, o.seed);
      const already = new Set(store.listTrajectorySummaries({ tag: 'collect' }).map((s) => s.taskId));
      let done = tasks.filter((t) => already.has(t.id)).length;
      const progress = createProgress('collect', tasks.length, {
        force: o.progress,
        quiet: o.quiet,
        initial: done,
      });
      bar = progress;
      // Only this run's tasks count: the folder may hold others (an earlier, larger --tasks).
      const wanted = new Set(tasks.map((t) => t.id));
      let solved = new Set(
        store
          .listTrajectorySummaries({ tag: 'collect', success: true })
          .map((s) => s.taskId)
          .filter((id) => wanted.has(id)),
      ).size;
      progress.update(done, { solved: done ? solved / done : 0 });
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
          if (st.listTrajectorySummaries({ taskId: trajectory.task.id, success: true }).length) solved++;
          progress.update(done, { 'task success': done ? solved / done : 0 });
        },
        onError: ({ task, round, error, stage }) =>
          process.stderr.write(
            `\ncollect: ${task.id} round ${round}${stage === 'episode' ? '' : stage === 'reflection' ? ', reflection' : ', reflection unusable (kept as the outcome; the next round runs without a note)'}: ${error.message}\n`,
          ),
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
      progress.stop();
      const secs = (Date.now() - t0) / 1000;
      if (!o.quiet) {
        const failed = [
          r.errors ? `${r.errors} could not be run` : '',
          r.reflectionErrors ? `${r.reflectionErrors} reflections failed` : '',
        ].filter(Boolean);
        // The model's own failures are outcomes of the run, not errors of it.
        const unusable = r.reflectionsUnusable
          ? `; ${r.reflectionsUnusable} reflection(s) unusable: the model's reply failed its schema twice`
          : '';
        process.stdout.write(
          `\ncollected ${r.episodes} episodes in ${secs.toFixed(1)} s (${failed.length ? failed.join(', ') : '0 errors'}${unusable}) into ${store.dir}\n\n`,
        );
        process.stdout.write(`${formatRunStats(computeRunStats(store))}\n`);
        const ledger = storedLedger(store, { tag: 'collect', errorPrefix: 'collect:' });
        process.stdout.write(`rewards: ${formatLedger(ledger)}\n`);
      }
      if (sig.signal.aborted) process.exitCode = 130;
      else if (r.errors) throw episodesNotRun('collect', r.errors, r.errors + r.episodes);
      else if (r.reflectionErrors)
        throw new RmswebError(
          `collect: ${r.reflectionErrors} reflection(s) failed (errors above); those rounds were kept but the next round ran without their note`,
          { code: 'REFLECTION_FAILED' },
        );
    } finally {
      bar?.stop();
      sig.dispose();
      await rt?.close();
      await queue?.close();
      store?.close();
    }
  });
}
