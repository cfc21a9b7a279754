import type { Action } from '../../core/action.ts';
import type { Observation } from '../../core/observation.ts';

/**
 * Scores one sampled action against the ground-truth action of a state. `sampled` is undefined when
 * the policy's output could not be parsed into an action. `obs` is the state both actions refer to
 * (element indices resolve in it).
 */
export type RewardFn = (sampled: Action | undefined, truth: Action, obs: Observation) => number;
