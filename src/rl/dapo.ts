import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { StudentPolicy } from '../policy/types.ts';
import { clipFraction, clippedSurrogate, partLogProbRows } from './clipped-surrogate.ts';
import type { RlExample } from './critical-data.ts';
import { withDefaults } from './defaults.ts';
import { competenceGate, contrastGate } from './gates.ts';
import { groupAdvantages, groupStats } from './group-advantage.ts';
import { meanTeacherForcedKl } from './kl.ts';
import { emptyMetrics, METRICS, mean, type RlResult, type StepMetrics } from './metrics.ts';
import { OPTIONS } from './options.ts';
import { polarizedReward } from './reward/polarized.ts';
import type { RewardFn } from './reward/types.ts';
import { ExampleStream, type RolloutGroup, sampleGroups } from './rollouts.ts';

/**
 * DAPO (Yu et al. 2025), the strongest GRPO-family baseline, on the same data and reward:
 *  - clip-higher: asymmetric clip range [1 - 0.2, 1 + 0.28], so unlikely-but-good actions can grow;
 *  - dynamic sampling: groups whose rewards are all equal (zero variance, no signal) are dropped and
 *    the batch is refilled by sampling more states, up to a number of refill rounds;
 *  - token-level loss: the surrogate is averaged over every sub-decision of every action in the batch
 *    (an action's type, element and argument choices are its tokens), not per action first;
 *  - no KL term.
 * Overlong reward shaping does not apply: an action is at most three sub-decisions.
 */

// ================================================================================== options

export interface DapoOptions {
  /** Optimizer steps. Default 50. */
  steps?: number;
  /** Groups with signal wanted per step. Default 8. */
  batchSize?: number;
  /** G, actions sampled per state. Default 8. */
  groupSize?: number;
  /** Sampling temperature. Default 1. */
  temperature?: number;
  /** Adam learning rate. Default 1e-3. */
  lr?: number;
  /** Lower clip epsilon. Default 0.2. */
  clipLow?: number;
  /** Upper clip epsilon (clip-higher). Default 0.28. */
  clipHigh?: number;
  /** Extra sampling rounds to refill the batch after dropping zero-variance groups. Default 3. */
  maxRefills?: number;
  /** Gradient steps per sampled batch. Default 1. */
  updateEpochs?: number;
  /** Seeds state order and sampling. Default 0. */
  seed?: number;
  /** Reward of a sampled action against the ground truth. Default: polarized. */
  reward?: RewardFn;
  /** Called after every step with that step's metrics. */
  onMetrics?: (m: StepMetrics) => void;
}

export const DAPO_DEFAULTS = OPTIONS.dapo;

// =============================================================================== training loop

/** Trains `policy` in place with DAPO. */
export function trainDapo<P extends StudentPolicy>(
  policy: P,
  examples: readonly RlExample[],
  options: DapoOptions = {},
): RlResult<P> {
  const o = withDefaults(DAPO_DEFAULTS, options);
  const reward = options.reward ?? polarizedReward();
  const started = Date.now();
  const rng = new Rng(o.seed);
  const stream = new ExampleStream(examples.length, rng.fork('data'));
  const sampleRng = rng.fork('sample');
  const reference = policy.clone(); // diagnostics only (charts/kl_ref): DAPO has no KL term
  const vars = policy.trainableVariables();
  const optimizer = tf.train.adam(o.lr);
  const metrics: StepMetrics[] = [];
  let rolloutsTotal = 0;

  try {
    for (let step = 1; step <= o.steps; step++) {
      const m = emptyMetrics(step);

      // ---- dynamic sampling: keep groups with reward variance, refill from further states
      const kept: RolloutGroup[] = [];
      const seen: RolloutGroup[] = [];
      let refills = 0;
      for (let round = 0; round <= o.maxRefills && kept.length < o.batchSize; round++) {
        const picked = stream.take(o.batchSize - kept.length).map((i) => examples[i]);
        const groups = sampleGroups(policy, picked, o.groupSize, {
          temperature: o.temperature,
          rng: sampleRng,
          reward,
        });
        seen.push(...groups);
        kept.push(...groups.filter((g) => groupStats(g.rewards).std > 0));
        refills = round;
      }
      const sampled = seen.length * o.groupSize;
      rolloutsTotal += sampled;
      m[METRICS.rolloutsSampled] = sampled;
      m[METRICS.rolloutsTotal] = rolloutsTotal;
      m[METRICS.refillRounds] = refills;
      m[METRICS.groupsTrained] = kept.length;
      m[METRICS.meanReward] = mean(seen.flatMap((g) => g.rewards));
      m[METRICS.zeroVarianceShare] = mean(seen.map((g) => (groupStats(g.rewards).std === 0 ? 1 : 0)));
      m[METRICS.contrastGatePass] = mean(seen.map((g) => (contrastGate(g.rewards) ? 1 : 0)));
      m[METRICS.competenceGatePass] = mean(seen.map((g) => (competenceGate(g.rewards) ? 1 : 0)));
      const diag = meanTeacherForcedKl(
        policy,
        reference,
        seen.map((g) => g.example.state),
        seen.map((g) => g.example.truth),
      );
      m[METRICS.klRef] = diag.kl;
      m[METRICS.unrepresentableTruth] = mean(diag.representable.map((r) => (r ? 0 : 1)));

      // ---- the update: token-level clipped surrogate with clip-higher, no KL
      if (kept.length > 0) {
        const samples = kept.flatMap((g) => g.samples);
        const actions = samples.map((s) => s.action);
        const advantages = kept.flatMap((g) => groupAdvantages(g.rewards));
        const batch = policy.encode(kept.flatMap((g) => g.samples.map(() => g.example.state)));
        const old = partLogProbRows(samples);
        const adv = tf.tensor2d(advantages, [advantages.length, 1]);
        try {
          for (let epoch = 0; epoch < o.updateEpochs; epoch++) {
            const cost = optimizer.minimize(
              () => {
                const f = policy.forward(batch, actions);
                const surrogate = clippedSurrogate(f.partLogProbs, old, adv, o.clipLow, o.clipHigh);
                // every sub-decision of every action weighs the same: sum over all, divided by their count
                const loss = tf.neg(
                  tf.div(tf.sum(tf.mul(surrogate, f.partMask)), tf.maximum(tf.sum(f.partMask), 1)),
                ) as tf.Scalar;
                m[METRICS.policyLoss] = loss.dataSync()[0];
                m[METRICS.clipFraction] = clipFraction(
                  f.partLogProbs,
                  old,
                  o.clipLow,
                  o.clipHigh,
                  f.partMask,
                );
                return loss;
              },
              true,
              vars,
            );
            m[METRICS.total] = cost?.dataSync()[0] ?? 0;
            cost?.dispose();
          }
        } finally {
          batch.dispose();
          tf.dispose([old, adv]);
        }
      }
      metrics.push(m);
      options.onMetrics?.(m);
    }
  } finally {
    reference.dispose();
    optimizer.dispose();
  }
  return { policy, metrics, rolloutsSampled: rolloutsTotal, wallMs: Date.now() - started };
}
