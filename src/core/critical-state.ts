import { z } from 'zod';
import { Action } from './action.ts';
import { Observation } from './observation.ts';
import { Task } from './task.ts';
import { EndReason } from './trajectory.ts';

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
 * What a causal check (`rmsweb mine --verify`) found for a critical state: replaying the success
 * side's actions to the state, then branching on the success action and on the failure action with
 * the same continuation policy.
 * - confirmed: the success branch succeeds and the failure branch fails;
 * - not-causal: both branches end the same way (or the failure branch alone succeeds);
 * - replay-failed: the prefix did not reproduce the recorded state.
 */
export const VerificationLabel = z.enum(['confirmed', 'not-causal', 'replay-failed']);
export type VerificationLabel = z.infer<typeof VerificationLabel>;

/** One branch of a verification: the action taken at the state, then the continuation, and the verdict. */
export const VerificationBranch = z.object({
  /** The action executed at the state (the failure side's is mapped onto the replayed page). */
  action: Action,
  /** False when the failure action's element has no counterpart on the replayed page (it then fails as a no-op). */
  applicable: z.boolean().default(true),
  success: z.boolean(),
  score: z.number().min(0).max(1).default(0),
  reason: z.string().default(''),
  endReason: EndReason,
  /** Steps after the state, the branch action first: the page URL and the action, formatted. */
  steps: z.array(z.object({ url: z.string(), action: z.string() })).default([]),
  wallMs: z.number().nonnegative().default(0),
});
export type VerificationBranch = z.infer<typeof VerificationBranch>;

export const CriticalVerification = z.object({
  label: VerificationLabel,
  /** One sentence on why this label. */
  reason: z.string().default(''),
  /** Comparability total between the replayed and the recorded state, and the threshold it had to reach. */
  replay: z.object({
    reproduced: z.boolean(),
    comparability: z.number().min(0).max(1),
    threshold: z.number().min(0).max(1),
    detail: z.string().default(''),
  }),
  success: VerificationBranch.nullable().default(null),
  failure: VerificationBranch.nullable().default(null),
  /** The continuation policy (e.g. `heuristic`) and how many notes it read. */
  policy: z.string(),
  notes: z.number().int().nonnegative().default(0),
  worldSeed: z.number().int().optional(),
  perturbSeed: z.number().int().min(0).default(0),
  /** Episodes run for this state (branches shared with another state count for the first). */
  episodes: z.number().int().nonnegative().default(0),
  wallMs: z.number().nonnegative().default(0),
  verifiedAt: z.string(),
});
export type CriticalVerification = z.infer<typeof CriticalVerification>;

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
  /** The causal check's outcome, when the state was verified (`rmsweb mine --verify`). */
  verification: CriticalVerification.optional(),
});
export type CriticalState = z.infer<typeof CriticalState>;
