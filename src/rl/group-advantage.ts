/**
 * Group-relative advantages (GRPO): each reward minus the group mean, over the group's standard
 * deviation. The population std (divide by G) is used; a group whose rewards are all equal has
 * std 0 and gets all-zero advantages (it carries no learning signal), never NaN.
 */
export function groupAdvantages(rewards: readonly number[], eps = 1e-6): number[] {
  const n = rewards.length;
  if (n === 0) return [];
  const mean = rewards.reduce((a, r) => a + r, 0) / n;
  const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / n);
  return rewards.map((r) => (r - mean) / (std + eps));
}

/** Mean and population standard deviation of a group's rewards. */
export function groupStats(rewards: readonly number[]): {
  mean: number;
  std: number;
  max: number;
  min: number;
} {
  const n = rewards.length;
  const mean = n ? rewards.reduce((a, r) => a + r, 0) / n : 0;
  const std = n ? Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / n) : 0;
  return { mean, std, max: n ? Math.max(...rewards) : 0, min: n ? Math.min(...rewards) : 0 };
}
