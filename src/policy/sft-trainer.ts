import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import { agentView } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import { JsAdam } from './adam.ts';
import { initPolicyBackend } from './backend.ts';
import { evaluateSteps, type StepExample } from './evaluate.ts';
import type { FeaturizerConfig } from './featurizer.ts';
import type { ModelConfig } from './model.ts';
import { labelStep, type SkipReason } from './step-label.ts';
import { trajectoryStepState } from './step-state.ts';
import { LocalStudentPolicy } from './student-policy.ts';

/**
 * Supervised fine-tuning of the local student on verified-success trajectories: every step's
 * (task, observation, earlier actions, memory) -> the executed action, cross-entropy on each
 * sub-decision the action has (type, element, argument), Adam with global-norm clipping.
 */

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

export interface SftOptions {
  /** Passes over the training examples (default 8). */
  epochs?: number;
  /** Examples per gradient step (default 32). */
  batchSize?: number;
  /** Peak Adam learning rate (default 0.004). */
  lr?: number;
  /**
   * The rate decays over the run on a cosine from `lr` to `lr * lrFinal` (default 0.1): the late,
   * small steps settle the sub-decisions that a constant rate keeps knocking back and forth.
   */
  lrFinal?: number;
  /** Seeds weights, the split and the shuffles (default 0). */
  seed?: number;
  /** Share of tasks held out for validation (default 0.1; the split is by task). */
  valFrac?: number;
  /** Gradients are rescaled to at most this global norm (default 5). */
  clipNorm?: number;
  /** Train accuracy is measured greedily on a fixed sample of this many train examples (default 1000; 0: not measured). */
  trainEvalSize?: number;
  model?: Partial<ModelConfig>;
  featurizer?: Partial<FeaturizerConfig>;
  /**
   * Relabelled rollouts (DAgger): their steps train with the expert's action as the label. Their
   * tasks follow the same split; validation keeps measuring the teacher's own trajectories only.
   */
  relabeled?: readonly Trajectory[];
  /** Continue training this policy instead of a fresh one (resume). */
  policy?: LocalStudentPolicy;
  /** Epochs already done (resume): training runs epochs startEpoch+1..epochs. */
  startEpoch?: number;
  /** When set, the checkpoint and metrics.json are written here after every epoch. */
  outDir?: string;
  /** Earlier epochs' metrics (resume), kept in metrics.json. */
  previousEpochs?: EpochMetrics[];
  meta?: Record<string, unknown>;
  onBatch?: (p: { epoch: number; batch: number; batches: number; loss: number }) => void;
  onEpoch?: (m: EpochMetrics) => void;
  /** Called once the data is prepared, before training. */
  onData?: (d: SftDataReport) => void;
}

export interface EpochMetrics {
  epoch: number;
  trainLoss: number;
  trainStepAccuracy: number;
  trainEquivalentAccuracy: number;
  valLoss: number;
  valStepAccuracy: number;
  valEquivalentAccuracy: number;
  /** Training examples per second (featurization, forward, backward and update). */
  examplesPerSecond: number;
  seconds: number;
}

export type { SkipReason } from './step-label.ts';

export interface SftDataReport {
  trajectories: number;
  steps: number;
  examples: number;
  /** Training examples from relabelled rollouts (DAgger), included in `train`. */
  expertExamples: number;
  train: number;
  val: number;
  trainTasks: number;
  valTasks: number;
  /** Examples whose every sub-decision is a target. */
  representable: number;
  /** Examples trained on type (and element) only: the argument is not among the candidates. */
  partial: number;
  /** Done examples whose composed answer was replaced by the candidate span it contains (answer-span.ts). */
  relabeled: number;
  skipped: Record<SkipReason, number>;
}

export interface SftExample extends StepExample {
  taskId: string;
  trajectoryId: string;
  stepIndex: number;
  /** True for a state the student visited, labelled by an expert (DAgger; `expertRelabeledExamples`). */
  expert?: boolean;
}

export interface SftResult {
  policy: LocalStudentPolicy;
  data: SftDataReport;
  epochs: EpochMetrics[];
}

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

/**
 * Every step of the verified-success trajectories as an example. The policy sees what any agent
 * sees: the task (agent view), the observation with its memory (notes stripped) and the earlier
 * actions of the episode.
 */
