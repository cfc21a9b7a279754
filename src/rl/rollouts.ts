import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../core/rng.ts';
import type { ActionSample, StudentPolicy } from '../policy/types.ts';
import type { RlExample } from './critical-data.ts';
import type { RewardFn } from './reward/types.ts';

/**
 * Sampling shared by the RL algorithms: which states a step trains on, and a group of scored
 * actions per state.
 */

/**
 * Yields example indices in seeded random order, reshuffling at the end of every pass, so every
 * example is visited once per epoch and the order is reproducible from the seed.
 */
export class ExampleStream {
  private order: number[] = [];
  private pos = 0;
  constructor(
    private readonly size: number,
    private readonly rng: Rng,
  ) {
    if (size <= 0) throw new RangeError('ExampleStream needs at least one example');
  }

  /** The next `k` indices (may wrap into a new epoch; an index repeats within a call only when k > size). */
  take(k: number): number[] {
    const out: number[] = [];
    while (out.length < k) {
      if (this.pos >= this.order.length) {
        this.order = this.rng.shuffle(Array.from({ length: this.size }, (_, i) => i));
        this.pos = 0;
      }
      out.push(this.order[this.pos++]);
    }
    return out;
  }
}

/** G sampled actions for one state, each with its reward. */
export interface RolloutGroup {
  example: RlExample;
  samples: ActionSample[];
  rewards: number[];
}

/** Samples `groupSize` actions per example from the policy and scores each against the ground truth. */
export function sampleGroups(
  policy: StudentPolicy,
  examples: readonly RlExample[],
  groupSize: number,
  opts: { temperature: number; rng: Rng; reward: RewardFn },
): RolloutGroup[] {
  if (examples.length === 0) return [];
  const batch = policy.encode(examples.map((e) => e.state));
  try {
    // Inside a tidy, so no intermediate tensor of any policy's sampler outlives the call.
    let sampled: ActionSample[][] = [];
    tf.tidy(() => {
      sampled = policy.sample(batch, groupSize, { temperature: opts.temperature, rng: opts.rng });
    });
    return examples.map((example, i) => ({
      example,
      samples: sampled[i],
      rewards: sampled[i].map((s) => opts.reward(s.action, example.truth, example.state.observation)),
    }));
  } finally {
    batch.dispose();
  }
}
