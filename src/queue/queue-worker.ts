import { hostname } from 'node:os';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Agent } from '../agent/agent.ts';
import { type EpisodeEnv, runEpisode } from '../agent/episode.ts';
import { InputError, RmswebError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';
import { replayBranchAgent } from '../mine/replay.ts';
import {
  DEFAULT_QUEUE_NAME,
  type EpisodeJobData,
  parseEpisodeJobData,
  parseRedisUrl,
  type RuntimeSpec,
  runtimeKey,
} from './job-data.ts';
import { packTrajectory, type WireResult } from './wire-result.ts';

/** What a worker needs to run episodes of one runtime spec; built by the caller (the CLI). */
export interface EpisodeRuntime {
  makeEnv(): Promise<EpisodeEnv & { close(): Promise<void> }>;
  start?: (
    env: EpisodeEnv,
    task: Task,
    ctx?: { perturb: number },
  ) => Promise<{
    observation: Trajectory['steps'][number]['observation'];
    sessionId?: string;
    perturb?: number;
  }>;
  verify?: (trajectory: Trajectory) => Promise<Verdict>;
  /** False once the browser is gone; the worker then opens a fresh runtime for the next job. */
  healthy(): boolean;
  close(): Promise<void>;
}

/** What a worker reports as it goes (the CLI prints these). */
export type WorkerEvent =
  | { type: 'start'; key: string; jobId: string; attempt: number }
  | {
      type: 'done';
      key: string;
      jobId: string;
      steps: number;
      success: boolean | null;
      endReason: string;
      ms: number;
      droppedImages: number;
    }
  | { type: 'error'; key: string; jobId: string; attempt: number; error: Error }
  | { type: 'runtime'; action: 'open' | 'reopen'; runtime: string }
  | { type: 'warning'; message: string };

export interface QueueWorkerOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  queueName?: string;
  /** Episodes run at once (one browser context each; default 2). */
  concurrency?: number;
  openRuntime: (spec: RuntimeSpec) => Promise<EpisodeRuntime>;
  makeAgent: (spec: string, opts: { seed?: number }) => Agent | Promise<Agent>;
  /** Bound on one result (trajectory + screenshots); the oldest screenshots are left out beyond it. */
  maxResultBytes?: number;
  /**
   * Lock on a running job, renewed while it runs; a worker that dies loses it after this long and
   * the job goes back to the queue for another worker (default 30 s).
   */
  lockMs?: number;
  /** Names this worker in results and logs (default host:pid). */
  id?: string;
  onEvent?: (e: WorkerEvent) => void;
}

/** A running worker. */
export interface QueueWorkerHandle {
  readonly id: string;
  /** Episodes finished (returned) and failed attempts so far. */
  stats(): { done: number; failed: number; active: number };
  /** Stops taking jobs, lets running episodes finish, closes browsers. */
  close(): Promise<void>;
}

/** Open runtimes by spec, reopened when the browser behind one died. */
class RuntimeCache {
  private readonly cache = new Map<string, Promise<EpisodeRuntime>>();
  constructor(
    private readonly open: (spec: RuntimeSpec) => Promise<EpisodeRuntime>,
    private readonly onEvent?: (e: WorkerEvent) => void,
  ) {}

  async get(spec: RuntimeSpec): Promise<EpisodeRuntime> {
    const key = runtimeKey(spec);
    const cached = this.cache.get(key);
    if (cached) {
      const rt = await cached.catch(() => null);
      if (rt?.healthy()) return rt;
      if (this.cache.get(key) === cached) {
        this.cache.delete(key);
        if (rt) {
          void rt.close().catch(() => {});
          this.onEvent?.({ type: 'runtime', action: 'reopen', runtime: key });
        }
      }
      return this.get(spec);
    }
    const p = this.open(spec);
    this.cache.set(key, p);
    p.then(
      () => this.onEvent?.({ type: 'runtime', action: 'open', runtime: key }),
      () => {
        // A runtime that failed to open (remote browser down) is retried by the next job.
        if (this.cache.get(key) === p) this.cache.delete(key);
      },
    );
    return p;
  }

  async closeAll(): Promise<void> {
    const all = [...this.cache.values()];
    this.cache.clear();
    await Promise.allSettled(all.map(async (p) => (await p).close()));
  }
}

/** Idle agents by spec: agents may be costly to load (a checkpoint), so they are reused. */
class AgentPool {
  private readonly free = new Map<string, Agent[]>();
  private readonly all: Agent[] = [];
  constructor(private readonly make: QueueWorkerOptions['makeAgent']) {}

  async take(spec: string, seed?: number): Promise<{ agent: Agent; key: string }> {
    const key = `${spec}\u0000${seed ?? ''}`;
    const agent = this.free.get(key)?.pop();
    if (agent) return { agent, key };
    const made = await this.make(spec, { seed });
    this.all.push(made);
    return { agent: made, key };
  }

