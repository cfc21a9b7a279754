import { OPTIONS } from './options.ts';

/**
 * The two gates of Salvage-DS. A group of rewards for one critical state is worth a policy-gradient
 * update only when it has contrast (the samples differ enough to say which is better) and
 * competence (at least one sample is actually right); otherwise the policy-gradient signal is noise
 * or absent, and the state is routed to the salvage loss instead.
 */

/** Default minimum reward spread (max - min) for the contrast gate. */
export const DEFAULT_CONTRAST_DELTA = OPTIONS['salvage-ds'].contrastDelta;
/** Default minimum best reward for the competence gate. */
export const DEFAULT_COMPETENCE_TAU = OPTIONS['salvage-ds'].competenceTau;

/** Reward contrast: max - min >= delta. An empty group fails. */
export function contrastGate(rewards: readonly number[], delta = DEFAULT_CONTRAST_DELTA): boolean {
  if (rewards.length === 0) return false;
  return Math.max(...rewards) - Math.min(...rewards) >= delta;
}

/** Competence: the best sample scores at least tau. An empty group fails. */
export function competenceGate(rewards: readonly number[], tau = DEFAULT_COMPETENCE_TAU): boolean {
  if (rewards.length === 0) return false;
  return Math.max(...rewards) >= tau;
}
