import * as tf from '@tensorflow/tfjs';
import type { Action } from '../core/action.ts';
import { Rng } from '../core/rng.ts';
import type { EncodedBatch, PolicyForward, StudentPolicy } from '../policy/types.ts';
import { clipFraction, clippedSurrogate, meanOverParts, partLogProbRows } from './clipped-surrogate.ts';
import type { RlExample } from './critical-data.ts';
import { withDefaults } from './defaults.ts';
import { competenceGate, contrastGate } from './gates.ts';
import { groupAdvantages, groupStats } from './group-advantage.ts';
import { k3, meanTeacherForcedKl, teacherForcedKl } from './kl.ts';
import { emptyMetrics, METRICS, mean, type RlResult, type StepMetrics } from './metrics.ts';
import { OPTIONS } from './options.ts';
import { polarizedReward } from './reward/polarized.ts';
import type { RewardFn } from './reward/types.ts';
import { ExampleStream, type RolloutGroup, sampleGroups } from './rollouts.ts';

/**
 * Salvage-DS: offline group-relative RL on critical states, with two gates and a salvage anchor.
 *
 * For each critical state, sample a group of G actions from the current policy and score each
 * against the ground-truth action (polarized reward by default). A group passing both gates -
 * contrast (max - min >= delta) and competence (max >= tau) - gets group-normalized advantages and a
 * PPO clipped surrogate, plus a k3 KL to the frozen starting policy. A group failing either gate is
 * not thrown away: its state goes to the salvage loss, cross-entropy on the ground-truth action plus
 * beta_brake times KL(current || frozen start). The brake is the exact per-head KL under teacher
 * forcing on the ground-truth prefix (type head, element head given the true type, argument head given
 * both): no sampling noise, exactly 0 with zero gradient at the start, and it keeps supervised pulls on
 * hard states from dragging the rest of the distribution away from where it started.
 * Every group weighs the same in the step's loss, whichever branch it took; the clipped surrogate uses
 * per-sub-decision ratios against the sampling-time log-probs, averaged within each action.
 * A failing group whose ground truth the policy cannot express (charts/unrepresentable_truth) is dropped.
 */

// ================================================================================== options

export interface SalvageDsOptions {
  /** Optimizer steps. Default 50. */
  steps?: number;
  /** Critical states per step. Default 8. */
  batchSize?: number;
  /** G, actions sampled per state. Default 8. */
  groupSize?: number;
  /** Sampling temperature; 1 samples the policy's own distribution. Default 1. */
  temperature?: number;
  /** Adam learning rate. Default 1e-3. */
  lr?: number;
  /** PPO clip epsilon (symmetric). Default 0.2. */
  clipEps?: number;
  /** Weight of the k3 KL to the frozen reference on policy-gradient groups. Default 0.001. */
  beta?: number;
  /** Weight of the exact KL to the frozen starting policy on salvage groups (the brake). Default 0.1. */
  betaBrake?: number;
  /** Contrast gate: a group needs max - min reward >= this. Default 0.5. */
  contrastDelta?: number;
  /** Competence gate: a group needs max reward >= this. Default 0.5. */
  competenceTau?: number;
  /** Route gate-failing groups to the salvage loss; false drops them (the "no salvage" ablation). Default true. */
  salvage?: boolean;
  /** Gradient steps per sampled batch; above 1 the clip becomes active. Default 1. */
  updateEpochs?: number;
  /** Seeds the state order and the sampling: same seed, data and policy give the same run. Default 0. */
  seed?: number;
  /** Scores a sampled action against the ground truth. Default: the polarized reward. */
  reward?: RewardFn;
  /** Called after every step with that step's metrics. */
  onMetrics?: (m: StepMetrics) => void;
}

export const SALVAGE_DS_DEFAULTS = OPTIONS['salvage-ds'];

// ============================================================================= loss of one step

type HeadLogProbs = Pick<PolicyForward, 'typeLogProbs' | 'elementLogProbs' | 'argLogProbs'>;