export function sftExamples(trajectories: readonly Trajectory[]): SftExample[] {
  const out: SftExample[] = [];
  for (const t of trajectories) {
    if (t.verdict?.success !== true) continue;
    const task = agentView(t.task);
    t.steps.forEach((s, i) => {
      out.push({
        state: trajectoryStepState(t, i, task),
        action: s.action,
        taskId: t.task.id,
        trajectoryId: t.id,
        stepIndex: i,
      });
    });
  }
  return out;
}

/**
 * DAgger data: every step of relabelled rollouts (`rollout --relabel`) as an example whose label
 * is the expert's action in the state the student reached, whatever the episode's outcome. These
 * are the states imitation alone never shows (after the student's own mistakes) with what to do
 * there.
 */
export function expertRelabeledExamples(trajectories: readonly Trajectory[]): SftExample[] {
  const out: SftExample[] = [];
  for (const t of trajectories) {
    const task = agentView(t.task);
    t.steps.forEach((s, i) => {
      if (!s.expertAction) return;
      out.push({
        state: trajectoryStepState(t, i, task),
        action: s.expertAction,
        taskId: t.task.id,
        trajectoryId: t.id,
        stepIndex: i,
        expert: true,
      });
    });
  }
  return out;
}

/** Splits examples by task: a seeded `valFrac` share of the tasks (at least one when there are two or more). */
export function splitByTask<T extends { taskId: string }>(
  examples: readonly T[],
  valFrac: number,
  seed: number,
) {
  const tasks = [...new Set(examples.map((e) => e.taskId))].sort();
  const shuffled = new Rng(seed).fork('split').shuffle(tasks);
  const nVal =
    valFrac <= 0 || tasks.length < 2
      ? 0
      : Math.min(tasks.length - 1, Math.max(1, Math.round(valFrac * tasks.length)));
  const valTasks = new Set(shuffled.slice(0, nVal));
  return {
    train: examples.filter((e) => !valTasks.has(e.taskId)),
    val: examples.filter((e) => valTasks.has(e.taskId)),
    trainTasks: tasks.length - nVal,
    valTasks: nVal,
  };
}

/** Keeps the examples the policy can learn from, counting the rest by reason. */
export function filterRepresentable<T extends StepExample>(
  examples: readonly T[],
  featurizer: FeaturizerConfig,
) {
  const skipped: Record<SkipReason, number> = {
    'unsupported-type': 0,
    'gave-up': 0,
    'type-unavailable': 0,
    'element-not-kept': 0,
  };
  let partial = 0;
  let relabeled = 0;
  const kept: T[] = [];
  for (const ex of examples) {
    const l = labelStep(ex.state, ex.action, featurizer);
    if (!l.ok) {
      skipped[l.reason]++;
      continue;
    }
    if (l.relabeled) relabeled++;
    if (l.partial) partial++;
    kept.push(l.action === ex.action ? ex : { ...ex, action: l.action });
  }
  return { kept, skipped, partial, relabeled };
}

// ---------------------------------------------------------------------------------------------
// Training
// ---------------------------------------------------------------------------------------------

function trainStep(
  policy: LocalStudentPolicy,
  optimizer: JsAdam,
  batch: StepExample[],
  clipNorm: number,
): number {
  const encoded = policy.encode(batch.map((e) => e.state));
  try {
    const { value, grads } = tf.variableGrads(() => {
      const f = policy.forward(
        encoded,
        batch.map((e) => e.action),
      );
      return tf.div(tf.neg(tf.sum(tf.mul(f.partLogProbs, f.partMask))), batch.length) as tf.Scalar;
    }, policy.trainableVariables());
    const loss = value.dataSync()[0];
    optimizer.step(grads, clipNorm);
    tf.dispose([value, ...Object.values(grads)]);
    return loss;
  } finally {
    encoded.dispose();
  }
}

