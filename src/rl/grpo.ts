import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { StudentPolicy } from '../policy/types.ts';
import { clipFraction, clippedSurrogate, meanOverParts, partLogProbRows } from './clipped-surrogate.ts';
import type { RlExample } from './critical-data.ts';
import { withDefaults } from './defaults.ts';
import { competenceGate, contrastGate } from './gates.ts';
import { groupAdvantages, groupStats } from './group-advantage.ts';
import { k3, meanTeacherForcedKl } from './kl.ts';
import { emptyMetrics, METRICS, mean, type RlResult, type StepMetrics } from './metrics.ts';
import { OPTIONS } from './options.ts';
import { polarizedReward } from './reward/polarized.ts';
import type { RewardFn } from './reward/types.ts';
import { ExampleStream, sampleGroups } from './rollouts.ts';

/**
 * GRPO (DeepSeekMath): group-relative policy optimization, the baseline Salvage-DS builds on.
 *
 * For each state, sample a group of G actions, score them, and use group-normalized rewards as
 * advantages in a PPO clipped surrogate, with a k3 KL to the frozen starting policy. No gates and no
 * salvage: a group whose rewards are all equal gets zero advantages and contributes no gradient, but
 * still counts in the mean (so such groups dilute the step). Ratios are per sub-decision, averaged
 * within each action (GRPO's 1/|o_i| sum over tokens), then over actions.
 */

// ================================================================================== options

export interface GrpoOptions {
  /** Optimizer steps. Default 50. */
  steps?: number;
  /** States per step. Default 8. */
  batchSize?: number;
  /** G, actions sampled per state. Default 8. */
  groupSize?: number;
  /** Sampling temperature. Default 1. */
  temperature?: number;
  /** Adam learning rate. Default 1e-3. */
  lr?: number;
  /** PPO clip epsilon (symmetric). Default 0.2. */
  clipEps?: number;
  /**
   * Weight of the k3 KL to the frozen starting policy. Default 0.001, the same as Salvage-DS's
   * policy-gradient branch so the comparison isolates gates and salvage (the GRPO paper used 0.04).
   */
  beta?: number;
  /** Gradient steps per sampled batch. Default 1. */
  updateEpochs?: number;
  /** Seeds state order and sampling. Default 0. */
  seed?: number;
  /** Reward of a sampled action against the ground truth. Default: polarized. */
  reward?: RewardFn;
  /** Called after every step with that step's metrics. */
  onMetrics?: (m: StepMetrics) => void;
}

export const GRPO_DEFAULTS = OPTIONS.grpo;

// =============================================================================== training loop

/** Trains `policy` in place with GRPO. */
export function trainGrpo<P extends StudentPolicy>(
  policy: P,
  examples: readonly RlExample[],
  options: GrpoOptions = {},
): RlResult<P> {
  const o = withDefaults(GRPO_DEFAULTS, options);
  const reward = options.reward ?? polarizedReward();
  const started = Date.now();
  const rng = new Rng(o.seed);
  const stream = new ExampleStream(examples.length, rng.fork('data'));
  const sampleRng = rng.fork('sample');
  const reference = policy.clone();
  const vars = policy.trainableVariables();
  const optimizer = tf.train.adam(o.lr);
  const metrics: StepMetrics[] = [];
  let rolloutsTotal = 0;

  try {
    for (let step = 1; step <= o.steps; step++) {
      const picked = stream.take(o.batchSize).map((i) => examples[i]);
      const m = emptyMetrics(step);
      const diag = meanTeacherForcedKl(
        policy,
        reference,
        picked.map((e) => e.state),
        picked.map((e) => e.truth),
      );
      m[METRICS.klRef] = diag.kl;
      m[METRICS.unrepresentableTruth] = diag.representable.filter((r) => !r).length / picked.length;

      // ---- rollouts and group-relative advantages
      const groups = sampleGroups(policy, picked, o.groupSize, {
        temperature: o.temperature,
        rng: sampleRng,
        reward,
      });
      rolloutsTotal += picked.length * o.groupSize;
      m[METRICS.rolloutsSampled] = picked.length * o.groupSize;
      m[METRICS.rolloutsTotal] = rolloutsTotal;
      m[METRICS.meanReward] = mean(groups.flatMap((g) => g.rewards));
      // gates are not used by GRPO; logged so the ablation can compare what the groups looked like
      m[METRICS.contrastGatePass] = mean(groups.map((g) => (contrastGate(g.rewards) ? 1 : 0)));
      m[METRICS.competenceGatePass] = mean(groups.map((g) => (competenceGate(g.rewards) ? 1 : 0)));
      m[METRICS.zeroVarianceShare] = mean(groups.map((g) => (groupStats(g.rewards).std === 0 ? 1 : 0)));
      m[METRICS.groupsTrained] = groups.length;
      const advantages = groups.flatMap((g) => groupAdvantages(g.rewards));

      // ---- constants of the loss: sampling-time and reference log-probs per sub-decision
      const samples = groups.flatMap((g) => g.samples);
      const actions = samples.map((s) => s.action);
      const batch = policy.encode(groups.flatMap((g) => g.samples.map(() => g.example.state)));
      const old = partLogProbRows(samples);
      const ref = tf.tidy(() => reference.forward(batch, actions).partLogProbs);
      const adv = tf.tensor2d(advantages, [advantages.length, 1]);

      // ---- the update: clipped surrogate + beta * k3 KL, mean over sub-decisions then actions
      try {
        for (let epoch = 0; epoch < o.updateEpochs; epoch++) {
          const cost = optimizer.minimize(
            () => {
              const f = policy.forward(batch, actions);
              const surrogate = meanOverParts(
                clippedSurrogate(f.partLogProbs, old, adv, o.clipEps, o.clipEps),
                f.partMask,
              );
              const policyLoss = tf.neg(tf.mean(surrogate));
              const kl = tf.mul(o.beta, tf.mean(meanOverParts(k3(f.partLogProbs, ref), f.partMask)));
              m[METRICS.policyLoss] = policyLoss.dataSync()[0];
              m[METRICS.kl] = kl.dataSync()[0];
              m[METRICS.clipFraction] = clipFraction(f.partLogProbs, old, o.clipEps, o.clipEps, f.partMask);
              return tf.add(policyLoss, kl) as tf.Scalar;
            },
            true,
            vars,
          );
          m[METRICS.total] = cost?.dataSync()[0] ?? 0;
          cost?.dispose();
        }
      } finally {
        batch.dispose();
        tf.dispose([old, ref, adv]);
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
