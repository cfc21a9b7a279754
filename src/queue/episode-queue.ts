import { Job, Queue, QueueEvents } from 'bullmq';
import { RmswebError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import type { RunStore } from '../store/run-store.ts';
import {
  DEFAULT_QUEUE_NAME,
  type EpisodeJobData,
  episodeJobId,
  parseRedisUrl,
  type ReplayJob,
  type RuntimeSpec,
} from './job-data.ts';
import { unpackTrajectory } from './wire-result.ts';

/** One episode to run on a worker. */
export interface QueuedEpisode {
  key: string;
  task: Task;
  round: number;
  notes: string[];
  tags: string[];
  seed?: number;
  agent: string;
  agentSeed?: number;
  maxSteps: number;
  runtime: RuntimeSpec;
  /** World perturbation seed (0 or absent: today's pages). */
  perturb?: number;
  /** A verification branch's replay (job-data.ts `ReplayJob`). */
  replay?: ReplayJob;
}

/** How one queued episode ended, from the coordinator's side. */
export type EpisodeOutcome =
  /** A worker ran it and this call saved it under its key. */
  | { status: 'saved'; trajectory: Trajectory; worker: string }
  /** The key was already in the store (resume), nothing ran. */
  | { status: 'stored' }
  /** Every attempt failed (or the result was invalid); nothing was saved, a rerun retries it. */
  | { status: 'failed'; error: Error }
  /** The coordinator stopped waiting; the job stays queued and a rerun attaches to it. */
  | { status: 'aborted' };

export interface EpisodeQueueOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  store: RunStore;
  queueName?: string;
  /** Attempts per episode before it counts as failed (default 3). */
  attempts?: number;
  /** First retry delay, doubling each attempt (default 2000 ms). */
  backoffMs?: number;
  /** Safety poll of outstanding jobs, in case an event was missed (default 2000 ms). */
  pollMs?: number;
  /** How long finished results wait in Redis for a coordinator that is down (default 1 day). */
  keepResultsS?: number;
  /** Operational notes (re-attached jobs, screenshots dropped, a job requeued). */
  onNote?: (message: string) => void;
}

interface Waiter {
  jobId: string;
  data: EpisodeJobData;
  promise: Promise<EpisodeOutcome>;
  resolve: (o: EpisodeOutcome) => void;
  busy: boolean;
  again: boolean;
}

const RUN_RECORD = 'queue';

/**
 * The coordinator's side of the episode queue. `run(episode)` enqueues the episode under an
 * idempotent job id (run id + episode key) and resolves once a worker's result is saved in the
 * run store under the episode key, which happens exactly once however often the job ran. Results
 * reach the coordinator through BullMQ completion events, with a poll as a safety net. A
 * coordinator restarted on the same store re-attaches to jobs still queued or already finished.
 */
export class EpisodeQueue {
  readonly runId: string;
  readonly queueName: string;
  private readonly waiters = new Map<string, Waiter>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** Jobs found already in the queue when submitted (a restarted coordinator re-attaching). */
  reattached = 0;

  private constructor(
    private readonly o: EpisodeQueueOptions,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    runId: string,
  ) {
    this.runId = runId;
    this.queueName = queue.name;
    const onFinished = ({ jobId }: { jobId: string }) => {
      const w = this.waiters.get(jobId);
      if (w) void this.check(w);
    };
    events.on('completed', onFinished);
    events.on('failed', onFinished);
    this.timer = setInterval(() => {
      for (const w of this.waiters.values()) void this.check(w);
    }, o.pollMs ?? 2000);
    this.timer.unref();
  }

  /** Connects to Redis; the run id is kept in the store so a restart reuses the same job ids. */
  static async open(o: EpisodeQueueOptions): Promise<EpisodeQueue> {
    const url = parseRedisUrl(o.url, '--queue');
    const name = o.queueName ?? DEFAULT_QUEUE_NAME;
    const saved = o.store.getRecord<{ runId: string }>(RUN_RECORD, 'run');
    const runId = saved?.runId ?? newId('run');
    if (!saved) o.store.putRecord(RUN_RECORD, 'run', { runId });
    // Fail fast when Redis is unreachable instead of queueing commands forever.
    const connection = { url, maxRetriesPerRequest: 3, connectTimeout: 10_000 };
    const queue = new Queue(name, { connection });
    const events = new QueueEvents(name, { connection: { url, maxRetriesPerRequest: null } });
    try {
      await withTimeout(
        Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
        15_000,
        `connecting to Redis at ${url}`,
      );
    } catch (e) {
      await Promise.allSettled([queue.close(), events.close()]);
      throw e;
    }
    return new EpisodeQueue(o, queue, events, runId);
  }

  /** The coordinator's run store (where results and episode errors are recorded). */
  get store(): RunStore {
    return this.o.store;
  }

  /** Whether the run store already holds this episode key. */
  hasKey(key: string): boolean {
    return this.o.store.hasEpisode(key);
  }

  /** Episodes submitted and not yet settled. */
  get outstanding(): number {
    return this.waiters.size;
  }

