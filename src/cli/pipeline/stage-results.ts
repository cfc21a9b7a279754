import { z } from 'zod';

/**
 * Schemas of the results pipeline stages store (kind `stage`). A resumed run, and an ablation that
 * reuses another folder's stages, validate a stored result before using it: a record written by an
 * older version or damaged by hand is run again instead of trusted. Nested reports (run stats, eval
 * summaries, mining stats) are checked on the fields the pipeline reads and keep the rest as stored.
 */

const count = z.number().int().nonnegative();
/** JSON stores NaN (no validation split, no solved episode) as null. */
const maybeNumber = z.number().nullable();
const rateOverRuns = z.looseObject({ mean: z.number() });

const SynthResult = z.looseObject({
  corpus: count,
  queries: count,
  grounded: count,
  dropped: count,
  templateAgrees: count,
  exact: count,
  train: count,
  test: count,
  inTrainPool: count,
  topDropReasons: z.array(z.object({ reason: z.string(), count })),
});

const CollectResult = z.looseObject({
  episodes: count,
  errors: count,
  stats: z.looseObject({
    overall: z.looseObject({ tasks: count, tasksSolved: count, successfulAttempts: count }),
  }),
});

const ExportSftSummary = z.looseObject({
  format: z.string(),
  out: z.string(),
  file: z.string(),
  runs: z.array(z.string()),
  trajectories: count,
  examples: count,
});

const SftStageResult = z.looseObject({
  dir: z.string(),
  data: z.looseObject({ trajectories: count, examples: count, train: count, val: count }),
  final: z.looseObject({ epoch: count, valStepAccuracy: maybeNumber.optional() }).nullable(),
  trainSeconds: z.number().nonnegative(),
  warm: z.object({ from: z.string(), epochs: count, lr: z.number() }).optional(),
});

const RolloutResult = z.looseObject({
  episodes: count,
  successes: count,
  errors: count,
  relabeled: z.object({ steps: count, disagreements: count }).optional(),
});

const MineStats = z.looseObject({ criticalStates: count, pairsConsidered: count });

const VerifyStageResult = z.looseObject({
  file: z.string(),
  states: count,
  confirmed: count,
  notCausal: count,
  replayFailed: count,
  episodes: count,
  wallSeconds: z.number().nonnegative(),
});

const RlRunResult = z.looseObject({
  name: z.string(),
  algo: z.string(),
  reward: z.string(),
  data: z.string(),
  dir: z.string(),
  states: count,
  steps: count,
  rolloutsSampled: count,
  wallSeconds: z.number().nonnegative(),
  means: z.record(z.string(), maybeNumber),
  options: z.object({
    steps: count,
    batchSize: count,
    groupSize: count,
    lr: z.number().nullable(),
    seed: z.number().int(),
  }),
  rewardStart: maybeNumber,
  rewardEnd: maybeNumber,
});

const EvalStageResult = z.looseObject({
  label: z.string(),
  agent: z.string(),
  summary: z.looseObject({
    agentId: z.string(),
    runs: count,
    tasks: count,
    episodes: count,
    pass1: rateOverRuns,
    meanStepsSolved: maybeNumber,
  }),
  complete: z.boolean(),
  setup: z.object({ taskIds: z.array(z.string()), runs: count, maxSteps: count }),
});

/** The choice of the student RL starts from (demo.ts `StudentSelection`). */
const StudentSelection = z.object({
  tasks: count,
  maxSteps: count,
  candidates: z.array(z.object({ round: count, label: z.string(), pass1: z.number() })).min(1),
  chosen: count,
});

const StepAccuracies = z.object({ heldOut: maybeNumber, critical: maybeNumber });
/** The demo stores the SFT and RL students' accuracies; the ablation one entry per row. */
const StepAccuracyResult = z.union([
  z.object({
    heldOutSteps: count,
    sft: StepAccuracies,
    dagger: StepAccuracies.nullable().optional(),
    rl: StepAccuracies.nullable(),
  }),
  z.record(z.string(), StepAccuracies),
]);

/**
 * Stage name -> result schema. A name ending in '*' covers a family: `eval-*` every evaluation row
 * (`val-*` those on the validation split),
 * `train-sft-*` the no-reflection and DAgger students, `dagger-rollout*` every DAgger round.
 */
const STAGE_RESULTS: ReadonlyArray<[string, z.ZodType]> = [
  ['synth', SynthResult],
  ['collect', CollectResult],
  ['collect-noreflect', CollectResult],
  ['export-sft', ExportSftSummary],
  ['train-sft', SftStageResult],
  ['train-sft-*', SftStageResult],
  ['rollout', RolloutResult],
  ['dagger-rollout*', RolloutResult],
  ['mine', MineStats],
  ['verify-critical', VerifyStageResult],
  ['step-accuracy', StepAccuracyResult],
  ['step-accuracy-*', StepAccuracies],
  ['rl-*', RlRunResult],
  ['eval-*', EvalStageResult],
  ['val-*', EvalStageResult],
  ['select-student*', StudentSelection],
];

/** The schema of a stage's stored result; throws for a stage no schema is registered for. */
export function stageResultSchema(stage: string): z.ZodType {
  const hit =
    STAGE_RESULTS.find(([name]) => name === stage) ??
    STAGE_RESULTS.find(([name]) => name.endsWith('*') && stage.startsWith(name.slice(0, -1)));
  if (!hit)
    throw new Error(`pipeline stage "${stage}" has no result schema: register one in stage-results.ts`);
  return hit[1];
}
