import { type Action, formatAction } from '../../core/action.ts';
import { elementAt } from '../../core/action-equivalence.ts';
import type { Observation } from '../../core/observation.ts';
import type { RewardFn } from './types.ts';

/**
 * How a text-similarity reward sees an action: its compact form plus, for element actions, the
 * element's label as the model read it, e.g. `click(12) <button> Add to cart`. This is what makes
 * the generic reward fooled by lookalikes: a wrong element with the same label reads almost the same.
 */
export function describeAction(a: Action, obs: Observation): string {
  const base = formatAction(a);
  if (!('index' in a) || a.index === undefined || a.index === null) return base;
  const el = elementAt(obs, a.index);
  if (!el) return base;
  return `${base} <${el.tag}> ${el.name || el.text}`.trim();
}

function trigrams(s: string): Map<string, number> {
  const t = ` ${s.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  const out = new Map<string, number>();
  for (let i = 0; i + 3 <= t.length; i++) {
    const g = t.slice(i, i + 3);
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

/** Dice coefficient of character-trigram multisets, in [0, 1]. */
export function trigramSimilarity(a: string, b: string): number {
  const ta = trigrams(a);
  const tb = trigrams(b);
  let common = 0;
  let na = 0;
  let nb = 0;
  for (const [g, c] of ta) {
    na += c;
    common += Math.min(c, tb.get(g) ?? 0);
  }
  for (const c of tb.values()) nb += c;
  return na + nb === 0 ? 1 : (2 * common) / (na + nb);
}

/**
 * Generic text-similarity reward in [0, 1]: trigram Dice similarity of the two serialized actions
 * ({@link describeAction}); 0 for an unparseable action. The ablation baseline that knows nothing
 * about web-action semantics.
 */
export const textSimReward: RewardFn = (sampled, truth, obs) =>
  sampled === undefined ? 0 : trigramSimilarity(describeAction(sampled, obs), describeAction(truth, obs));