/** Trains (or continues training) the student on trajectories; returns it with per-epoch metrics. */
export async function trainSft(
  trajectories: readonly Trajectory[],
  opts: SftOptions = {},
): Promise<SftResult> {
  const epochs = opts.epochs ?? 8;
  const batchSize = opts.batchSize ?? 32;
  const seed = opts.seed ?? 0;
  const clipNorm = opts.clipNorm ?? 5;
  await initPolicyBackend();
  const policy =
    opts.policy ??
    new LocalStudentPolicy({ model: { seed, ...opts.model }, featurizer: opts.featurizer, meta: opts.meta });

  const all = [...sftExamples(trajectories), ...expertRelabeledExamples(opts.relabeled ?? [])];
  const { kept, skipped, partial, relabeled } = filterRepresentable(all, policy.featurizer);
  const split = splitByTask(kept, opts.valFrac ?? 0.1, seed);
  split.val = split.val.filter((e) => !e.expert);
  const data: SftDataReport = {
    trajectories: trajectories.filter((t) => t.verdict?.success === true).length,
    steps: all.length,
    examples: kept.length,
    expertExamples: split.train.filter((e) => e.expert).length,
    train: split.train.length,
    val: split.val.length,
    trainTasks: split.trainTasks,
    valTasks: split.valTasks,
    representable: kept.length - partial,
    partial,
    relabeled,
    skipped,
  };
  opts.onData?.(data);
  if (split.train.length === 0)
    throw new Error(
      'no trainable examples: the trajectories hold no verified-success steps the policy can express',
    );

  const trainEval = new Rng(seed)
    .fork('train-eval')
    .shuffle(split.train)
    .slice(0, opts.trainEvalSize ?? 1000);
  const lr = opts.lr ?? 0.004;
  const lrFinal = opts.lrFinal ?? 0.1;
  const optimizer = new JsAdam(policy.trainableVariables(), lr);
  const history: EpochMetrics[] = [...(opts.previousEpochs ?? [])];
  for (let epoch = (opts.startEpoch ?? 0) + 1; epoch <= epochs; epoch++) {
    const t0 = performance.now();
    const order = new Rng(seed).fork(`epoch${epoch}`).shuffle(split.train);
    const batches = Math.ceil(order.length / batchSize);
    let lossSum = 0;
    for (let b = 0; b < batches; b++) {
      const chunk = order.slice(b * batchSize, (b + 1) * batchSize);
      const progress = ((epoch - 1) * batches + b) / Math.max(1, epochs * batches - 1);
      optimizer.lr = lr * (lrFinal + ((1 - lrFinal) * (1 + Math.cos(Math.PI * progress))) / 2);
      const loss = trainStep(policy, optimizer, chunk, clipNorm);
      lossSum += loss * chunk.length;
      opts.onBatch?.({ epoch, batch: b + 1, batches, loss });
      // Yield so progress bars and signals get a turn during long epochs.
      if (b % 20 === 19) await new Promise((r) => setImmediate(r));
    }
    const trainSeconds = (performance.now() - t0) / 1000;
    const tr = evaluateSteps(policy, trainEval);
    const va = split.val.length ? evaluateSteps(policy, split.val) : null;
    const m: EpochMetrics = {
      epoch,
      trainLoss: lossSum / order.length,
      trainStepAccuracy: tr.stepAccuracy,
      trainEquivalentAccuracy: tr.equivalentAccuracy,
      valLoss: va?.loss ?? Number.NaN,
      valStepAccuracy: va?.stepAccuracy ?? Number.NaN,
      valEquivalentAccuracy: va?.equivalentAccuracy ?? Number.NaN,
      examplesPerSecond: order.length / trainSeconds,
      seconds: (performance.now() - t0) / 1000,
    };
    history.push(m);
    if (opts.outDir) {
      await policy.save(opts.outDir);
      writeMetrics(opts.outDir, { data, epochs: history, options: publicOptions(opts) });
    }
    opts.onEpoch?.(m);
    // Epochs of fewer than 20 batches never reach the yield above.
    await new Promise((r) => setImmediate(r));
  }
  return { policy, data, epochs: history };
}

function publicOptions(o: SftOptions): Record<string, unknown> {
  // The relabelled rollouts are data, not options: their count is what metrics.json records (whole,
  // they made a 384 MB file after one full-preset DAgger round, and overflowed JSON after the second).
  const { policy: _p, onBatch: _b, onEpoch: _e, onData: _d, previousEpochs: _h, relabeled, ...rest } = o;
  return { ...rest, ...(relabeled ? { relabeledRollouts: relabeled.length } : {}) };
}

/** Writes `metrics.json` of a checkpoint folder. */
export function writeMetrics(
  dir: string,
  metrics: { data: SftDataReport; epochs: EpochMetrics[]; options: Record<string, unknown> },
): void {
  mkdirSync(dir, { recursive: true });
  // NaN (no validation split) is not JSON: write null.
  writeFileSync(
    join(dir, 'metrics.json'),
    JSON.stringify(metrics, (_k, v) => (Number.isNaN(v) ? null : v), 2),
  );
}
