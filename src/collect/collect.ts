import type { Agent } from '../agent/agent.ts';
import { type EpisodeEnv, runEpisode } from '../agent/episode.ts';
import { stableId } from '../core/ids.ts';
import { type Reflection, renderNote } from '../core/reflection.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';
import type { RunStore } from '../store/run-store.ts';
import { clearEpisodeError, DEFAULT_WORKERS, recordEpisodeError, worthRetrying } from './episode-pool.ts';
import type { Reflector } from './reflector.ts';

/** Rounds per task at most, unless told otherwise (the method's 5). */
export const DEFAULT_MAX_ROUNDS = 5;
/** Verified successes after which a task stops, unless told otherwise (the method's 2). */
export const DEFAULT_STOP_AFTER = 2;

/** Options of a collection run; the CLI validates them with zod and records them in the manifest. */
export interface CollectOptions {
  tasks: Task[];
  store: RunStore;
  /** One teacher per worker (agents may keep per-episode state). */
  makeAgent: () => Agent | Promise<Agent>;
  /** One browser env per worker. */
  makeEnv: () => Promise<EpisodeEnv & { close(): Promise<void> }>;
  reflector: Reflector;
  /** Opens a task in an env (world episodes bind a session); default env.reset. */
  start?: (
    env: EpisodeEnv,
    task: Task,
  ) => Promise<{ observation: Trajectory['steps'][number]['observation']; sessionId?: string }>;
  verify: (trajectory: Trajectory) => Promise<Verdict>;
  /** Parallel browser contexts (default DEFAULT_WORKERS). */
  workers?: number;
  /** Rounds per task at most (default DEFAULT_MAX_ROUNDS). */
  maxRounds?: number;
  /** Stop a task after this many verified successes (default DEFAULT_STOP_AFTER). */
  stopAfter?: number;
  maxSteps?: number;
  /** Notes kept for the next round: the most recent reflections (default 3). */
  maxNotes?: number;
  seed?: number;
  signal?: AbortSignal;
  onEpisode?: (e: { task: Task; trajectory: Trajectory; taskDone: boolean }) => void;
  onError?: (e: { task: Task; round: number; error: Error }) => void;
}

/**
 * What a collection run did: episodes saved, episodes that could not be run (left for the next
 * run, never reflected on), and reflections that failed (the next round ran without that note).
 */
export interface CollectResult {
  episodes: number;
  errors: number;
  reflectionErrors: number;
}

/** Per-task state of collection, rebuilt from the store on resume. */
export interface TaskProgress {
  round: number;
  successes: number;
  reflections: Reflection[];
  done: boolean;
}

/** The episode key of one round of one task: saving it twice is a no-op, which makes resume exact. */
export function episodeKey(taskId: string, round: number): string {
  return `collect:${taskId}#${round}`;
}

/** Rebuilds a task's collection state from the store (also used by queued collection). */
export function progressFromStore(
  store: RunStore,
  task: Task,
  maxRounds: number,
  stopAfter: number,
): TaskProgress {
  const summaries = store.listTrajectorySummaries({ taskId: task.id, tag: 'collect' });
  const rounds = new Set(summaries.map((s) => s.round));
  let round = 0;
  while (rounds.has(round)) round++;
  const successes = summaries.filter((s) => s.success === true).length;
  const reflections = store.listReflections(task.id);
  return { round, successes, reflections, done: successes >= stopAfter || round >= maxRounds };
}

/**
 * Teacher collection with reflection. For each task, run rounds; after a failed round the reflector
 * writes a note that is injected into every observation of the next round; stop after `stopAfter`
 * verified successes or `maxRounds` rounds. Every attempt is kept. Tasks run in parallel over
 * `workers` browser contexts; rerunning over the same store resumes where it stopped.
 */
export async function collect(opts: CollectOptions): Promise<CollectResult> {
  const maxRounds = opts.maxRounds ?? DEFAULT_MAX_ROUNDS;
  const stopAfter = opts.stopAfter ?? DEFAULT_STOP_AFTER;
  const maxNotes = opts.maxNotes ?? 3;
  const queue = opts.tasks.slice();
  let episodes = 0;
  let errors = 0;
  let reflectionErrors = 0;

  const worker = async () => {
    let env = await opts.makeEnv();
    let retried = false;
    const agent = await opts.makeAgent();
    try {
      for (;;) {
        if (opts.signal?.aborted) return;
        const task = queue.shift();
        if (!task) return;
        const p = progressFromStore(opts.store, task, maxRounds, stopAfter);
        while (!p.done && !opts.signal?.aborted) {
          const notes = p.reflections.slice(-maxNotes).map(renderNote);
          let trajectory: Trajectory;
          try {
            trajectory = await runEpisode({
              agent,
              env,
              task,
              notes,
              maxSteps: opts.maxSteps,
              start: opts.start,
              verify: opts.verify,
              round: p.round,
              tags: ['collect', 'teacher'],
              seed: opts.seed,
              signal: opts.signal,
            });
          } catch (e) {
            if (opts.signal?.aborted) return;
            // An infrastructure failure (browser crash): replace the env and retry the round once;
            // if it fails again (or the model endpoint is down, which its client already retried)
            // the round is recorded as an error and left for the next run, which resumes it.
            await env.close().catch(() => {});
            env = await opts.makeEnv();
            if (!retried && worthRetrying(e)) {
              retried = true;
              continue;
            }
            retried = false;
            errors++;
            recordEpisodeError(opts.store, episodeKey(task.id, p.round), {
              taskId: task.id,
              round: p.round,
              error: e as Error,
            });
            opts.onError?.({ task, round: p.round, error: e as Error });
            break;
          }
          retried = false;
          if (trajectory.endReason === 'aborted') return;
          opts.store.saveTrajectory(trajectory, { episodeKey: episodeKey(task.id, p.round) });
          clearEpisodeError(opts.store, episodeKey(task.id, p.round));
          episodes++;
          if (trajectory.verdict?.success) p.successes++;
          else {
            try {
              const r = await opts.reflector.reflect({ trajectory, previous: p.reflections });
              const reflection = { ...r, id: stableId('refl', task.id, p.round) };
              opts.store.saveReflection(reflection);
              p.reflections.push(reflection);
            } catch (e) {
              reflectionErrors++;
              opts.onError?.({ task, round: p.round, error: e as Error });
            }
          }
          p.round++;
          p.done = p.successes >= stopAfter || p.round >= maxRounds;
          opts.onEpisode?.({ task, trajectory, taskDone: p.done });
        }
      }
    } finally {
      await env.close().catch(() => {});
      await agent.close?.();
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, opts.workers ?? DEFAULT_WORKERS) }, () => worker()));
  return { episodes, errors, reflectionErrors };
}
