import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../core/action.ts';
import { Observation, type ObservationInput } from '../../core/observation.ts';
import {
  exactReward,
  polarize,
  polarizedReward,
  REWARD_NAMES,
  rewardByName,
  textSimReward,
} from './index.ts';

// The near-miss table lives in a JSON fixture that the Python trainer's tests read too
// (trainer/tests/test_reward.py), so the two implementations of each reward cannot drift apart.
const FIXTURE = JSON.parse(readFileSync(new URL('./near-miss.json', import.meta.url), 'utf8')) as {
  observation: ObservationInput;
  cases: Array<{
    name: string;
    sampled: Action | null;
    truth: Action;
    polarized: number;
    exact: number;
    textsim: number;
  }>;
  polarize: Array<{ s: number; power: number; value: number }>;
};
const obs = Observation.parse(FIXTURE.observation);

const polarized = polarizedReward();
const input = (index: number, text: string): Action => ({ type: 'input', index, text, clear: true });

describe('rewards on near-misses', () => {
  it.each(FIXTURE.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const sampled = c.sampled ?? undefined;
    expect(polarized(sampled, c.truth, obs)).toBeCloseTo(c.polarized, 9);
    expect(exactReward(sampled, c.truth, obs)).toBe(c.exact);
    expect(textSimReward(sampled, c.truth, obs)).toBeCloseTo(c.textsim, 9);
  });

  it('the generic text reward is fooled by lookalikes the polarized reward rejects', () => {
    const lookalike = FIXTURE.cases.find((c) => c.name.includes('lookalike'))!;
    expect(lookalike.polarized).toBe(-1);
    expect(lookalike.textsim).toBeGreaterThan(0.8);
  });

  it.each(FIXTURE.polarize.map((q) => [`polarize(${q.s}, ${q.power})`, q] as const))('%s', (_n, q) => {
    expect(polarize(q.s, q.power)).toBeCloseTo(q.value, 9);
  });

  it('pushes partial text away from the middle rather than scoring it linearly', () => {
    const truth = input(0, 'red running shoes size 10');
    // token F1 0.75 -> linear 0.5, polarized sqrt(0.5)
    const most = polarized(input(0, 'red running shoes'), truth, obs);
    expect(most).toBeCloseTo(Math.SQRT1_2, 6);
    expect(most).toBeGreaterThan(2 * 0.75 - 1);
    // token F1 1/3 -> linear -1/3, polarized -sqrt(1/3)
    const little = polarized(input(0, 'red'), truth, obs);
    expect(little).toBeCloseTo(-Math.sqrt(1 / 3), 6);
    expect(little).toBeLessThan(2 / 3 - 1);
    // disjoint text on the right element is as wrong as it gets
    expect(polarized(input(0, 'blue hats'), truth, obs)).toBe(-1);
  });

  it('polarize is odd around 0.5 and its power controls the push', () => {
    expect(polarize(0.5)).toBe(0);
    expect(polarize(0)).toBe(-1);
    expect(polarize(1)).toBe(1);
    expect(polarize(0.75, 1)).toBeCloseTo(0.5, 9);
    expect(polarize(0.6, 0.5)).toBeCloseTo(-polarize(0.4, 0.5), 9);
    expect(polarize(0.6, 0.25)).toBeGreaterThan(polarize(0.6, 0.5));
    expect(() => polarizedReward({ power: 0 })).toThrow(RangeError);
  });

  it('registers every reward by name and rejects unknown names', () => {
    for (const name of REWARD_NAMES) expect(typeof rewardByName(name)).toBe('function');
    expect(() => rewardByName('bleu')).toThrow(/unknown reward "bleu"/);
  });
});
