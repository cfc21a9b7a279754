import type { Agent } from '../agent/agent.ts';
import { type EpisodeEnv, type RunEpisodeOptions, runEpisode } from '../agent/episode.ts';
import { ModelApiError } from '../core/errors.ts';
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
  /**
   * Retries of an episode whose browser failed (not of an agent that failed the task, nor of a
   * model endpoint, which its client already retried). Default 1. An episode still failing is
   * counted in `errors`, recorded (`recordEpisodeError`) and left for the next run.
   */
  retries?: number;
  signal?: AbortSignal;
  onEpisode?: (e: { job: EpisodeJob; trajectory: Trajectory }) => void;
  onError?: (e: { job: EpisodeJob; error: Error }) => void;
}

/** Parallel browser contexts of collection, rollouts and evaluation unless told otherwise. */
export const DEFAULT_WORKERS = 2;

/** Record kind of an episode that could not be run (its key has no trajectory yet). */
export const EPISODE_ERROR_RECORD = 'episode-error';

/** What is kept about an episode that could not be run. */
export interface EpisodeErrorRecord {
  taskId: string;
  round: number;
  message: string;
  at: string;
}

/**
 * Records that the episode under `key` could not be run (model endpoint down, browser lost). No
 * trajectory is saved, so the next run of the same command retries it; the record lets reports
 * count it beside pass@1.
 */
export function recordEpisodeError(
  store: RunStore,
  key: string,
  e: { taskId: string; round: number; error: Error },
): void {
  store.putRecord(EPISODE_ERROR_RECORD, key, {
    taskId: e.taskId,
    round: e.round,
    message: e.error.message,
    at: new Date().toISOString(),
  } satisfies EpisodeErrorRecord);
}

/** Forgets an earlier error of `key` once its episode is stored. */
export function clearEpisodeError(store: RunStore, key: string): void {
  store.deleteRecord(EPISODE_ERROR_RECORD, key);
}

/** How many of `keys` errored and are still not stored (what a rerun would retry). */
export function countEpisodeErrors(store: RunStore, keys: Iterable<string>): number {
  const errored = new Set(store.listRecords(EPISODE_ERROR_RECORD).map((r) => r.key));
  let n = 0;
  for (const k of keys) if (errored.has(k) && !store.hasEpisode(k)) n++;
  return n;
}

/** Whether an in-run retry can help: a model client has already retried its endpoint itself. */
export function worthRetrying(e: unknown): boolean {
  return !ModelApiError.isInstance(e);
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
            clearEpisodeError(opts.store, job.key);
            ran++;
            opts.onEpisode?.({ job, trajectory });
            break;
          } catch (e) {
            if (opts.signal?.aborted) return;
            if (attempt < (opts.retries ?? 1) && worthRetrying(e)) {
              // The env may be dead (browser crash): replace it before retrying.
              await env.close().catch(() => {});
              env = await opts.makeEnv();
              continue;
            }
            errors++;
            recordEpisodeError(opts.store, job.key, {
              taskId: job.task.id,
              round: job.round ?? 0,
              error: e as Error,
            });
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
  await Promise.all(Array.from({ length: Math.max(1, opts.workers ?? DEFAULT_WORKERS) }, () => worker()));
  return { ran, skipped, errors };
}
