import type { Agent } from '../agent/agent.ts';
import { type EpisodeEnv, type RunEpisodeOptions, runEpisode } from '../agent/episode.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';
import type { RunStore } from '../store/run-store.ts';

/** One episode to run: a task, the key that makes it idempotent, and what to record with it. */
export interface EpisodeJob {
  task: Task;
  /** Unique per episode, e.g. `eval:<task>#run2`; a job whose key is in the store is skipped. */
  key: string;
  round?: number;
  notes?: string[];
  /** Notes the relabelling expert reads (see `makeExpert`). */
  expertNotes?: string[];
  tags: string[];
  seed?: number;
  /** World perturbation seed of this episode (0 or absent: today's pages). */
  perturb?: number;
}

export interface EpisodePoolOptions {
  jobs: EpisodeJob[];
  store: RunStore;
  makeAgent: () => Agent | Promise<Agent>;
  /** When given, every step also records this expert's action (DAgger relabelling; episode.ts). */
  makeExpert?: () => Agent | Promise<Agent>;
  makeEnv: () => Promise<EpisodeEnv & { close(): Promise<void> }>;
  start?: RunEpisodeOptions['start'];
  verify?: (trajectory: Trajectory) => Promise<Verdict>;
  isTerminal?: RunEpisodeOptions['isTerminal'];
  workers?: number;
  maxSteps?: number;
  /** Retries of an episode whose browser failed (not of an agent that failed the task). Default 1. */
  retries?: number;
  signal?: AbortSignal;
  onEpisode?: (e: { job: EpisodeJob; trajectory: Trajectory }) => void;
  onError?: (e: { job: EpisodeJob; error: Error }) => void;
}

/**
 * Runs independent episodes over `workers` browser contexts and saves each trajectory under its
 * job key, skipping keys already stored: rerunning the same jobs resumes. Used by rollout and eval.
 */
export async function runEpisodePool(
  opts: EpisodePoolOptions,
): Promise<{ ran: number; skipped: number; errors: number }> {
  const pending = opts.jobs.filter((j) => !opts.store.hasEpisode(j.key));
  const skipped = opts.jobs.length - pending.length;
  let ran = 0;
  let errors = 0;
  const worker = async () => {
    let env = await opts.makeEnv();
    const agent = await opts.makeAgent();
    const expert = opts.makeExpert ? await opts.makeExpert() : null;
    try {
      for (;;) {
        if (opts.signal?.aborted) return;
        const job = pending.shift();
        if (!job) return;
        for (let attempt = 0; ; attempt++) {
          try {
            const trajectory = await runEpisode({
              agent,
              env,
              task: job.task,
              notes: job.notes,
              maxSteps: opts.maxSteps,
              start: opts.start,
              verify: opts.verify,
              isTerminal: opts.isTerminal,
              round: job.round ?? 0,
              tags: job.tags,
              seed: job.seed,
              perturb: job.perturb,
              signal: opts.signal,
              ...(expert ? { expert: { agent: expert, notes: job.expertNotes } } : {}),
            });
            if (trajectory.endReason === 'aborted') return;
            opts.store.saveTrajectory(trajectory, { episodeKey: job.key });
            ran++;
            opts.onEpisode?.({ job, trajectory });
            break;
          } catch (e) {
            if (attempt < (opts.retries ?? 1)) {
              // The env may be dead (browser crash): replace it before retrying.
              await env.close().catch(() => {});
              env = await opts.makeEnv();
              continue;
            }
            errors++;
            opts.onError?.({ job, error: e as Error });
            break;
          }
        }
      }
    } finally {
      await env.close().catch(() => {});
      await agent.close?.();
      await expert?.close?.();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.workers ?? 2) }, () => worker()));
  return { ran, skipped, errors };
}
