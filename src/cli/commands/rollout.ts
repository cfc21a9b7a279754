import type { Command } from 'commander';
import { z } from 'zod';
import { type EpisodeJob, runEpisodePool } from '../../collect/episode-pool.ts';
import { solvingNotes } from '../../collect/solving-notes.ts';
import { computeRunStats, formatRunStats } from '../../collect/stats.ts';
import { InputError } from '../../core/errors.ts';
import type { Trajectory } from '../../core/trajectory.ts';
import { runQueuedPool } from '../../queue/queued-pool.ts';
import { RunStore } from '../../store/run-store.ts';
import { recordStage } from '../manifest.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { openQueueCoordinator, QUEUE_OPTION_HELP } from '../queue-mode.ts';
import { openWorldRuntime, resolveAgent } from '../runtime.ts';
import { resolveTasks } from '../tasks-arg.ts';

const Options = z.object({
  agent: z.string().min(1),
  tasks: z.string().min(1),
  out: z.string().min(1),
  runs: z.coerce.number().int().min(1).max(50).default(1),
  workers: z.coerce.number().int().min(1).max(32).default(2),
  maxSteps: z.coerce.number().int().min(1).max(200).default(30),
  seed: z.coerce.number().int().default(0),
  worldSeed: z.coerce.number().int().default(1),
  port: z.coerce.number().int().min(0).max(65535).optional(),
  browserWs: z.string().optional(),
  queue: z.string().optional(),
  relabel: z.string().optional(),
  notesFrom: z.string().optional(),
  progress: z.boolean().default(false),
  quiet: z.boolean().default(false),
});

/** `rmsweb rollout`: record an agent's episodes (the student's failures feed the miner). */
export function registerRollout(program: Command): void {
  program
    .command('rollout')
    .description(
      'Record rollouts of an agent on tasks into a run folder (failures feed `rmsweb mine`). Resumable.',
    )
    .requiredOption('--agent <spec>', 'policy:DIR | hf:DIR | heuristic | random | openai:MODEL[@URL]')
    .requiredOption('--tasks <spec>', 'world:train[:N][:SITES] | world:test[:N][:SITES] | FILE')
    .requiredOption('--out <dir>', 'run folder')
    .option('--runs <k>', 'episodes per task', '1')
    .option('--workers <k>', 'parallel browser contexts', '2')
    .option('--max-steps <n>', 'step budget per episode', '30')
    .option('--seed <n>', 'seed of task sampling and of the agent', '0')
    .option('--world-seed <n>', 'seed of the offline world', '1')
    .option('--port <n>', 'world port')
    .option('--browser-ws <url>', 'connect to a remote browser instead of launching Chromium')
    .option('--queue <redis-url>', QUEUE_OPTION_HELP)
    .option(
      '--relabel <spec>',
      "DAgger relabelling: also ask this expert agent (e.g. heuristic) at every step and record its action as the label `train sft --relabeled` learns from; the agent's own action is what runs",
    )
    .option(
      '--notes-from <dir>',
      'with --relabel: a collection run; the expert reads the notes of the attempt that solved each task there, and tasks it never solved are skipped',
    )
    .option('--progress', 'force the progress bar even without a terminal')
    .option('--quiet', 'no progress output')
    .action(async (raw) => {
      const o = parseOptions(Options, raw, 'rollout');
      if (o.notesFrom && !o.relabel)
        throw new InputError('--notes-from needs --relabel', { field: '--notes-from' });
      if (o.relabel && o.queue)
        throw new InputError('--relabel runs in this process; drop --queue', { field: '--relabel' });
      let tasks = resolveTasks(o.tasks, { seed: o.seed, worldSeed: o.worldSeed });
      const expertNotes = o.notesFrom ? solvingNotes(o.notesFrom) : null;
      if (expertNotes) {
        const before = tasks.length;
        tasks = tasks.filter((t) => expertNotes.has(t.id));
        if (!o.quiet && tasks.length < before)
          process.stdout.write(
            `relabel: ${before - tasks.length} of ${before} tasks skipped (never solved in ${o.notesFrom})\n`,
          );
      }
      const store = RunStore.open(o.out);
      recordStage(store, `rollout:${o.agent}`, { ...o, taskCount: tasks.length }, o.seed);
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
        : await openWorldRuntime({ port: o.port, seed: o.worldSeed, browserWs: o.browserWs });
      const queue = o.queue ? await openQueueCoordinator(o.queue, store, { quiet: o.quiet }) : null;
      const sig = abortOnSigint('rollout');
      let done = jobs.filter((j) => store.hasEpisode(j.key)).length;
      const resumed = done;
      const bar = createProgress('rollout', jobs.length, {
        force: o.progress,
        quiet: o.quiet,
        initial: done,
      });
      let ok = 0;
      try {
        const onEpisode = ({ trajectory }: { trajectory: Trajectory }) => {
          done++;
          if (trajectory.verdict?.success) ok++;
          // The rate of this process's episodes (a resumed run's earlier ones are in the summary).
          bar.update(done, { success: ok / Math.max(1, done - resumed) });
        };
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
              onError: ({ job, error }) =>
                process.stderr.write(`\nrollout: ${job.task.id}: ${error.message} (rerun to retry)\n`),
            });
        bar.stop();
        if (!o.quiet) {
          process.stdout.write(
            `\nrollout: ${r.ran} episodes run, ${r.skipped} already recorded, ${r.errors} errors\n`,
          );
          process.stdout.write(`${formatRunStats(computeRunStats(store, 'rollout'))}\n`);
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
