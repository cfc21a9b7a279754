import type * as tf from '@tensorflow/tfjs';
import type { Action, ActionType } from '../core/action.ts';
import type { Observation } from '../core/observation.ts';
import type { Rng } from '../core/rng.ts';
import type { AgentTask } from '../core/task.ts';

/**
 * The contract between the local student policy (policy/) and the RL algorithms (rl/).
 *
 * The action is factorized into up to three sub-decisions, each a categorical distribution:
 *   1. type      over the action types the policy can emit;
 *   2. element   over the observation's elements (click, input, select_dropdown), conditioned on the type;
 *   3. argument  over text-span candidates (input, select_dropdown, done: spans from the task, memory
 *                and page; scroll: up/down), conditioned on type and element.
 * log p(action) = sum of the log-probs of the sub-decisions it uses.
 */

/** What the policy conditions on: only what any agent may see. */
export interface PolicyState {
  task: AgentTask;
  observation: Observation;
  /** Earlier actions of this episode, oldest first. */
  history: Action[];
  /**
   * The URL each earlier action was taken on (same length as `history`), when known: element
   * indices are per page, so "already clicked / typed into" only holds for actions on this page.
   * Without it every earlier action counts as taken on the current page.
   */
  historyUrls?: string[];
}

/** A sampled action with its exact log-probability and the log-prob of each sub-decision used. */
export interface ActionSample {
  action: Action;
  logProb: number;
  parts: { type: number; element?: number; argument?: number };
}

/** States featurized once, reused across forward passes (RL samples and scores the same states often). */
export interface EncodedBatch {
  readonly size: number;
  readonly states: PolicyState[];
  /** Disposes the tensors the batch holds. */
  dispose(): void;
}

/**
 * Teacher-forced forward pass for a batch of (state, action) pairs. All log-prob tensors are
 * log-softmax outputs (rows sum to 1 in probability over valid entries; invalid entries are a large
 * negative number). Gradients flow through every tensor here.
 */
export interface PolicyForward {
  /** [N, numTypes] */
  typeLogProbs: tf.Tensor2D;
  /** [N, maxElements], conditioned on the given action's type. */
  elementLogProbs: tf.Tensor2D;
  /** [N, maxArgs], conditioned on the given action's type and element. */
  argLogProbs: tf.Tensor2D;
  /** Target indices per row; -1 where the action has no such sub-decision. */
  targets: { type: Int32Array; element: Int32Array; argument: Int32Array };
  /** [N, 3] log-prob of the target in each head (0 where absent); sum over axis 1 = log p(action). */
  partLogProbs: tf.Tensor2D;
  /** [N, 3] 1 where the sub-decision is present, else 0 (for token-level means). */
  partMask: tf.Tensor2D;
  /** [N] log p(action); -Infinity-like (very negative) when the action is not representable. */
  logProbs: tf.Tensor1D;
  /** Per row: false when the action cannot be expressed (e.g. text not among the candidates). */
  representable: boolean[];
}

/** The differentiable student policy the RL algorithms train. */
export interface StudentPolicy {
  readonly id: string;
  /** Action types this policy can emit, in head order. */
  readonly actionTypes: readonly ActionType[];
  encode(states: PolicyState[]): EncodedBatch;
  /** Teacher-forced forward pass; call inside tf.tidy / optimizer.minimize to train. */
  forward(batch: EncodedBatch, actions: Action[]): PolicyForward;
  /** Samples n actions per state (temperature 1 = the policy's own distribution). Not differentiable. */
  sample(batch: EncodedBatch, n: number, opts: { temperature?: number; rng: Rng }): ActionSample[][];
  /** Most likely action per state (greedy decoding of each sub-decision). */
  greedy(batch: EncodedBatch): ActionSample[];
  /** Exact log p(action | state), not differentiable; -Infinity when not representable. */
  logProb(state: PolicyState, action: Action): number;
  /** The trainable variables. */
  trainableVariables(): tf.Variable[];
  /** A deep copy with its own variables (the frozen reference for KL terms). */
  clone(): StudentPolicy;
  save(dir: string): Promise<void>;
  dispose(): void;
}
