import { DEFAULT_MAX_STEPS } from '../agent/episode.ts';
import {
  type CollectOptions,
  type CollectResult,
  DEFAULT_MAX_ROUNDS,
  DEFAULT_STOP_AFTER,
  episodeKey,
  progressFromStore,
  reflectionUnusable,
  reflectOnRound,
  type TaskProgress,
} from '../collect/collect.ts';
import { clearEpisodeError, recordEpisodeError } from '../collect/episode-pool.ts';
import { stableId } from '../core/ids.ts';
import { renderNote } from '../core/reflection.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import type { EpisodeQueue } from './episode-queue.ts';
import type { RuntimeSpec } from './job-data.ts';

/** Collection options when episodes run on queue workers: no local browser or agent. */
export interface QueuedCollectOptions
  extends Omit<CollectOptions, 'makeAgent' | 'makeEnv' | 'start' | 'verify' | 'workers'> {
  queue: EpisodeQueue;
  /** Teacher spec the workers resolve (heuristic, openai:MODEL[@URL], ...). */
  agent: string;
  agentSeed?: number;
  runtime: RuntimeSpec;
}

/**
 * Teacher collection with reflection over the queue. Each task's rounds stay sequential: the
 * coordinator enqueues a round, saves the worker's trajectory under `episodeKey(task, round)`,
 * runs the reflector itself after a failure and enqueues the next round with the note. Tasks
 * proceed side by side, so the workers' capacity, not this loop, sets the pace. Rerunning over
 * the same store resumes, including a reflection lost to a crash right after its round.
 */
export async function collectViaQueue(o: QueuedCollectOptions): Promise<CollectResult> {
  const maxRounds = o.maxRounds ?? DEFAULT_MAX_ROUNDS;
  const stopAfter = o.stopAfter ?? DEFAULT_STOP_AFTER;
  const maxNotes = o.maxNotes ?? 3;
  let episodes = 0;
  let errors = 0;
  let reflectionErrors = 0;
  let reflectionsUnusable = 0;

  const reflect = async (task: Task, p: TaskProgress, trajectory: Trajectory, round: number) => {
    const r = await reflectOnRound(o.store, o.reflector, task, round, trajectory, p.reflections);
    if (r.kind === 'written') p.reflections.push(r.reflection);
    else {
      if (r.kind === 'unusable') reflectionsUnusable++;
      else reflectionErrors++;
      const stage = r.kind === 'unusable' ? 'reflection-unusable' : 'reflection';
      o.onError?.({ task, round, error: r.error, stage });
    }
  };

  const runTask = async (task: Task) => {
    let p = progressFromStore(o.store, task, maxRounds, stopAfter);
    const last = p.round - 1;
    // A reflection lost to a crash is written now; one the model could not write is an outcome.
    if (
      !p.done &&
      last >= 0 &&
      !p.reflections.some((r) => r.id === stableId('refl', task.id, last)) &&
      !reflectionUnusable(o.store, task.id, last)
    ) {
      const prev = o.store.listTrajectories({ taskId: task.id, tag: 'collect', round: last })[0];
      if (prev && !prev.verdict?.success) await reflect(task, p, prev, last);
    }
    while (!p.done && !o.signal?.aborted) {
      const round = p.round;
      const out = await o.queue.run(
        {
          key: episodeKey(task.id, round),
          task,
          round,
          notes: p.reflections.slice(-maxNotes).map(renderNote),
          tags: ['collect', 'teacher'],
          seed: o.seed,
          agent: o.agent,
          agentSeed: o.agentSeed,
          maxSteps: o.maxSteps ?? DEFAULT_MAX_STEPS,
          runtime: o.runtime,
        },
        { signal: o.signal },
      );
      if (out.status === 'aborted') return;
      if (out.status === 'failed') {
        errors++;
        recordEpisodeError(o.store, episodeKey(task.id, round), { taskId: task.id, round, error: out.error });
        o.onError?.({ task, round, error: out.error, stage: 'episode' });
        return;
      }
      if (out.status === 'stored') {
        p = progressFromStore(o.store, task, maxRounds, stopAfter);
        continue;
      }
      const trajectory = out.trajectory;
      if (trajectory.endReason === 'aborted') return;
      clearEpisodeError(o.store, episodeKey(task.id, round));
      episodes++;
      if (trajectory.verdict?.success) p.successes++;
      else await reflect(task, p, trajectory, round);
      p.round++;
      p.done = p.successes >= stopAfter || p.round >= maxRounds;
      o.onEpisode?.({ task, trajectory, taskDone: p.done });
    }
  };

  await Promise.all(o.tasks.map((t) => runTask(t)));
  return { episodes, errors, reflectionErrors, reflectionsUnusable };
}
