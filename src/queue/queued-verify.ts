import type { Task } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import {
  type BranchJob,
  branchResultFromTrajectory,
  branchSpecOf,
  type RemoteBranchRunner,
} from '../mine/branches.ts';
import type { ComparabilityWeights } from '../mine/comparability.ts';
import type { EpisodeQueue } from './episode-queue.ts';
import type { RuntimeSpec } from './job-data.ts';

/** How `mine --verify --queue` runs its branches on queue workers. */
export interface QueuedVerifyOptions {
  /** Its run store keeps the branch episodes (not the mined runs' store: they would be mined next time). */
  queue: EpisodeQueue;
  /** The continuation policy, as workers resolve it (heuristic, openai:MODEL, policy:DIR). */
  agent: string;
  agentSeed?: number;
  runtime: RuntimeSpec;
  /** Step budget of a whole branch episode, prefix included. */
  maxSteps: number;
  notesFor: (task: Task) => string[];
  threshold: number;
  weights: ComparabilityWeights;
  signal?: AbortSignal;
}

/** The tag that finds a branch episode in the queue's store by its branch key. */
export function branchTag(key: string): string {
  return `verify-branch:${key}`;
}

/**
 * A branch runner for `verifyTargets` that sends each branch to the queue as one episode job
 * carrying its replay (job-data.ts `ReplayJob`); the worker replays, branches and lets the
 * continuation finish, and the result is read off the returned trajectory by the same rules as in
 * this process (`branchResultFromTrajectory`). A branch the queue's store already holds (a
 * coordinator stopped after saving it) is read back from the store instead of run again.
 */
export function queuedBranchRunner(o: QueuedVerifyOptions): RemoteBranchRunner {
  return async (job: BranchJob) => {
    const task = job.success.task;
    const out = await o.queue.run(
      {
        key: job.key,
        task,
        round: 0,
        notes: o.notesFor(task),
        tags: ['verify', branchTag(job.key)],
        agent: o.agent,
        agentSeed: o.agentSeed,
        maxSteps: Math.max(o.maxSteps, job.i + 1),
        runtime: o.runtime,
        perturb: job.success.perturbSeed ?? 0,
        replay: branchSpecOf(job, o.threshold, o.weights),
      },
      { signal: o.signal },
    );
    let trajectory: Trajectory | undefined;
    if (out.status === 'saved') trajectory = out.trajectory;
    else if (out.status === 'stored')
      trajectory = o.queue.store.listTrajectories({ tag: branchTag(job.key) })[0];
    else if (out.status === 'failed') throw out.error;
    else throw new Error('aborted');
    if (!trajectory) throw new Error(`branch ${job.key} is marked stored but not found in the queue's store`);
    return branchResultFromTrajectory(job, trajectory, o.weights);
  };
}
