import type { Action } from '../../core/action.ts';
import {
  actionsEquivalent,
  argumentSimilarity,
  elementAt,
  elementsEquivalent,
} from '../../core/action-equivalence.ts';
import type { Observation } from '../../core/observation.ts';
import { OPTIONS } from '../options.ts';
import type { RewardFn } from './types.ts';

/** Options of the polarized reward. */
export interface PolarizedOptions {
  /**
   * Exponent p of the polarizing map (0 < p <= 1). Default 0.5. p = 1 is linear (2s - 1); smaller p
   * pushes partial credit further from 0 towards +-1 (p -> 0 is a sign step at s = 0.5).
   */
  power?: number;
}

/**
 * Maps an argument similarity s in [0, 1] to a reward in [-1, 1]:
 *   r = sign(s - 0.5) * |2s - 1|^p.
 * Odd-symmetric around s = 0.5 (r = 0 there), r(0) = -1, r(1) = +1. With p < 1 the curve is steep
 * near the middle and flat near the ends, so "half right" text is never a lukewarm ~0: it is either
 * clearly closer to right (s = 0.75 -> +0.71 at p = 0.5) or clearly wrong (s = 0.25 -> -0.71), which
 * keeps reward contrast inside a group instead of a mush of middling scores.
 */
export function polarize(s: number, power = 0.5): number {
  const x = 2 * Math.min(1, Math.max(0, s)) - 1;
  return Math.sign(x) * Math.abs(x) ** power;
}

/** The text argument an action carries, or undefined for argument-free actions. */
function textArgument(a: Action): string | undefined {
  switch (a.type) {
    case 'input':
    case 'select_dropdown':
    case 'done':
      return a.text;
    case 'navigate':
      return a.url;
    case 'send_keys':
      return a.keys;
    default:
      return undefined;
  }
}

/** True when the identity part of the action (type, element, direction, tab, outcome) is wrong. */
function wrongTarget(s: Action, t: Action, obs: Observation): boolean {
  if (s.type !== t.type) return true;
  if (s.type === 'scroll' && t.type === 'scroll') {
    if (s.down !== t.down) return true;
    const si = s.index ?? null;
    const ti = t.index ?? null;
    return si !== null && ti !== null && !elementsEquivalent(elementAt(obs, si), elementAt(obs, ti), obs);
  }
  if (
    (s.type === 'click' || s.type === 'input' || s.type === 'select_dropdown') &&
    'index' in t &&
    typeof t.index === 'number'
  ) {
    return !elementsEquivalent(elementAt(obs, s.index), elementAt(obs, t.index), obs);
  }
  if ((s.type === 'switch_tab' || s.type === 'close_tab') && s.type === t.type) return s.tab_id !== t.tab_id;
  if (s.type === 'done' && t.type === 'done') return s.success !== t.success;
  return false;
}

/**
 * The polarized reward tuned to web-action semantics:
 *  - unparseable action, wrong action type, wrong element (however similar its label), wrong scroll
 *    direction, wrong tab or wrong done outcome: -1;
 *  - semantically equal actions (case, spacing, punctuation, number format; equivalent elements): +1;
 *  - right type and element but partly right text: polarize(argumentSimilarity) (see {@link polarize}).
 */
export function polarizedReward(opts: PolarizedOptions = {}): RewardFn {
  const power = opts.power ?? OPTIONS.polarized.power;
  if (!(power > 0 && power <= 1))
    throw new RangeError(`polarized reward power must be in (0, 1], got ${power}`);
  return (sampled, truth, obs) => {
    if (sampled === undefined) return -1;
    if (wrongTarget(sampled, truth, obs)) return -1;
    if (actionsEquivalent(sampled, truth, obs)) return 1;
    const a = textArgument(sampled);
    const b = textArgument(truth);
    if (a === undefined || b === undefined) return -1;
    return polarize(argumentSimilarity(b, a), power);
  };
}
