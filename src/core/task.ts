import { z } from 'zod';

export const TASK_SCHEMA_VERSION = 1;

/** Which benchmark or source a task comes from. */
export const SuiteName = z.enum([
  'world',
  'webvoyager',
  'online-mind2web',
  'webtailbench',
  'miniwob',
  'custom',
]);
export type SuiteName = z.infer<typeof SuiteName>;

export const TaskLevel = z.enum(['easy', 'medium', 'hard']);
export type TaskLevel = z.infer<typeof TaskLevel>;

/** Level from a reference length, as Online-Mind2Web defines it: easy 2-5 steps, medium 6-10, hard 11+. */
export function levelFromReferenceLength(n: number): TaskLevel {
  return n <= 5 ? 'easy' : n <= 10 ? 'medium' : 'hard';
}

export const RubricItem = z.object({
  criterion: z.string(),
  description: z.string().default(''),
  maxPoints: z.number().nonnegative(),
  condition: z.string().optional(),
});
export type RubricItem = z.infer<typeof RubricItem>;

/**
 * How a task is verified. Agents never see this: it is for judges and verifiers only.
 * - world: the offline world's programmatic verifier for `template` with `params`.
 * - answer: a reference answer (WebVoyager golden/possible answers).
 * - rubric: WebTailBench rubric items.
 * - judge: no reference; an LLM judge decides.
 * - miniwob: the MiniWoB++ page reports its own raw reward.
 */
export const VerifierSpec = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('world'),
    template: z.string(),
    params: z.record(z.string(), z.unknown()),
  }),
  z.object({ kind: z.literal('answer'), reference: z.string(), answerType: z.string().optional() }),
  z.object({ kind: z.literal('rubric'), items: z.array(RubricItem) }),
  z.object({ kind: z.literal('judge') }),
  z.object({ kind: z.literal('miniwob'), env: z.string() }),
]);
export type VerifierSpec = z.infer<typeof VerifierSpec>;

/** A browsing task: an objective to reach from a start URL, and how success is checked. */
export const Task = z.object({
  schemaVersion: z.literal(TASK_SCHEMA_VERSION).default(TASK_SCHEMA_VERSION),
  id: z.string().min(1),
  suite: SuiteName,
  site: z.string().min(1),
  objective: z.string().min(1),
  startUrl: z.string().min(1),
  level: TaskLevel.optional(),
  split: z.enum(['train', 'test']).optional(),
  /** Steps a reference solution takes, when known. */
  referenceLength: z.number().int().positive().optional(),
  category: z.string().optional(),
  verifier: VerifierSpec,
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type Task = z.infer<typeof Task>;
export type TaskInput = z.input<typeof Task>;

/** What an agent is allowed to know about a task: never the verifier, the reference or the meta. */
export type AgentTask = Pick<Task, 'id' | 'objective' | 'startUrl' | 'site'>;

/** Strips a task to what an agent may see. */
export function agentView(task: Task): AgentTask {
  return { id: task.id, objective: task.objective, startUrl: task.startUrl, site: task.site };
}
