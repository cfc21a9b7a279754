import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RmswebError } from '../../core/errors.ts';
import { initPolicyBackend } from '../../policy/backend.ts';
import { loadStudentPolicy } from '../../policy/student-policy.ts';
import {
  labelRlExamples,
  METRICS,
  type RlAlgo,
  type RlExample,
  runRl,
  type StepMetrics,
} from '../../rl/index.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { RL_METRICS_FILE } from '../commands/rl.ts';
import type { PipelineContext } from './context.ts';
import { rlSteps } from './presets.ts';
import type { StageScope } from './stage.ts';

/** One RL configuration of the pipeline or the ablation. */
export interface RlVariant {
  /** Checkpoint folder name under models/, and the metric series `rl/<name>`. */
  name: string;
  algo: RlAlgo;
  reward: 'polarized' | 'exact' | 'textsim';
  /** Salvage-DS only: false drops gate-failing groups. */
  salvage?: boolean;
  /**
   * What the training states are: the 'mined' critical states, those of them `mine --verify`
   * 'confirmed', or the 'full-corpus'.
   */
  data: 'mined' | 'confirmed' | 'full-corpus';
}

/** Cost and diagnostics of one RL run (what the ablation table reports and explains). */
export interface RlRunResult {
  name: string;
  algo: RlAlgo;
  reward: string;
  data: string;
  dir: string;
  /** Training states: those of the data with a label the policy can express. */
  states: number;
  /** How the data's states were labelled (`labelRlExamples`); absent in runs recorded before it. */
  labels?: { given: number; relabeled: number; partial: number; skipped: Record<string, number> };
  steps: number;
  rolloutsSampled: number;
  wallSeconds: number;
  /** Means over steps of the stable metrics (gate pass rates, salvage share, reward, KL). */
  means: Record<string, number>;
  /** The budget and seed it ran with (another run may reuse this one only when they match). */
  options: { steps: number; batchSize: number; groupSize: number; lr: number | null; seed: number };
  /** Mean reward over the first and last fifth of the steps. */
  rewardStart: number;
  rewardEnd: number;
}

function meanOf(ms: StepMetrics[], key: string): number {
  return ms.length ? ms.reduce((a, m) => a + (m as Record<string, number>)[key], 0) / ms.length : 0;
}

/**
 * Trains one RL variant from the SFT checkpoint with `runRl` (the entry point of `rmsweb rl`),
 * saves the checkpoint and rl-metrics.json beside it, and logs the curve into the pipeline store.
 * The step budget comes from the preset's passes over the states, so larger data costs more.
 */
export async function rlStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: {
    variant: RlVariant;
    examples: readonly RlExample[];
    init: string;
    /** RL seed (sampling, batch order); default the pipeline's seed. */
    seed?: number;
  },
): Promise<RlRunResult> {
  const v = o.variant;
  const seed = o.seed ?? ctx.settings.seed;
  const rl = ctx.preset.rl;
  const dir = ctx.paths.model(v.name);
  await initPolicyBackend();
  const policy = await loadStudentPolicy(o.init);
  // The states' labels as SFT makes them (composed answers to spans; truths the policy can never
  // produce dropped), so RL and SFT train on the same targets.
  const labels = labelRlExamples(o.examples, policy.featurizer);
  const examples = labels.kept;
  if (!examples.length) {
    policy.dispose();
    throw new RmswebError(
      `none of the ${o.examples.length} ${v.data} states has a label the policy can express (${JSON.stringify(labels.skipped)})`,
      { code: 'NO_DATA' },
    );
  }
  const steps = rlSteps(rl, examples.length);
  const bar = scope.progress(steps);
  const series = `rl/${v.name}`;
  // A rerun of an interrupted stage trains again from the SFT checkpoint; its points replace the
  // old ones step by step (appendMetric upserts), and the step count is fixed by the budget.
  scope.log(
    `${v.algo} (${v.reward}${v.salvage === false ? ', no salvage' : ''}) on ${examples.length} ${v.data} states: ${steps} steps` +
      (examples.length < o.examples.length || labels.relabeled
        ? ` (${o.examples.length - examples.length} of ${o.examples.length} dropped: no expressible label; ${labels.relabeled} answers relabelled to spans)`
        : ''),
  );
  // runRl is synchronous; the bar is drawn from its per-step callback.
  const result = runRl({
    algo: v.algo,
    reward: v.reward,
    policy,
    examples,
    steps,
    batchSize: rl.batchSize,
    groupSize: rl.groupSize,
    ...(rl.lr ? { lr: rl.lr } : {}),
    seed,
    ...(v.algo === 'salvage-ds' ? { salvage: v.salvage ?? true } : {}),
    metricsStore: ctx.store,
    metricsSeries: series,
    onMetrics: (m) => bar.update(m.step, { reward: m[METRICS.meanReward], salvage: m[METRICS.salvageShare] }),
  });
  mkdirSync(dir, { recursive: true });
  await result.policy.save(dir);
  const ms = result.metrics;
  const fifth = Math.max(1, Math.floor(ms.length / 5));
  const means = Object.fromEntries(Object.values(METRICS).map((k) => [k, meanOf(ms, k)]));
  const summary: RlRunResult = {
    name: v.name,
    algo: v.algo,
    reward: result.reward,
    data: v.data,
    dir,
    states: examples.length,
    labels: {
      given: o.examples.length,
      relabeled: labels.relabeled,
      partial: labels.partial,
      skipped: labels.skipped,
    },
    steps: ms.length,
    rolloutsSampled: result.rolloutsSampled,
    wallSeconds: result.wallMs / 1000,
    means,
    options: {
      steps,
      batchSize: rl.batchSize,
      groupSize: rl.groupSize,
      lr: rl.lr ?? null,
      seed,
    },
    rewardStart: meanOf(ms.slice(0, fifth), METRICS.meanReward),
    rewardEnd: meanOf(ms.slice(-fifth), METRICS.meanReward),
  };
  writeFileAtomic(
    join(dir, RL_METRICS_FILE),
    `${JSON.stringify({ ...summary, init: o.init, metrics: ms }, null, 2)}\n`,
  );
  result.policy.dispose();
  scope.log(
    `${summary.rolloutsSampled} rollouts in ${summary.wallSeconds.toFixed(1)} s; reward ${summary.rewardStart.toFixed(3)} -> ${summary.rewardEnd.toFixed(3)}; ` +
      `gates: contrast ${means[METRICS.contrastGatePass].toFixed(2)}, competence ${means[METRICS.competenceGatePass].toFixed(2)}; salvage share ${means[METRICS.salvageShare].toFixed(2)}`,
  );
  return summary;
}
