import { describe, expect, it } from 'vitest';
import { meanSd, pairedBootstrap, quantileSorted } from './bootstrap.ts';

describe('meanSd', () => {
  it('gives the sample standard deviation, 0 for one value', () => {
    expect(meanSd([1, 2, 3, 4])).toEqual({ mean: 2.5, sd: Math.sqrt(5 / 3), n: 4 });
    expect(meanSd([0.4])).toEqual({ mean: 0.4, sd: 0, n: 1 });
    expect(Number.isNaN(meanSd([]).mean)).toBe(true);
  });
});

describe('quantileSorted', () => {
  it('interpolates between order statistics', () => {
    expect(quantileSorted([0, 10], 0.25)).toBe(2.5);
    expect(quantileSorted([1, 2, 3], 0.5)).toBe(2);
    expect(quantileSorted([1, 2, 3], 1)).toBe(3);
  });
});

describe('pairedBootstrap', () => {
  it('is exact and degenerate when every pair differs by the same amount', () => {
    const a = [1, 0, 1, 1, 0];
    const b = a.map((x) => x - 0.2);
    const r = pairedBootstrap(a, b, { resamples: 500, seed: 3 });
    expect(r.diff).toBeCloseTo(0.2, 12);
    expect(r.lo).toBeCloseTo(0.2, 12);
    expect(r.hi).toBeCloseTo(0.2, 12);
    expect(r.n).toBe(5);
  });

  it('is reproducible for a seed and brackets the observed difference', () => {
    const a = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1];
    const b = [0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1];
    const r1 = pairedBootstrap(a, b, { seed: 'x', resamples: 2000 });
    const r2 = pairedBootstrap(a, b, { seed: 'x', resamples: 2000 });
    expect(r1).toEqual(r2);
    expect(r1.diff).toBeCloseTo(3 / 12, 12);
    expect(r1.lo).toBeLessThan(r1.diff);
    expect(r1.hi).toBeGreaterThan(r1.diff);
    // Differences are 0 or 1 with p = 1/4: the 95% interval stays within [0, 1] and excludes neither end wrongly.
    expect(r1.lo).toBeGreaterThanOrEqual(0);
    expect(r1.hi).toBeLessThanOrEqual(1);
    const other = pairedBootstrap(a, b, { seed: 'y', resamples: 2000 });
    expect(other.diff).toBe(r1.diff);
  });

  it('pairs: a shared per-task offset does not widen the interval', () => {
    // Tasks of very different difficulty, b always 0.1 below a plus small noise.
    const a = [0.9, 0.1, 0.5, 1, 0, 0.7, 0.3, 0.8];
    const noise = [0.02, -0.01, 0, 0.01, -0.02, 0.01, 0, -0.01];
    const b = a.map((x, i) => x - 0.1 + noise[i]);
    const r = pairedBootstrap(a, b, { seed: 1 });
    expect(r.lo).toBeGreaterThan(0.08);
    expect(r.hi).toBeLessThan(0.12);
  });

  it('refuses unpaired or empty input', () => {
    expect(() => pairedBootstrap([1], [1, 2])).toThrow(/pairs/);
    expect(() => pairedBootstrap([], [])).toThrow(/no pairs/);
  });
});
