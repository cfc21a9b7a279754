/**
 * Stable metric names (cleanrl style): the viewer plots them and the ablation table reads them, so a
 * name never changes meaning. `charts/` are diagnostics, `losses/` are the terms of the loss actually
 * minimized at that step (0 when a term had no rows).
 */
export const METRICS = {
  /** Mean reward over every sampled action of the step. */
  meanReward: 'charts/mean_reward',
  /** Share of groups passing the contrast gate (max - min >= delta); computed by every algorithm. */
  contrastGatePass: 'charts/contrast_gate_pass',
  /** Share of groups passing the competence gate (max >= tau); computed by every algorithm. */
  competenceGatePass: 'charts/competence_gate_pass',
  /** Share of the step's groups routed to the salvage loss (Salvage-DS only; else 0). */
  salvageShare: 'charts/salvage_share',
  /** DAPO: extra sampling rounds used to refill the batch after dropping zero-variance groups. */
  refillRounds: 'charts/refill_rounds',
  /** Groups that contributed to the loss this step (policy-gradient plus salvage). */
  groupsTrained: 'charts/groups_trained',
  /** Share of groups whose rewards were all equal (no signal for group-relative advantages). */
  zeroVarianceShare: 'charts/zero_variance_share',
  /** Share of policy-gradient terms whose ratio was outside the clip range. */
  clipFraction: 'charts/clip_fraction',
  /** Exact teacher-forced KL(current || frozen start) on the step's ground-truth actions, before the update. */
  klRef: 'charts/kl_ref',
  /** Actions sampled at this step (DAPO counts its refills). */
  rolloutsSampled: 'charts/rollouts_sampled',
  /** Actions sampled since the start of the run. */
  rolloutsTotal: 'charts/rollouts_total',
  /** Share of the step's ground-truth actions the policy cannot express (skipped by supervised terms). */
  unrepresentableTruth: 'charts/unrepresentable_truth',
  /** Clipped-surrogate loss (negated objective) on policy-gradient rows. */
  policyLoss: 'losses/policy',
  /** Cross-entropy of the ground-truth action on salvage rows. */
  salvageCe: 'losses/salvage_ce',
  /** The KL penalty actually added to the loss (k3 on policy-gradient rows, braked KL on salvage rows), weighted. */
  kl: 'losses/kl',
  /** The total loss minimized. */
  total: 'losses/total',
} as const;

export type MetricName = (typeof METRICS)[keyof typeof METRICS];

/** One step's metrics: every stable name, plus the step number (1-based). */
export type StepMetrics = { step: number } & Record<MetricName, number>;

/** A metrics record with every name present and 0. */
export function emptyMetrics(step: number): StepMetrics {
  const m = { step } as StepMetrics;
  for (const name of Object.values(METRICS)) m[name] = 0;
  return m;
}

/** Mean of a list (0 when empty), for per-step aggregates. */
export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : 0;
}

/** What every RL algorithm returns. */
export interface RlResult<P> {
  /** The trained policy (the one passed in, trained in place). */
  policy: P;
  /** One record per optimizer step, in order. */
  metrics: StepMetrics[];
  /** Actions sampled over the whole run (the RL cost the ablation table reports). */
  rolloutsSampled: number;
  /** Wall-clock duration of the training loop. */
  wallMs: number;
}