/** The rows of one step, split by the gates. Tensors here are constants (no gradient). */
export interface SalvageDsRows {
  /** Every sample of every group that passed both gates. */
  pg?: {
    batch: EncodedBatch;
    actions: Action[];
    /** [N, 3] sampling-time log-prob of each sub-decision. */
    oldPartLogProbs: tf.Tensor2D;
    /** [N, 3] the frozen reference's log-prob of each sub-decision. */
    refPartLogProbs: tf.Tensor2D;
    /** [N, 1] group-normalized advantage of each sample. */
    advantages: tf.Tensor2D;
    groups: number;
  };
  /** The ground-truth action of every gate-failing group whose truth the policy can express. */
  salvage?: { batch: EncodedBatch; truths: Action[]; ref: HeadLogProbs; groups: number };
}

export interface SalvageDsLoss {
  total: tf.Scalar;
  /** Mean clipped-surrogate loss over policy-gradient rows (0 without any). */
  policy: tf.Scalar;
  /** Mean cross-entropy of the ground truth over salvage rows (0 without any). */
  salvageCe: tf.Scalar;
  /** The weighted KL penalty included in total. */
  kl: tf.Scalar;
  clipFraction: number;
}

/** The Salvage-DS loss of one step (differentiable in the policy's variables). */
export function salvageDsLoss(
  policy: StudentPolicy,
  rows: SalvageDsRows,
  o: { clipEps: number; beta: number; betaBrake: number },
): SalvageDsLoss {
  const zero = tf.scalar(0);
  const nPg = rows.pg?.groups ?? 0;
  const nSalvage = rows.salvage?.groups ?? 0;
  const n = nPg + nSalvage;
  let policyLoss: tf.Scalar = zero;
  let pgKl: tf.Scalar = zero;
  let salvageCe: tf.Scalar = zero;
  let brakeKl: tf.Scalar = zero;
  let clipFrac = 0;
  if (rows.pg && nPg > 0) {
    // Per-sub-decision ratios, averaged over each action's sub-decisions, then over actions (GRPO's form).
    const f = policy.forward(rows.pg.batch, rows.pg.actions);
    const surrogate = clippedSurrogate(
      f.partLogProbs,
      rows.pg.oldPartLogProbs,
      rows.pg.advantages,
      o.clipEps,
      o.clipEps,
    );
    policyLoss = tf.neg(tf.mean(meanOverParts(surrogate, f.partMask)));
    pgKl = tf.mean(meanOverParts(k3(f.partLogProbs, rows.pg.refPartLogProbs), f.partMask));
    clipFrac = clipFraction(f.partLogProbs, rows.pg.oldPartLogProbs, o.clipEps, o.clipEps, f.partMask);
  }
  if (rows.salvage && nSalvage > 0) {
    const f = policy.forward(rows.salvage.batch, rows.salvage.truths);
    salvageCe = tf.neg(tf.mean(f.logProbs));
    brakeKl = tf.mean(teacherForcedKl(f, rows.salvage.ref));
  }
  // Each group weighs 1/n: a policy-gradient group through its G samples, a salvage group through its truth.
  const wPg = n ? nPg / n : 0;
  const wSalvage = n ? nSalvage / n : 0;
  const kl = tf.add(tf.mul(wPg * o.beta, pgKl), tf.mul(wSalvage * o.betaBrake, brakeKl)) as tf.Scalar;
  const total = tf.addN([tf.mul(wPg, policyLoss), tf.mul(wSalvage, salvageCe), kl]) as tf.Scalar;
  return { total, policy: policyLoss, salvageCe, kl, clipFraction: clipFrac };
}

// =============================================================================== training loop

