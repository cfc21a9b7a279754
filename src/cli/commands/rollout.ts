import type { Command } from 'commander';
import { z } from 'zod';
import { type EpisodeJob, runEpisodePool } from '../../collect/episode-pool.ts';
import { solvingNotes } from '../../collect/solving-notes.ts';
import { computeRunStats, formatRunStats } from '../../collect/stats.ts';
import { InputError } from '../../core/errors.ts';
import type { Trajectory } from '../../core/trajectory.ts';
import type { EpisodeQueue } from '../../queue/episode-queue.ts';
import { parseRedisUrl } from '../../queue/job-data.ts';
import { runQueuedPool } from '../../queue/queued-pool.ts';
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
import { checkAgentSpec, openWorldRuntime, resolveAgent, screenshotsFor } from '../runtime.ts';
import { resolveTasks } from '../tasks-arg.ts';

const Options = z.object({
  agent: z.string().min(1),
  tasks: z.string().min(1),
  out: z.string().min(1),
  runs: intOption(1, 50).default(1),
  seed: seedOption.default(0),
  relabel: z.string().optional(),
  notesFrom: z.string().optional(),
  ...EpisodeOptions,
  ...BrowserOptions,
  ...WorldOptions,
  ...QueueOptions,
  ...ProgressOptions,
  ...AllowPrivateOption,
  screenshots: z.boolean().optional(),
});

