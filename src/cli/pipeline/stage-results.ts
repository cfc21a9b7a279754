import { z } from 'zod';
import type { ExportSftSummary as ExportSummary } from '../../data/index.ts';
import type { MineStats as MineSummary } from '../../mine/index.ts';
import type { CollectResult as Collected, SynthResult as Synthesized } from './data-stages.ts';
import type { EvalStageResult as Evaluated } from './eval-stage.ts';
import type { RlRunResult as RlRun } from './rl-stage.ts';
import type { RolloutResult as RolledOut, SftStageResult as Trained } from './student-stages.ts';
import type { VerifyStageResult as Verified } from './verify-stage.ts';

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
 * One pipeline stage, or a family of stages: its name, the schema its stored result must
 * validate against, and (as the type parameter) the TypeScript type the pipeline reads it as. A
 * family's `name` is the prefix every member's name starts with; `key(suffix)` names one member.
 * Stage runners (stage.ts), the `--from` checks and the snapshot patterns (base-snapshot.ts) take
 * these definitions, so a stage's name is written once.
 */
export interface StageDef<T> {
  readonly name: string;
  /** Whether `name` is a prefix (`eval-` covers `eval-sft`, `eval-dapo-mined`, ...). */
  readonly family: boolean;
  readonly schema: z.ZodType;
  /** The stage's record key; a family member's is `name` + `suffix`. */
  key(suffix?: string): string;
  /** Whether `stage` is this stage, or a member of this family. */
  covers(stage: string): boolean;
  /** Carries `T` for the runners' and readers' signatures; never set. */
  readonly __result?: T;
}

/** Defines a stage (or, with `family`, every stage whose name starts with `name`) and registers its schema. */
export function defineStage<T>(spec: { name: string; schema: z.ZodType; family?: boolean }): StageDef<T> {
  const family = spec.family ?? false;
  const def: StageDef<T> = {
    name: spec.name,
    family,
    schema: spec.schema,
    key: (suffix = '') => {
      if (suffix && !family) throw new Error(`stage ${spec.name} is not a family: it takes no suffix`);
      return `${spec.name}${suffix}`;
    },
    covers: (stage) => (family ? stage.startsWith(spec.name) : stage === spec.name),
  };
  REGISTRY.push(def as StageDef<unknown>);
  return def;
}

const REGISTRY: Array<StageDef<unknown>> = [];

/** The result types the definitions below carry (the producers' own interfaces, type-only). */
type Results = {
  synth: Synthesized;
  collect: Collected;
  exportSft: ExportSummary;
  sft: Trained;
  rollout: RolledOut;
  mine: MineSummary;
  verify: Verified;
  rl: RlRun;
  eval: Evaluated;
  selection: z.infer<typeof StudentSelection>;
  stepAccuracy: z.infer<typeof StepAccuracies>;
};

/**
 * Every stage of `demo` and `ablate`. Exact names win over families (`train-sft` over
 * `train-sft-`): `eval-` is every evaluation row (`val-` those on the validation split),
 * `train-sft-` the no-reflection, per-seed and DAgger students, `dagger-rollout` every DAgger round.
 */
export const STAGES = {
  synth: defineStage<Results['synth']>({ name: 'synth', schema: SynthResult }),
  collect: defineStage<Results['collect']>({ name: 'collect', schema: CollectResult }),
  collectNoReflect: defineStage<Results['collect']>({ name: 'collect-noreflect', schema: CollectResult }),
  exportSft: defineStage<Results['exportSft']>({ name: 'export-sft', schema: ExportSftSummary }),
  trainSft: defineStage<Results['sft']>({ name: 'train-sft', schema: SftStageResult }),
  /** `train-sft-dagger<r>`, `train-sft-seed<k>`, `train-sft-noreflect...`. */
  trainSftOf: defineStage<Results['sft']>({ name: 'train-sft-', schema: SftStageResult, family: true }),
  rollout: defineStage<Results['rollout']>({ name: 'rollout', schema: RolloutResult }),
  daggerRollout: defineStage<Results['rollout']>({
    name: 'dagger-rollout',
    schema: RolloutResult,
    family: true,
  }),
  mine: defineStage<Results['mine']>({ name: 'mine', schema: MineStats }),
  verifyCritical: defineStage<Results['verify']>({ name: 'verify-critical', schema: VerifyStageResult }),
  /** The demo's step accuracies of its students. */
  stepAccuracy: defineStage<unknown>({ name: 'step-accuracy', schema: StepAccuracyResult }),
  /** One ablation unit's step accuracies: `step-accuracy-<unit>`. */
  stepAccuracyOf: defineStage<Results['stepAccuracy']>({
    name: 'step-accuracy-',
    schema: StepAccuracies,
    family: true,
  }),
  rl: defineStage<Results['rl']>({ name: 'rl-', schema: RlRunResult, family: true }),
  eval: defineStage<Results['eval']>({ name: 'eval-', schema: EvalStageResult, family: true }),
  val: defineStage<Results['eval']>({ name: 'val-', schema: EvalStageResult, family: true }),
  /** `select-student` (and a suffixed student's own choice). */
  selectStudent: defineStage<Results['selection']>({
    name: 'select-student',
    schema: StudentSelection,
    family: true,
  }),
} as const;

/** The definition a stage name belongs to (an exact name before a family); null for none. */
export function stageDefOf(stage: string): StageDef<unknown> | null {
  return (
    REGISTRY.find((d) => !d.family && d.covers(stage)) ??
    REGISTRY.filter((d) => d.family && d.covers(stage)).sort((a, b) => b.name.length - a.name.length)[0] ??
    null
  );
}

/** The schema of a stage's stored result; throws for a stage no definition covers. */
export function stageResultSchema(stage: string): z.ZodType {
  const def = stageDefOf(stage);
  if (!def)
    throw new Error(`pipeline stage "${stage}" has no result schema: define it in stage-results.ts (STAGES)`);
  return def.schema;
}
