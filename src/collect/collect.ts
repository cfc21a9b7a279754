import type { Agent } from '../agent/agent.ts';
import { type EpisodeEnv, runEpisode } from '../agent/episode.ts';
import { stableId } from '../core/ids.ts';
import { type Reflection, renderNote } from '../core/reflection.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';
import { ModelOutputError } from '../models/generate-object.ts';
import type { RunStore } from '../store/run-store.ts';
import { clearEpisodeError, DEFAULT_WORKERS, recordEpisodeError, worthRetrying } from './episode-pool.ts';
import type { Reflector } from './reflector.ts';

/** Rounds per task at most, unless told otherwise (the method's 5). */
export const DEFAULT_MAX_ROUNDS = 5;
/** Verified successes after which a task stops, unless told otherwise (the method's 2). */
export const DEFAULT_STOP_AFTER = 2;

/** Where in a round an error arose (see CollectOptions.onError). */
export type CollectErrorStage = 'episode' | 'reflection' | 'reflection-unusable';

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
  /**
   * An episode that could not be run (`episode`), a reflection that could not be run
   * (`reflection`), or one the model could not write in shape (`reflection-unusable`).
   */
  onError?: (e: { task: Task; round: number; error: Error; stage: CollectErrorStage }) => void;
}

/**
 * What a collection run did: episodes saved, episodes that could not be run (left for the next
 * run, never reflected on), reflections that could not be run (endpoint down: the next round ran
 * without that note, and the command fails), and reflections the model wrote but could not get
 * into shape (recorded as that round's outcome; the next round ran without a note).
 */
export interface CollectResult {
  episodes: number;
  errors: number;
  reflectionErrors: number;
  reflectionsUnusable: number;
}

/** Record kind of a reflection whose reply failed its schema twice, keyed by `episodeKey`. */
export const REFLECTION_UNUSABLE_RECORD = 'reflection-unusable';

/** What is kept about a reflection the model could not write in shape. */
export interface ReflectionUnusableRecord {
  taskId: string;
  round: number;
  reflector: string;
  message: string;
  /** The model's last reply (truncated), so the failure can be read, not just counted. */
  reply: string;
  at: string;
}

/**
 * How a reflection on a failed round ended: a note was saved; the model replied but twice failed
 * the note's schema (a model failure, recorded under REFLECTION_UNUSABLE_RECORD, not retried);
 * or the reflector could not be run (endpoint down, a bug), which is an error of the run.
 */
export type ReflectOutcome =
  | { kind: 'written'; reflection: Reflection }
  | { kind: 'unusable'; error: ModelOutputError }
  | { kind: 'error'; error: Error };

/**
 * Reflects on the failed round `round` of `task` and stores the outcome. A reply that failed its
 * schema twice is what the model did with a bounded, grammar-enforced schema and a budget that
 * fits it, so it is the model's outcome for that round, like an agent's unparseable step: kept,
 * counted, and the next round runs without a note. Anything else is infrastructure and is returned
 * as an error for the caller to count and report.
 */
export async function reflectOnRound(
  store: RunStore,
  reflector: Reflector,
  task: Task,
  round: number,
  trajectory: Trajectory,
  previous: Reflection[],
): Promise<ReflectOutcome> {
  try {
    const r = await reflector.reflect({ trajectory, previous });
    const reflection = { ...r, id: stableId('refl', task.id, round) };
    store.saveReflection(reflection);
    return { kind: 'written', reflection };
  } catch (e) {
    if (!ModelOutputError.isInstance(e)) return { kind: 'error', error: e as Error };
    store.putRecord(REFLECTION_UNUSABLE_RECORD, episodeKey(task.id, round), {
      taskId: task.id,
      round,
      reflector: reflector.id,
      message: e.message,
      reply: e.reply.slice(0, 500),
      at: new Date().toISOString(),
    } satisfies ReflectionUnusableRecord);
    return { kind: 'unusable', error: e };
  }
}

/** True when the reflection on `round` of `taskId` already ended as unusable (never retried). */
export function reflectionUnusable(store: RunStore, taskId: string, round: number): boolean {
  return store.getRecord(REFLECTION_UNUSABLE_RECORD, episodeKey(taskId, round)) !== null;
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
  let reflectionsUnusable = 0;

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
            opts.onError?.({ task, round: p.round, error: e as Error, stage: 'episode' });
            break;
          }
          retried = false;
          if (trajectory.endReason === 'aborted') return;
          opts.store.saveTrajectory(trajectory, { episodeKey: episodeKey(task.id, p.round) });
          clearEpisodeError(opts.store, episodeKey(task.id, p.round));
          episodes++;
          if (trajectory.verdict?.success) p.successes++;
          else {
            const r = await reflectOnRound(
              opts.store,
              opts.reflector,
              task,
              p.round,
              trajectory,
              p.reflections,
            );
            if (r.kind === 'written') p.reflections.push(r.reflection);
            else {
              if (r.kind === 'unusable') reflectionsUnusable++;
              else reflectionErrors++;
              const stage = r.kind === 'unusable' ? 'reflection-unusable' : 'reflection';
              opts.onError?.({ task, round: p.round, error: r.error, stage });
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
  return { episodes, errors, reflectionErrors, reflectionsUnusable };
}
