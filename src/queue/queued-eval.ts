import type { EvalSummary } from '../eval/metrics.ts';
import {
  evalJobs,
  evalTag,
  planEvalRuns,
  type RunEvalOptions,
  summarizeStoredEval,
} from '../eval/run-eval.ts';
import type { EpisodeQueue } from './episode-queue.ts';
import type { RuntimeSpec } from './job-data.ts';
import { runQueuedPool } from './queued-pool.ts';

/** Evaluation options when episodes run on queue workers. */
export interface QueuedEvalOptions
  extends Omit<RunEvalOptions, 'makeAgent' | 'makeEnv' | 'start' | 'verify' | 'workers'> {
  queue: EpisodeQueue;
  agent: string;
  agentSeed?: number;
  runtime: RuntimeSpec;
}

/** `runEval` over the queue: the same jobs, keys and summary; workers run and verify the episodes. */
export async function evalViaQueue(o: QueuedEvalOptions): Promise<EvalSummary & { complete: boolean }> {
  const plan = planEvalRuns(o);
  const jobs = evalJobs(o.label, o.tasks, plan.runs, plan.perturbSeeds);
  const total = jobs.length;
  let done = jobs.filter((j) => o.store.hasEpisode(j.key)).length;
  let ok = o.store.listTrajectorySummaries({ tag: evalTag(o.label), success: true }).length;
  const res = await runQueuedPool({
    queue: o.queue,
    jobs,
    agent: o.agent,
    agentSeed: o.agentSeed,
    runtime: o.runtime,
    maxSteps: o.maxSteps,
    signal: o.signal,
    onEpisode: ({ trajectory }) => {
      done++;
      if (trajectory.verdict?.success) ok++;
      o.onEpisode?.(done, total, done ? ok / done : 0);
    },
    onError: ({ job, error }) => o.onError?.(job.task.id, error),
  });
  return summarizeStoredEval({ ...o, runs: plan.runs }, res.errors, plan);
}
