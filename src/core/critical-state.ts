import { z } from 'zod';
import { Action } from './action.ts';
import { Observation } from './observation.ts';
import { Task } from './task.ts';

export const CRITICAL_STATE_SCHEMA_VERSION = 1;

export const FailureLabel = z.enum([
  'lookalike-element',
  'wrong-navigation',
  'missed-constraint',
  'input-error',
  'premature-done',
  'repetition-loop',
  'blocked-by-overlay',
  'scroll-stall',
  'other',
]);
export type FailureLabel = z.infer<typeof FailureLabel>;

export const Comparability = z.object({
  url: z.number().min(0).max(1),
  elements: z.number().min(0).max(1),
  memory: z.number().min(0).max(1),
  progress: z.number().min(0).max(1),
  total: z.number().min(0).max(1),
});
export type Comparability = z.infer<typeof Comparability>;

const Side = z.object({
  trajectoryId: z.string(),
  stepIndex: z.number().int().nonnegative(),
  observation: Observation,
  action: Action,
  /** Earlier actions of this side, oldest first, for the policy's history features. */
  history: z.array(Action).default([]),
  /** The page URL each earlier action was taken on (same order), so history facts can be page-scoped. */
  historyUrls: z.array(z.string()).optional(),
});

/**
 * A state where a successful and a failing run of the same task were comparable and chose
 * different actions. Only the success side (observation + ground-truth action) enters RL.
 */
export const CriticalState = z.object({
  schemaVersion: z.literal(CRITICAL_STATE_SCHEMA_VERSION).default(CRITICAL_STATE_SCHEMA_VERSION),
  id: z.string(),
  task: Task,
  success: Side,
  failure: Side,
  comparability: Comparability,
  label: FailureLabel,
  labelSource: z.string(),
  labelReason: z.string().default(''),
});
export type CriticalState = z.infer<typeof CriticalState>;
