import { DEFAULT_MAX_STEPS } from '../agent/episode.ts';
import { clearEpisodeError, type EpisodeJob, recordEpisodeError } from '../collect/episode-pool.ts';
import type { Trajectory } from '../core/trajectory.ts';
import type { EpisodeQueue } from './episode-queue.ts';
import type { RuntimeSpec } from './job-data.ts';

export interface QueuedPoolOptions {
  queue: EpisodeQueue;
  jobs: EpisodeJob[];
  /** Agent spec the workers resolve. */
  agent: string;
  agentSeed?: number;
  runtime: RuntimeSpec;
  maxSteps?: number;
  signal?: AbortSignal;
  onEpisode?: (e: { job: EpisodeJob; trajectory: Trajectory }) => void;
  onError?: (e: { job: EpisodeJob; error: Error }) => void;
}

/**
 * `runEpisodePool` over the queue: every job not yet in the store becomes a queue job; each
 * result is saved under the job key exactly once. Same counts as the in-process pool, so rollout
 * and eval read the same either way.
 */
export async function runQueuedPool(
  o: QueuedPoolOptions,
): Promise<{ ran: number; skipped: number; errors: number }> {
  const pending = o.jobs.filter((j) => !o.queue.hasKey(j.key));
  const skipped = o.jobs.length - pending.length;
  let ran = 0;
  let errors = 0;
  await Promise.all(
    pending.map(async (job) => {
      const out = await o.queue.run(
        {
          key: job.key,
          task: job.task,
          round: job.round ?? 0,
          notes: job.notes ?? [],
          tags: job.tags,
          seed: job.seed,
          ...(job.perturb ? { perturb: job.perturb } : {}),
          agent: o.agent,
          agentSeed: o.agentSeed,
          maxSteps: o.maxSteps ?? DEFAULT_MAX_STEPS,
          runtime: o.runtime,
        },
        { signal: o.signal },
      );
      if (out.status === 'saved') {
        clearEpisodeError(o.queue.store, job.key);
        ran++;
        o.onEpisode?.({ job, trajectory: out.trajectory });
      } else if (out.status === 'failed') {
        errors++;
        recordEpisodeError(o.queue.store, job.key, {
          taskId: job.task.id,
          round: job.round ?? 0,
          error: out.error,
        });
        o.onError?.({ job, error: out.error });
      }
    }),
  );
  return { ran, skipped, errors };
}