  give(key: string, agent: Agent): void {
    const list = this.free.get(key) ?? [];
    list.push(agent);
    this.free.set(key, list);
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.all.map(async (a) => a.close?.()));
  }
}

/**
 * Starts a queue worker: takes episode jobs from Redis, runs each in a browser env (on its own
 * world copy, or the live web; an env is kept for the next job, whose reset clears it), verifies it, and returns the trajectory as the job's
 * result. A failing attempt (browser crash, verifier down) throws, so BullMQ retries it with
 * backoff, and a browser that died is relaunched before the next job. Invalid job data fails
 * at once without retries.
 */
export async function startQueueWorker(o: QueueWorkerOptions): Promise<QueueWorkerHandle> {
  const url = parseRedisUrl(o.url);
  const id = o.id ?? `${hostname()}:${process.pid}:${newId('w').slice(2)}`;
  const concurrency = o.concurrency ?? 2;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new InputError(`--concurrency must be a positive integer, got ${concurrency}`, {
      field: '--concurrency',
    });
  const lockMs = o.lockMs ?? 30_000;
  const runtimes = new RuntimeCache(o.openRuntime, o.onEvent);
  const agents = new AgentPool(o.makeAgent);
  // Idle envs by runtime: an env's reset reuses its browser context, so keeping the env between
  // jobs saves a context and a renderer process per episode. An env whose job failed is closed.
  const idleEnvs = new Map<EpisodeRuntime, Array<EpisodeEnv & { close(): Promise<void> }>>();
  let done = 0;
  let failed = 0;
  let active = 0;

  const runJob = async (job: { id?: string; data: unknown; attemptsMade: number }): Promise<WireResult> => {
    const jobId = job.id ?? '?';
    let data: EpisodeJobData;
    try {
      data = parseEpisodeJobData(job.data, jobId);
    } catch (e) {
      throw new UnrecoverableError((e as Error).message);
    }
    const attempt = job.attemptsMade + 1;
    o.onEvent?.({ type: 'start', key: data.key, jobId, attempt });
    active++;
    const t0 = Date.now();
    let rt: EpisodeRuntime | null = null;
    let env: (EpisodeEnv & { close(): Promise<void> }) | null = null;
    let lease: { agent: Agent; key: string } | null = null;
    try {
      rt = await runtimes.get(data.runtime);
      lease = await agents.take(data.agent, data.agentSeed);
      env = idleEnvs.get(rt)?.pop() ?? (await rt.makeEnv());
      const trajectory = await runEpisode({
        agent: data.replay ? replayBranchAgent(data.replay, lease.agent) : lease.agent,
        env,
        task: data.task,
        notes: data.notes,
        maxSteps: data.maxSteps,
        start: rt.start,
        verify: rt.verify,
        round: data.round,
        tags: data.tags,
        seed: data.seed,
        perturb: data.perturb,
      });
      const packed = packTrajectory(trajectory, { maxBytes: o.maxResultBytes, worker: id });
      idleEnvs.set(rt, [...(idleEnvs.get(rt) ?? []), env]);
      env = null;
      done++;
      o.onEvent?.({
        type: 'done',
        key: data.key,
        jobId,
        steps: trajectory.steps.length,
        success: trajectory.verdict?.success ?? null,
        endReason: trajectory.endReason,
        ms: Date.now() - t0,
        droppedImages: packed.droppedImages,
      });
      return packed;
    } catch (e) {
      failed++;
      const error = RmswebError.isInstance(e) || e instanceof Error ? (e as Error) : new Error(String(e));
      o.onEvent?.({ type: 'error', key: data.key, jobId, attempt, error });
      throw error;
    } finally {
      active--;
      await env?.close().catch(() => {});
      if (lease) agents.give(lease.key, lease.agent);
    }
  };

  const worker = new Worker(o.queueName ?? DEFAULT_QUEUE_NAME, runJob, {
    connection: { url, maxRetriesPerRequest: null },
    concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    // A job whose worker died twice is still worth a third try before it counts as failed.
    maxStalledCount: 2,
    autorun: true,
  });
  // Connection errors are retried by ioredis; log them instead of crashing on an unhandled 'error'.
  worker.on('error', (e) => o.onEvent?.({ type: 'warning', message: `queue worker: ${e.message}` }));
  await worker.waitUntilReady();

  return {
    id,
    stats: () => ({ done, failed, active }),
    close: async () => {
      await worker.close();
      const envs = [...idleEnvs.values()].flat();
      idleEnvs.clear();
      await Promise.allSettled(envs.map((e) => e.close()));
      await runtimes.closeAll();
      await agents.closeAll();
    },
  };
}