/** Trains `policy` in place with Salvage-DS on (state, ground truth) examples. */
export function trainSalvageDs<P extends StudentPolicy>(
  policy: P,
  examples: readonly RlExample[],
  options: SalvageDsOptions = {},
): RlResult<P> {
  const o = withDefaults(SALVAGE_DS_DEFAULTS, options);
  const reward = options.reward ?? polarizedReward();
  const started = Date.now();

  // ---- seeded generators, frozen reference, optimizer
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

      // ---- diagnostics before the update: KL to the start, which truths the policy can express
      const diag = meanTeacherForcedKl(
        policy,
        reference,
        picked.map((e) => e.state),
        picked.map((e) => e.truth),
      );
      m[METRICS.klRef] = diag.kl;
      m[METRICS.unrepresentableTruth] = diag.representable.filter((r) => !r).length / picked.length;

      // ---- rollouts: G actions per state, scored against the ground truth
      const groups = sampleGroups(policy, picked, o.groupSize, {
        temperature: o.temperature,
        rng: sampleRng,
        reward,
      });
      rolloutsTotal += picked.length * o.groupSize;
      m[METRICS.rolloutsSampled] = picked.length * o.groupSize;
      m[METRICS.rolloutsTotal] = rolloutsTotal;

      // ---- the two gates
      const contrast = groups.map((g) => contrastGate(g.rewards, o.contrastDelta));
      const competence = groups.map((g) => competenceGate(g.rewards, o.competenceTau));
      const passing = groups.filter((_, i) => contrast[i] && competence[i]);
      const failing = groups.filter((_, i) => !(contrast[i] && competence[i]));
      const salvaged = o.salvage ? failing.filter((g) => diag.representable[picked.indexOf(g.example)]) : [];
      m[METRICS.meanReward] = mean(groups.flatMap((g) => g.rewards));
      m[METRICS.contrastGatePass] = contrast.filter(Boolean).length / groups.length;
      m[METRICS.competenceGatePass] = competence.filter(Boolean).length / groups.length;
      m[METRICS.salvageShare] = salvaged.length / groups.length;
      m[METRICS.groupsTrained] = passing.length + salvaged.length;
      m[METRICS.zeroVarianceShare] =
        groups.filter((g) => groupStats(g.rewards).std === 0).length / groups.length;

      // ---- the update: clipped surrogate on passing groups, salvage loss on failing ones
      if (passing.length + salvaged.length > 0) {
        const rows = buildRows(policy, reference, passing, salvaged);
        try {
          for (let epoch = 0; epoch < o.updateEpochs; epoch++) {
            const cost = optimizer.minimize(
              () => {
                const loss = salvageDsLoss(policy, rows, o);
                m[METRICS.policyLoss] = loss.policy.dataSync()[0];
                m[METRICS.salvageCe] = loss.salvageCe.dataSync()[0];
                m[METRICS.kl] = loss.kl.dataSync()[0];
                m[METRICS.clipFraction] = loss.clipFraction;
                return loss.total;
              },
              true,
              vars,
            );
            m[METRICS.total] = cost?.dataSync()[0] ?? 0;
            cost?.dispose();
          }
        } finally {
          disposeRows(rows);
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

// =================================================================================== plumbing

/** Encodes the step's rows and computes the constants the loss needs (old and reference log-probs). */
export function buildRows(
  policy: StudentPolicy,
  reference: StudentPolicy,
  passing: readonly RolloutGroup[],
  salvaged: readonly RolloutGroup[],
): SalvageDsRows {
  const rows: SalvageDsRows = {};
  if (passing.length) {
    const states = passing.flatMap((g) => g.samples.map(() => g.example.state));
    const actions = passing.flatMap((g) => g.samples.map((s) => s.action));
    const batch = policy.encode(states);
    const advantages = passing.flatMap((g) => groupAdvantages(g.rewards));
    rows.pg = {
      batch,
      actions,
      oldPartLogProbs: partLogProbRows(passing.flatMap((g) => g.samples)),
      refPartLogProbs: tf.tidy(() => reference.forward(batch, actions).partLogProbs),
      advantages: tf.tensor2d(advantages, [advantages.length, 1]),
      groups: passing.length,
    };
  }
  if (salvaged.length) {
    const truths = salvaged.map((g) => g.example.truth);
    const batch = policy.encode(salvaged.map((g) => g.example.state));
    const ref = tf.tidy(() => {
      const f = reference.forward(batch, truths);
      return { typeLogProbs: f.typeLogProbs, elementLogProbs: f.elementLogProbs, argLogProbs: f.argLogProbs };
    });
    rows.salvage = { batch, truths, ref, groups: salvaged.length };
  }
  return rows;
}

/** Frees the tensors held by a step's rows. */
export function disposeRows(rows: SalvageDsRows): void {
  if (rows.pg) {
    rows.pg.batch.dispose();
    tf.dispose([rows.pg.oldPartLogProbs, rows.pg.refPartLogProbs, rows.pg.advantages]);
  }
  if (rows.salvage) {
    rows.salvage.batch.dispose();
    tf.dispose([
      rows.salvage.ref.typeLogProbs,
      rows.salvage.ref.elementLogProbs,
      rows.salvage.ref.argLogProbs,
    ]);
  }
}