/** `rmsweb rollout`: record an agent's episodes (the student's failures feed the miner). */
export function registerRollout(program: Command): void {
  const cmd = program
    .command('rollout')
    .description(
      'Record rollouts of an agent on tasks into a run folder (failures feed `rmsweb mine`). Episodes that could not\n' +
        'be run (model endpoint down, browser lost) are not recorded; the command exits 1 and a rerun retries them. Resumable.',
    )
    .requiredOption(
      '--agent <spec>',
      'policy:DIR | hf:DIR | heuristic | random | openai:MODEL[@URL] | lm:openai:MODEL[@URL] | lm:hf:DIR',
    )
    .requiredOption('--tasks <spec>', 'world:train[:N][:SITES] | world:test[:N][:SITES] | FILE')
    .requiredOption('--out <dir>', 'run folder')
    .option('--runs <k>', 'episodes per task', '1')
    .option('--seed <n>', 'seed of task sampling and of the agent', '0');
  addEpisodeOptions(cmd);
  addBrowserOptions(cmd);
  addAllowPrivateOption(cmd);
  addWorldOptions(cmd);
  addQueueOption(cmd)
    .option(
      '--relabel <spec>',
      "DAgger relabelling: also ask this expert agent (e.g. heuristic) at every step and record its action as the label `train sft --relabeled` learns from; the agent's own action is what runs",
    )
    .option(
      '--notes-from <dir>',
      'with --relabel: a collection run; the expert reads the notes of the attempt that solved each task there, and tasks it never solved are skipped',
    )
    .option(
      '--screenshots',
      'take a JPEG screenshot with every observation (default: on, except for policy: students, which do not read them)',
    )
    .option('--no-screenshots', 'observe without screenshots');
  addProgressOptions(cmd).action(async (raw) => {
    const o = parseOptions(Options, raw, 'rollout');
    // Everything that can be refused is checked before the run folder exists.
    if (o.notesFrom && !o.relabel)
      throw new InputError('--notes-from needs --relabel', { field: '--notes-from' });
    if (o.relabel && o.queue)
      throw new InputError('--relabel runs in this process; drop --queue', { field: '--relabel' });
    checkAgentSpec(o.agent);
    if (o.relabel) checkAgentSpec(o.relabel, '--relabel');
    if (o.queue) parseRedisUrl(o.queue, '--queue');
    let tasks = resolveTasks(o.tasks, { seed: o.seed, worldSeed: o.worldSeed, allowPrivate: o.allowPrivate });
    const expertNotes = o.notesFrom ? solvingNotes(o.notesFrom) : null;
    if (expertNotes) {
      const before = tasks.length;
      tasks = tasks.filter((t) => expertNotes.has(t.id));
      if (!tasks.length)
        throw new InputError(`none of the ${before} tasks was ever solved in ${o.notesFrom}`, {
          field: '--notes-from',
        });
      if (!o.quiet && tasks.length < before)
        process.stdout.write(
          `relabel: ${before - tasks.length} of ${before} tasks skipped (never solved in ${o.notesFrom})\n`,
        );
    }
    const jobs: EpisodeJob[] = [];
    for (let r = 0; r < o.runs; r++) {
      for (const task of tasks)
        jobs.push({
          task,
          key: `rollout:${o.agent}${o.relabel ? `+relabel:${o.relabel}` : ''}:${task.id}#${r}`,
          round: r,
          tags: ['rollout', 'student', `agent:${o.agent}`, ...(o.relabel ? [`relabel:${o.relabel}`] : [])],
          seed: o.seed + r,
          ...(expertNotes ? { expertNotes: expertNotes.get(task.id) } : {}),
        });
    }
    const rt = o.queue
      ? null
      : await openWorldRuntime({
          port: o.port,
          seed: o.worldSeed,
          browserWs: o.browserWs,
          screenshots: screenshotsFor(o.agent, { override: o.screenshots }),
        });
    let store: RunStore | null = null;
    let queue: EpisodeQueue | null = null;
    let bar: ReturnType<typeof createProgress> | null = null;
    const sig = abortOnSigint('rollout');
    try {
      store = RunStore.open(o.out);
      queue = o.queue ? await openQueueCoordinator(o.queue, store, { quiet: o.quiet }) : null;
      recordStage(store, `rollout:${o.agent}`, { ...o, taskCount: tasks.length }, o.seed);
      const st = store;
      let done = jobs.filter((j) => st.hasEpisode(j.key)).length;
      const resumed = done;
      const progress = createProgress('rollout', jobs.length, {
        force: o.progress,
        quiet: o.quiet,
        initial: done,
      });
      bar = progress;
      let ok = 0;
      const onEpisode = ({ trajectory }: { trajectory: Trajectory }) => {
        done++;
        if (trajectory.verdict?.success) ok++;
        // The rate of this process's episodes (a resumed run's earlier ones are in the summary).
        progress.update(done, { success: ok / Math.max(1, done - resumed) });
      };
      const onError = ({ job, error }: { job: EpisodeJob; error: Error }) =>
        process.stderr.write(`\nrollout: ${job.task.id}: ${error.message} (not recorded; rerun to retry)\n`);
      const r = queue
        ? await runQueuedPool({
            queue,
            jobs,
            agent: o.agent,
            agentSeed: o.seed,
            runtime: { kind: 'world', worldSeed: o.worldSeed },
            maxSteps: o.maxSteps,
            signal: sig.signal,
            onEpisode,
            onError,
          })
        : await runEpisodePool({
            jobs,
            store,
            makeAgent: () => resolveAgent(o.agent, { seed: o.seed }),
            ...(o.relabel ? { makeExpert: () => resolveAgent(o.relabel!, { seed: o.seed }) } : {}),
            makeEnv: rt!.makeEnv,
            start: rt!.start,
            verify: rt!.verify,
            workers: o.workers,
            maxSteps: o.maxSteps,
            signal: sig.signal,
            onEpisode,
            onError,
          });
      progress.stop();
      if (!o.quiet) {
        process.stdout.write(
          `\nrollout: ${r.ran} episodes run, ${r.skipped} already recorded, ${r.errors} could not be run\n`,
        );
        process.stdout.write(`${formatRunStats(computeRunStats(store, 'rollout'))}\n`);
      }
      if (sig.signal.aborted) process.exitCode = 130;
      else if (r.errors) throw episodesNotRun('rollout', r.errors, r.ran + r.errors);
    } finally {
      bar?.stop();
      sig.dispose();
      await rt?.close();
      await queue?.close();
      store?.close();
    }
  });
}
