import { describe, expect, it } from 'vitest';
import { competenceGate, contrastGate } from './gates.ts';
import { groupAdvantages, groupStats } from './group-advantage.ts';

describe('gates on hand-made groups', () => {
  // [rewards, contrast (delta 0.5), competence (tau 0.5)]
  const GROUPS: Array<[string, number[], boolean, boolean]> = [
    ['all wrong', [-1, -1, -1, -1], false, false],
    ['all right', [1, 1, 1, 1], false, true],
    ['one right among wrong', [-1, -1, 1, -1], true, true],
    ['partial credit only, spread', [-1, 0.3, -0.7, 0.2], true, false],
    ['right but little spread', [1, 0.7, 0.8, 1], false, true],
    ['exactly at both thresholds', [0, 0.5, 0.25, 0], true, true],
    ['empty', [], false, false],
  ];
  it.each(GROUPS)('%s', (_name, rewards, contrast, competence) => {
    expect(contrastGate(rewards)).toBe(contrast);
    expect(competenceGate(rewards)).toBe(competence);
  });

  it('thresholds are parameters', () => {
    expect(contrastGate([0, 0.3], 0.3)).toBe(true);
    expect(contrastGate([0, 0.3], 0.31)).toBe(false);
    expect(competenceGate([0.2, -1], 0.2)).toBe(true);
    expect(competenceGate([0.2, -1], 0.9)).toBe(false);
  });
});

describe('group-normalized advantages', () => {
  it('are (r - mean) / std with the population std', () => {
    // mean 0, population std 1
    const adv = groupAdvantages([-1, 1, -1, 1]);
    for (const [i, a] of adv.entries()) expect(a).toBeCloseTo([-1, 1, -1, 1][i], 5);
    // one right out of four: mean -0.5, std sqrt(0.75)
    const one = groupAdvantages([-1, -1, 1, -1]);
    expect(one[2]).toBeCloseTo(1.5 / Math.sqrt(0.75), 5);
    expect(one[0]).toBeCloseTo(-0.5 / Math.sqrt(0.75), 5);
    expect(one.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 9);
  });

  it('are all zero (not NaN) for a zero-variance group', () => {
    expect(groupAdvantages([1, 1, 1])).toEqual([0, 0, 0]);
    expect(groupAdvantages([])).toEqual([]);
  });

  it('are invariant to shifting and scaling the rewards', () => {
    const a = groupAdvantages([0.1, 0.4, -0.3, 0.9]);
    const b = groupAdvantages([0.1, 0.4, -0.3, 0.9].map((r) => 3 * r + 7));
    for (const [i, x] of a.entries()) expect(b[i]).toBeCloseTo(x, 4);
    expect(groupStats([1, 3])).toEqual({ mean: 2, std: 1, max: 3, min: 1 });
  });
});
