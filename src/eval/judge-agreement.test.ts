import { describe, expect, it } from 'vitest';
import {
  agreement,
  agreementStats,
  bootstrapIndices,
  type Confusion,
  chooseThreshold,
  cohensKappa,
  confusionOf,
  errorRate,
  type JudgedPair,
  majorityVote,
  precision,
  recall,
} from './judge-agreement.ts';

/** Pairs that make exactly the confusion table `c`. */
function pairsOf(c: Confusion): JudgedPair[] {
  const rep = (n: number, p: JudgedPair) => Array.from({ length: n }, () => ({ ...p }));
  return [
    ...rep(c.tp, { truth: true, judged: true }),
    ...rep(c.fp, { truth: false, judged: true }),
    ...rep(c.fn, { truth: true, judged: false }),
    ...rep(c.tn, { truth: false, judged: false }),
    ...rep(c.errors, { truth: false, judged: null }),
  ];
}

describe('agreement statistics on hand-made confusion tables', () => {
  it('computes agreement, precision, recall and kappa as defined', () => {
    // n 50, po 0.7, pe = (25*30 + 25*20) / 2500 = 0.5, kappa = 0.2 / 0.5 = 0.4.
    const c: Confusion = { tp: 20, fp: 5, fn: 10, tn: 15, errors: 0 };
    expect(confusionOf(pairsOf(c))).toEqual(c);
    expect(agreement(c)).toBeCloseTo(0.7, 12);
    expect(precision(c)).toBeCloseTo(0.8, 12);
    expect(recall(c)).toBeCloseTo(2 / 3, 12);
    expect(cohensKappa(c)).toBeCloseTo(0.4, 12);
  });

  it('kappa is 0 for a judge that always says success, negative for one that inverts the truth', () => {
    expect(cohensKappa({ tp: 10, fp: 10, fn: 0, tn: 0, errors: 0 })).toBeCloseTo(0, 12);
    expect(cohensKappa({ tp: 0, fp: 10, fn: 10, tn: 0, errors: 0 })).toBeCloseTo(-1, 12);
    expect(cohensKappa({ tp: 10, fp: 0, fn: 0, tn: 10, errors: 0 })).toBeCloseTo(1, 12);
    // One class on both sides: chance agreement is total and kappa undefined.
    expect(cohensKappa({ tp: 0, fp: 0, fn: 0, tn: 8, errors: 0 })).toBeNaN();
  });

  it('leaves judge errors out of agreement and counts them in the error rate, never as failures', () => {
    const c: Confusion = { tp: 4, fp: 0, fn: 0, tn: 4, errors: 2 };
    expect(agreement(c)).toBe(1);
    expect(errorRate(c)).toBeCloseTo(0.2, 12);
    expect(precision({ tp: 0, fp: 0, fn: 3, tn: 3, errors: 0 })).toBeNaN();
  });

  it('gives seeded percentile CIs that hold the estimate, narrow with n, and repeat exactly', () => {
    const small = pairsOf({ tp: 8, fp: 2, fn: 4, tn: 6, errors: 0 });
    const big = pairsOf({ tp: 80, fp: 20, fn: 40, tn: 60, errors: 0 });
    const s = agreementStats(small, bootstrapIndices(small.length, { seed: 1 }));
    const b = agreementStats(big, bootstrapIndices(big.length, { seed: 1 }));
    expect(s.agreement.value).toBeCloseTo(0.7, 12);
    expect(b.agreement.value).toBeCloseTo(0.7, 12);
    for (const e of [s.agreement, s.kappa, s.precision, s.recall]) {
      expect(e.lo).toBeLessThanOrEqual(e.value);
      expect(e.hi).toBeGreaterThanOrEqual(e.value);
    }
    expect(b.agreement.hi - b.agreement.lo).toBeLessThan(s.agreement.hi - s.agreement.lo);
    // The normal approximation for n = 200, p = 0.7 gives a half-width of 1.96 * sqrt(.21/200) = 0.064.
    expect((b.agreement.hi - b.agreement.lo) / 2).toBeGreaterThan(0.05);
    expect((b.agreement.hi - b.agreement.lo) / 2).toBeLessThan(0.08);
    expect(agreementStats(small, bootstrapIndices(small.length, { seed: 1 }))).toEqual(s);
    const perfect = agreementStats(pairsOf({ tp: 5, fp: 0, fn: 0, tn: 5, errors: 0 }), bootstrapIndices(10));
    expect([perfect.agreement.lo, perfect.agreement.hi]).toEqual([1, 1]);
  });
});

describe('calibrated threshold and majority vote', () => {
  it('chooses the threshold on one seeded half and reports the other', () => {
    // Successes score 0.6-0.9, failures 0.1-0.4: any threshold in (0.4, 0.6] separates them.
    const pairs = Array.from({ length: 40 }, (_, i) => ({
      truth: i % 2 === 0,
      score: i % 2 === 0 ? 0.6 + (i % 4) / 10 : 0.1 + (i % 4) / 10,
    }));
    const c = chooseThreshold(pairs, 7);
    expect(c).not.toBeNull();
    expect(c!.threshold).toBeGreaterThan(0.4);
    expect(c!.threshold).toBeLessThanOrEqual(0.6);
    expect(c!.fitKappa).toBe(1);
    expect(c!.fitIndices.length + c!.testIndices.length).toBe(40);
    expect(new Set([...c!.fitIndices, ...c!.testIndices]).size).toBe(40);
    expect(chooseThreshold(pairs, 7)).toEqual(c);
    expect(chooseThreshold(pairs, 8)!.fitIndices).not.toEqual(c!.fitIndices);
    expect(chooseThreshold([{ truth: true, score: null }], 0)).toBeNull();
  });

  it('a majority vote needs more usable verdicts on one side; a tie is a judge error', () => {
    expect(majorityVote([true, true, false])).toBe(true);
    expect(majorityVote([false, null, false])).toBe(false);
    expect(majorityVote([true, false])).toBeNull();
    expect(majorityVote([null, null])).toBeNull();
  });
});
