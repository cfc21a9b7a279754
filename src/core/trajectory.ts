import { z } from 'zod';
import { Action } from './action.ts';
import { ActionErrorKind } from './action-error.ts';
import { AgentOutput } from './agent-output.ts';
import { Observation } from './observation.ts';
import { Task } from './task.ts';

export const TRAJECTORY_SCHEMA_VERSION = 1;

/** The outcome of executing one action. */
export const ActionResult = z.object({
  /** Error message when the action failed; it also appears as lastActionError in the next observation. */
  error: z.string().nullable().default(null),
  /** The kind of `error`: read this, never the message (absent in records written before kinds existed). */
  errorKind: ActionErrorKind.optional(),
  isDone: z.boolean().default(false),
  success: z.boolean().nullable().default(null),
  /** Final answer text for done actions. */
  extractedContent: z.string().nullable().default(null),
});
export type ActionResult = z.infer<typeof ActionResult>;

export const Usage = z.object({
  promptTokens: z.number().int().nonnegative().default(0),
  completionTokens: z.number().int().nonnegative().default(0),
  costUsd: z.number().nonnegative().default(0),
  calls: z.number().int().nonnegative().default(0),
});
export type Usage = z.infer<typeof Usage>;

export const Step = z.object({
  index: z.number().int().nonnegative(),
  observation: Observation,
  output: AgentOutput,
  /** The action actually executed (the first of output.action). */
  action: Action,
  result: ActionResult,
  timing: z
    .object({
      modelMs: z.number().default(0),
      actMs: z.number().default(0),
      observeMs: z.number().default(0),
    })
    .default({ modelMs: 0, actMs: 0, observeMs: 0 }),
  usage: Usage.optional(),
  /** Log-probability of `action` under the agent's policy, when the agent knows it. */
  logProb: z.number().optional(),
  /**
   * What an expert would have done in this state (DAgger-style relabelling, `rollout --relabel`):
   * the agent's own action is executed, the expert's is recorded as the supervised label.
   */
  expertAction: Action.optional(),
  /** The model's first reply at this step failed its schema and was repaired (LlmAgent). */
  repaired: z.boolean().optional(),
});
export type Step = z.infer<typeof Step>;

export const Verdict = z.object({
  success: z.boolean(),
  /** Partial score in [0, 1], e.g. the share of the task's conditions met. */
  score: z.number().min(0).max(1),
  reason: z.string().default(''),
  verifierId: z.string(),
  /** Machine-readable list of conditions that failed (world verifiers). */
  failedConditions: z.array(z.string()).default([]),
  /** Separate process score (rubric verifiers). */
  processScore: z.number().min(0).max(1).optional(),
});
export type Verdict = z.infer<typeof Verdict>;

export const EndReason = z.enum(['done', 'max_steps', 'loop', 'error', 'timeout', 'aborted']);
export type EndReason = z.infer<typeof EndReason>;

/** One attempt of one agent at one task. */
export const Trajectory = z.object({
  schemaVersion: z.literal(TRAJECTORY_SCHEMA_VERSION).default(TRAJECTORY_SCHEMA_VERSION),
  id: z.string(),
  task: Task,
  agentId: z.string(),
  /** Collection round (0-based); 0 for rollouts and evaluation. */
  round: z.number().int().nonnegative().default(0),
  /** Reflection notes injected into every observation of this attempt. */
  notes: z.array(z.string()).default([]),
  steps: z.array(Step),
  finalAnswer: z.string().nullable().default(null),
  endReason: EndReason,
  endDetail: z.string().default(''),
  verdict: Verdict.nullable().default(null),
  usage: Usage.default({ promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 }),
  /** World session id the episode ran in, when it ran in the offline world. */
  sessionId: z.string().optional(),
  seed: z.number().int().optional(),
  /** World perturbation seed the episode's pages were rendered under (absent: unperturbed). */
  perturbSeed: z.number().int().min(0).optional(),
  startedAt: z.string(),
  endedAt: z.string(),
  /** Free-form tags: 'teacher', 'student', 'eval', run labels. */
  tags: z.array(z.string()).default([]),
});
export type Trajectory = z.infer<typeof Trajectory>;
export type TrajectoryInput = z.input<typeof Trajectory>;

/** Whether a rollout holds an expert's label (`rollout --relabel`): the DAgger exports train on these. */
export function hasExpertLabel(t: Pick<Trajectory, 'steps'>): boolean {
  return t.steps.some((s) => s.expertAction !== undefined);
}
