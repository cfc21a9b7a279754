import { z } from 'zod';
import { Action } from '../core/action.ts';
import { describeZodIssues, InputError } from '../core/errors.ts';
import { sha256 } from '../core/ids.ts';
import { Observation } from '../core/observation.ts';
import { Task } from '../core/task.ts';
import { Trajectory } from '../core/trajectory.ts';

/** Name of the BullMQ queue that carries episodes, unless a deployment picks its own. */
export const DEFAULT_QUEUE_NAME = 'rmsweb-episodes';

/**
 * Where a worker runs an episode: the offline world built from a seed (each worker serves its own
 * copy, which is identical because the world is deterministic), or the live web judged by `judge`.
 */
export const RuntimeSpec = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('world'), worldSeed: z.number().int() }),
  z.object({
    kind: z.literal('web'),
    suite: z.string().min(1),
    judge: z.string().min(1),
    allowlist: z.array(z.string()).optional(),
  }),
]);
export type RuntimeSpec = z.infer<typeof RuntimeSpec>;

/** A stable text key of a runtime spec (workers cache one runtime per key). */
export function runtimeKey(spec: RuntimeSpec): string {
  return spec.kind === 'world'
    ? `world:${spec.worldSeed}`
    : `web:${spec.suite}:${spec.judge}:${(spec.allowlist ?? []).join(',')}`;
}

/**
 * A branch of `mine --verify` (src/mine/verify.ts `BranchSpec`): the worker replays `success` up to
 * step `i`, checks the state by comparability against `threshold`, takes `action` (recorded on
 * `from`), then lets the job's agent continue.
 */
export const ReplayJob = z.object({
  success: Trajectory,
  i: z.number().int().min(0),
  action: Action,
  from: Observation,
  threshold: z.number().min(0).max(1),
  weights: z.object({
    url: z.number().min(0),
    elements: z.number().min(0),
    memory: z.number().min(0),
    progress: z.number().min(0),
  }),
});
export type ReplayJob = z.infer<typeof ReplayJob>;

/**
 * The payload of one episode job: everything a worker on another machine needs, and nothing that
 * lives on the coordinator's disk. Workers validate it before running anything.
 */
export const EpisodeJobData = z.object({
  v: z.literal(1),
  runId: z.string().min(1),
  /** The run store's episode key; the coordinator saves the result under it exactly once. */
  key: z.string().min(1),
  task: Task,
  round: z.number().int().min(0),
  notes: z.array(z.string()),
  tags: z.array(z.string()),
  seed: z.number().int().optional(),
  /** World perturbation seed of the episode (0 or absent: today's pages). */
  perturb: z.number().int().min(0).optional(),
  /** Agent spec as the CLI takes it: heuristic, random, openai:MODEL[@URL], policy:DIR. */
  agent: z.string().min(1),
  agentSeed: z.number().int().optional(),
  maxSteps: z.number().int().min(1).max(1000),
  runtime: RuntimeSpec,
  /** Present for a verification branch: the agent replays a recorded prefix before it takes over. */
  replay: ReplayJob.optional(),
});
export type EpisodeJobData = z.infer<typeof EpisodeJobData>;

/** Validates job data at the worker boundary; the error names the field. */
export function parseEpisodeJobData(raw: unknown, jobId: string): EpisodeJobData {
  const r = EpisodeJobData.safeParse(raw);
  if (!r.success) {
    throw new InputError(`job ${jobId} carries invalid episode data: ${describeZodIssues(r.error.issues)}`, {
      field: r.error.issues[0]?.path.join('.'),
    });
  }
  return r.data;
}

/**
 * The BullMQ job id of an episode: the run id plus the episode key, so enqueueing the same episode
 * twice (a restarted coordinator) attaches to the job already there. BullMQ forbids `:` in custom
 * ids, so the key is reduced to safe characters and a hash of the exact key keeps ids distinct.
 */
export function episodeJobId(runId: string, key: string): string {
  const safe = key.replace(/[^\w.-]+/g, '_').slice(0, 120);
  return `${runId}-${safe}-${sha256(key).slice(0, 10)}`;
}

/** Parses `redis://[user:pass@]host:port[/db]` (or rediss://); the error names the option. */
export function parseRedisUrl(url: string, field = '--redis'): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError(`${field}: "${url}" is not a URL; use redis://host:port[/db]`, { field });
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new InputError(`${field}: "${url}" must start with redis:// or rediss://`, { field });
  }
  if (!u.hostname) throw new InputError(`${field}: "${url}" has no host`, { field });
  return url;
}
