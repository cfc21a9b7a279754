import { Action } from '../../core/action.ts';
import type { RewardFn } from './types.ts';

/** JSON with object keys sorted, so structurally equal actions serialize identically. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The canonical serialization of an action, defaults applied (so `clear: true` omitted = given). */
export function serializeAction(a: Action): string {
  const parsed = Action.safeParse(a);
  return canonical(parsed.success ? parsed.data : a);
}

/**
 * Exact-match reward: 1 when the sampled action is structurally identical to the ground truth
 * (same type, same index, byte-equal text), else 0. The ablation baseline: "New York" and
 * "new york " differ, and every near-miss collapses to the same 0.
 */
export const exactReward: RewardFn = (sampled, truth) =>
  sampled !== undefined && serializeAction(sampled) === serializeAction(truth) ? 1 : 0;