  /** Job counts of the whole queue (all runs), for progress displays. */
  async counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  }

  /**
   * Runs one episode on the workers and saves its trajectory under `ep.key`. Idempotent: a key
   * already in the store returns `stored`; the same key submitted twice shares one job.
   */
  run(ep: QueuedEpisode, opts: { signal?: AbortSignal } = {}): Promise<EpisodeOutcome> {
    if (this.closed) return Promise.resolve({ status: 'aborted' });
    if (this.o.store.hasEpisode(ep.key)) return Promise.resolve({ status: 'stored' });
    const jobId = episodeJobId(this.runId, ep.key);
    const existing = this.waiters.get(jobId);
    if (existing) return existing.promise;
    const data: EpisodeJobData = { v: 1, runId: this.runId, ...ep };
    let resolve!: (o: EpisodeOutcome) => void;
    const promise = new Promise<EpisodeOutcome>((r) => {
      resolve = r;
    });
    const w: Waiter = { jobId, data, promise, resolve, busy: false, again: false };
    this.waiters.set(jobId, w);
    const signal = opts.signal;
    if (signal) {
      const onAbort = () => this.finish(w, { status: 'aborted' });
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        void promise.then(() => signal.removeEventListener('abort', onAbort));
      }
    }
    void this.submit(w).catch((e) => this.finish(w, { status: 'failed', error: e as Error }));
    return promise;
  }

  private async submit(w: Waiter): Promise<void> {
    const state = await this.queue.getJobState(w.jobId);
    // A failed job left by an earlier coordinator that stopped before clearing it: run it again.
    if (state === 'failed') await this.queue.remove(w.jobId);
    else if (state !== 'unknown') this.reattached++;
    if (!this.waiters.has(w.jobId)) return;
    await this.queue.add('episode', w.data, {
      jobId: w.jobId,
      attempts: this.o.attempts ?? 3,
      backoff: { type: 'exponential', delay: this.o.backoffMs ?? 2000 },
      removeOnComplete: { age: this.o.keepResultsS ?? 86_400 },
      removeOnFail: { age: 7 * 86_400 },
    });
    await this.check(w);
  }

  /** Settles a waiter whose job has finished; serialized per job, rerun if an event came meanwhile. */
  private async check(w: Waiter): Promise<void> {
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    try {
      do {
        w.again = false;
        if (!this.waiters.has(w.jobId) || this.closed) return;
        await this.checkOnce(w);
      } while (w.again);
    } catch (e) {
      // Redis hiccups are retried by the next poll; only report them.
      this.o.onNote?.(`queue: checking ${w.data.key}: ${(e as Error).message}`);
    } finally {
      w.busy = false;
    }
  }

  private async checkOnce(w: Waiter): Promise<void> {
    const state = await this.queue.getJobState(w.jobId);
    if (state === 'unknown') {
      // The job vanished (expired, or Redis lost it): queue it again unless it was saved meanwhile.
      if (this.o.store.hasEpisode(w.data.key)) return this.finish(w, { status: 'stored' });
      this.o.onNote?.(`queue: job for ${w.data.key} is gone from Redis; queueing it again`);
      await this.submit(w);
      return;
    }
    if (state !== 'completed' && state !== 'failed') return;
    const job = await Job.fromId(this.queue, w.jobId);
    if (!job) return;
    if (state === 'failed') {
      const error = new RmswebError(
        `episode ${w.data.key} failed after ${job.attemptsMade} attempt(s): ${job.failedReason ?? 'unknown error'}`,
        { code: 'QUEUE_JOB_FAILED', details: { jobId: w.jobId } },
      );
      await job.remove().catch(() => {});
      return this.finish(w, { status: 'failed', error });
    }
    let unpacked: ReturnType<typeof unpackTrajectory>;
    try {
      unpacked = unpackTrajectory(job.returnvalue, w.jobId);
    } catch (e) {
      await job.remove().catch(() => {});
      return this.finish(w, { status: 'failed', error: e as Error });
    }
    if (unpacked.droppedImages) {
      this.o.onNote?.(
        `queue: ${w.data.key}: ${unpacked.droppedImages} screenshot(s) left out to keep the result under its size bound`,
      );
    }
    const wrote = this.o.store.saveTrajectory(unpacked.trajectory, { episodeKey: w.data.key });
    // Only after the store has it: a coordinator killed in between finds the key stored on restart.
    await job.remove().catch(() => {});
    this.finish(
      w,
      wrote
        ? { status: 'saved', trajectory: unpacked.trajectory, worker: unpacked.worker }
        : { status: 'stored' },
    );
  }

  private finish(w: Waiter, outcome: EpisodeOutcome): void {
    if (this.waiters.get(w.jobId) !== w) return;
    this.waiters.delete(w.jobId);
    w.resolve(outcome);
  }

  /** Stops waiting (outstanding episodes resolve `aborted`; their jobs stay queued) and disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const w of [...this.waiters.values()]) this.finish(w, { status: 'aborted' });
    await Promise.allSettled([this.events.close(), this.queue.close()]);
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        t = setTimeout(
          () =>
            reject(
              new RmswebError(`timed out after ${ms} ms ${what}`, {
                code: 'QUEUE_CONNECT',
                isRetryable: true,
              }),
            ),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(t);
  }
}
