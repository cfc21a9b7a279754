import { z } from 'zod';
import { boundedInt, boundedNumber } from '../core/bounded-number.ts';
import { describeZodIssues, InputError } from '../core/errors.ts';
import type { StudentPolicy } from '../policy/types.ts';
import type { RunStore } from '../store/index.ts';
import type { RlExample } from './critical-data.ts';
import { DAPO_DEFAULTS, type DapoOptions, trainDapo } from './dapo.ts';
import { GRPO_DEFAULTS, type GrpoOptions, trainGrpo } from './grpo.ts';
import type { RlResult, StepMetrics } from './metrics.ts';
import { REWARD_NAMES, type RewardFn, rewardByName } from './reward/index.ts';
import { SALVAGE_DS_DEFAULTS, type SalvageDsOptions, trainSalvageDs } from './salvage-ds.ts';

/** The RL algorithms `rmsweb rl --algo` and the ablation run. */
export const RL_ALGOS = ['salvage-ds', 'grpo', 'dapo'] as const;
export type RlAlgo = (typeof RL_ALGOS)[number];

/**
 * The options every algorithm shares, with their bounds; unset ones take the algorithm's documented
 * default. Numbers are coerced, so `rmsweb rl` parses its flags with this same schema (extended
 * with its own options) and the bounds are declared once.
 */
export const RlCommonOptions = z.object({
  algo: z.enum(RL_ALGOS).default('salvage-ds'),
  reward: z
    .union([z.enum(REWARD_NAMES), z.custom<RewardFn>((v) => typeof v === 'function')])
    .default('polarized'),
  steps: boundedInt(1, 1e6).optional(),
  batchSize: boundedInt(1, 1e5).optional(),
  groupSize: boundedInt(2, 1024).optional(),
  lr: boundedNumber(1e-9, 10).optional(),
  seed: boundedInt(0, 2 ** 31 - 1).optional(),
  temperature: boundedNumber(1e-3, 100).optional(),
  updateEpochs: boundedInt(1).optional(),
  salvage: z.boolean().optional(),
});

/** The documented defaults of an algorithm (what an unset option becomes). */
export function rlDefaults(algo: RlAlgo): {
  steps: number;
  batchSize: number;
  groupSize: number;
  lr: number;
} {
  return algo === 'salvage-ds' ? SALVAGE_DS_DEFAULTS : algo === 'grpo' ? GRPO_DEFAULTS : DAPO_DEFAULTS;
}

export interface RunRlOptions<P extends StudentPolicy> {
  algo: RlAlgo;
  /** Reward name or function. Default 'polarized'. */
  reward?: (typeof REWARD_NAMES)[number] | RewardFn;
  /** The policy to train, in place (clone it first to keep the original). */
  policy: P;
  /** (state, ground truth) pairs: critical states, or the full corpus. */
  examples: readonly RlExample[];
  steps?: number;
  batchSize?: number;
  groupSize?: number;
  lr?: number;
  seed?: number;
  temperature?: number;
  updateEpochs?: number;
  /** Salvage-DS only: false drops gate-failing groups (the "no salvage" ablation). */
  salvage?: boolean;
  /** Algorithm-specific overrides, e.g. `{ betaBrake: 0.05 }` or `{ clipHigh: 0.3 }`. */
  algoOptions?: Partial<SalvageDsOptions & GrpoOptions & DapoOptions>;
  onMetrics?: (m: StepMetrics) => void;
  /** Also log every step to this run store, under `metricsSeries` (default `rl/<algo>`). */
  metricsStore?: RunStore;
  metricsSeries?: string;
}

export interface RunRlResult<P extends StudentPolicy> extends RlResult<P> {
  algo: RlAlgo;
  /** The reward's name ('custom' for a function). */
  reward: string;
  /** How many (state, truth) examples the run drew from. */
  examples: number;
}

/**
 * Runs one RL algorithm on a policy and examples: the one entry point for `rmsweb rl` and the
 * ablation. Validates the options (InputError naming the field), resolves the reward, trains the
 * policy in place and returns per-step metrics, rollouts sampled and wall time.
 */
export function runRl<P extends StudentPolicy>(opts: RunRlOptions<P>): RunRlResult<P> {
  const parsed = RlCommonOptions.safeParse({ ...opts, policy: undefined, examples: undefined });
  if (!parsed.success) {
    throw new InputError(`invalid RL options: ${describeZodIssues(parsed.error.issues)}`, {
      field: String(parsed.error.issues[0]?.path.join('.') ?? ''),
    });
  }
  const o = parsed.data;
  if (opts.examples.length === 0) throw new InputError('no training examples', { field: 'examples' });
  if (o.salvage === false && o.algo !== 'salvage-ds') {
    throw new InputError(`--no-salvage applies to salvage-ds only, not ${o.algo}`, { field: 'salvage' });
  }
  const reward = typeof o.reward === 'function' ? o.reward : rewardByName(o.reward);
  const series = opts.metricsSeries ?? `rl/${o.algo}`;
  const onMetrics = (m: StepMetrics) => {
    if (opts.metricsStore) {
      const { step, ...values } = m;
      opts.metricsStore.appendMetric(series, step, values);
    }
    opts.onMetrics?.(m);
  };
  const given = Object.fromEntries(
    Object.entries({
      steps: o.steps,
      batchSize: o.batchSize,
      groupSize: o.groupSize,
      lr: o.lr,
      seed: o.seed,
      temperature: o.temperature,
      updateEpochs: o.updateEpochs,
    }).filter(([, v]) => v !== undefined),
  );
  const common = { ...opts.algoOptions, ...given, reward, onMetrics };
  const result =
    o.algo === 'salvage-ds'
      ? trainSalvageDs(opts.policy, opts.examples, { ...common, salvage: o.salvage })
      : o.algo === 'grpo'
        ? trainGrpo(opts.policy, opts.examples, common)
        : trainDapo(opts.policy, opts.examples, common);
  return {
    ...result,
    algo: o.algo,
    reward: typeof o.reward === 'function' ? 'custom' : o.reward,
    examples: opts.examples.length,
  };
}
