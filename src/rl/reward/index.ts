import { InputError } from '../../core/errors.ts';
import { exactReward } from './exact.ts';
import { polarizedReward } from './polarized.ts';
import { textSimReward } from './textsim.ts';
import type { RewardFn } from './types.ts';

export { exactReward, serializeAction } from './exact.ts';
export { type PolarizedOptions, polarize, polarizedReward } from './polarized.ts';
export { describeAction, textSimReward, trigramSimilarity } from './textsim.ts';
export type { RewardFn } from './types.ts';

/** Reward names accepted by the CLI and runRl. */
export const REWARD_NAMES = ['polarized', 'exact', 'textsim'] as const;
export type RewardName = (typeof REWARD_NAMES)[number];

/** The reward function registered under `name` (polarized uses its default power 0.5). */
export function rewardByName(name: string): RewardFn {
  switch (name) {
    case 'polarized':
      return polarizedReward();
    case 'exact':
      return exactReward;
    case 'textsim':
      return textSimReward;
    default:
      throw new InputError(`unknown reward "${name}"; expected one of ${REWARD_NAMES.join(', ')}`, {
        field: 'reward',
      });
  }
}
