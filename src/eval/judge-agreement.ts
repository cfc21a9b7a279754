import { Rng } from '../core/rng.ts';
import { quantileSorted } from './bootstrap.ts';

/**
 * How far a judge agrees with the ground truth (the world's verifier), on "success" as the
 * positive class. Judge errors are counted apart: they are neither a success nor a failure.
 */
export interface Confusion {
  /** Judge success, verifier success. */
  tp: number;
  /** Judge success, verifier failure. */
  fp: number;
  /** Judge failure, verifier success. */
  fn: number;
  /** Judge failure, verifier failure. */
  tn: number;
  /** The judge gave no usable verdict (unparseable, timed out, endpoint down). */
  errors: number;
}

/** One paired observation: the verifier's truth and the judge's verdict (null: a judge error). */
export interface JudgedPair {
  truth: boolean;
  judged: boolean | null;
}

/** The confusion table of pairs. */
export function confusionOf(pairs: readonly JudgedPair[]): Confusion {
  const c: Confusion = { tp: 0, fp: 0, fn: 0, tn: 0, errors: 0 };
  for (const p of pairs) {
    if (p.judged === null) c.errors++;
    else if (p.judged) p.truth ? c.tp++ : c.fp++;
    else p.truth ? c.fn++ : c.tn++;
  }
  return c;
}

/** Scored verdicts (errors left out). */
export const scoredOf = (c: Confusion): number => c.tp + c.fp + c.fn + c.tn;

/** Share of scored verdicts equal to the verifier's; NaN with none. */
export function agreement(c: Confusion): number {
  const n = scoredOf(c);
  return n ? (c.tp + c.tn) / n : Number.NaN;
}

/** Of the judge's successes, the share the verifier confirms; NaN when it called none. */
export function precision(c: Confusion): number {
  return c.tp + c.fp ? c.tp / (c.tp + c.fp) : Number.NaN;
}

/** Of the verifier's successes, the share the judge found; NaN when there were none. */
export function recall(c: Confusion): number {
  return c.tp + c.fn ? c.tp / (c.tp + c.fn) : Number.NaN;
}

/** Share of all verdicts asked for that were judge errors; NaN with none. */
export function errorRate(c: Confusion): number {
  const n = scoredOf(c) + c.errors;
  return n ? c.errors / n : Number.NaN;
}

/**
 * Cohen's kappa of judge against verifier on the scored verdicts: agreement beyond what the two
 * marginals give by chance. NaN when chance agreement is total (one class only on both sides),
 * where kappa is undefined.
 */
export function cohensKappa(c: Confusion): number {
  const n = scoredOf(c);
  if (!n) return Number.NaN;
  const po = (c.tp + c.tn) / n;
  const pe = ((c.tp + c.fp) * (c.tp + c.fn) + (c.fn + c.tn) * (c.fp + c.tn)) / (n * n);
  return pe === 1 ? Number.NaN : (po - pe) / (1 - pe);
}

/** A statistic with its bootstrap percentile interval. */
export interface Estimate {
  value: number;
  lo: number;
  hi: number;
}

/** The statistics a calibration reports, each with its CI. */
export interface AgreementStats {
  n: number;
  confusion: Confusion;
  agreement: Estimate;
  precision: Estimate;
  recall: Estimate;
  kappa: Estimate;
  errorRate: Estimate;
}

/** Options of the bootstrap: resamples, level and the seed of its Rng. */
export interface BootstrapOptions {
  resamples?: number;
  level?: number;
  seed?: number | string;
}

/**
 * Draws the bootstrap resamples of `n` units once: resample r is `n` indices drawn with
 * replacement through the seeded Rng. Every judge is scored on the same resamples, so their
 * intervals are paired (a hard episode drawn twice is hard for every judge in that resample).
 */
export function bootstrapIndices(n: number, o: BootstrapOptions = {}): Int32Array[] {
  const rng = new Rng(o.seed ?? 0);
  const resamples = o.resamples ?? 2000;
  return Array.from({ length: resamples }, () => {
    const idx = new Int32Array(n);
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rng.next() * n);
    return idx;
  });
}

/**
 * The agreement statistics of `pairs` with percentile CIs over the given resamples (drawn by
 * `bootstrapIndices(pairs.length)`); a resample where a statistic is undefined (no success called,
 * one class only) is left out of that statistic's interval.
 */
export function agreementStats(
  pairs: readonly JudgedPair[],
  resamples: readonly Int32Array[],
  level = 0.95,
): AgreementStats {
  const stats = { agreement, precision, recall, kappa: cohensKappa, errorRate } as const;
  const keys = Object.keys(stats) as Array<keyof typeof stats>;
  const draws: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
  for (const idx of resamples) {
    const c = confusionOf(Array.from(idx, (i) => pairs[i]));
    for (const k of keys) {
      const v = stats[k](c);
      if (Number.isFinite(v)) draws[k].push(v);
    }
  }
  const c = confusionOf(pairs);
  const tail = (1 - level) / 2;
  const est = (k: keyof typeof stats): Estimate => {
    const sorted = draws[k].sort((a, b) => a - b);
    return { value: stats[k](c), lo: quantileSorted(sorted, tail), hi: quantileSorted(sorted, 1 - tail) };
  };
  return {
    n: pairs.length,
    confusion: c,
    agreement: est('agreement'),
    precision: est('precision'),
    recall: est('recall'),
    kappa: est('kappa'),
    errorRate: est('errorRate'),
  };
}

/** A judge's graded score on an episode, beside the truth (null score: a judge error). */
export interface ScoredPair {
  truth: boolean;
  score: number | null;
}

/** A success threshold chosen on one half of a sample and checked on the other. */
export interface ThresholdChoice {
  /** "success" iff score >= threshold. */
  threshold: number;
  /** Kappa on the half it was chosen on. */
  fitKappa: number;
  /** Indices of the pairs it was chosen on and of those it is reported on. */
  fitIndices: number[];
  testIndices: number[];
}

/**
 * Chooses the threshold maximizing Cohen's kappa on a seeded half of the pairs (candidates: every
 * distinct score seen there; ties go to the lower threshold) and returns the other half to report
 * it on. Null when the fit half has no scored pair.
 */
export function chooseThreshold(pairs: readonly ScoredPair[], seed: number | string): ThresholdChoice | null {
  const order = new Rng(seed).shuffle(pairs.map((_, i) => i));
  const half = Math.ceil(order.length / 2);
  const fitIndices = order.slice(0, half).sort((a, b) => a - b);
  const testIndices = order.slice(half).sort((a, b) => a - b);
  const fit = fitIndices.map((i) => pairs[i]);
  const candidates = [...new Set(fit.flatMap((p) => (p.score === null ? [] : [p.score])))].sort(
    (a, b) => a - b,
  );
  let best: { threshold: number; kappa: number } | null = null;
  for (const t of candidates) {
    const k = cohensKappa(confusionOf(thresholded(fit, t)));
    const kv = Number.isFinite(k) ? k : -Infinity;
    if (!best || kv > best.kappa) best = { threshold: t, kappa: kv };
  }
  if (!best) return null;
  return { threshold: best.threshold, fitKappa: best.kappa, fitIndices, testIndices };
}

/** Scored pairs as verdicts at a threshold. */
export function thresholded(pairs: readonly ScoredPair[], threshold: number): JudgedPair[] {
  return pairs.map((p) => ({ truth: p.truth, judged: p.score === null ? null : p.score >= threshold }));
}

/**
 * The majority verdict of several judges on one episode: success when more usable verdicts say
 * success than failure, failure when more say failure; null (a judge error of the vote) on a tie
 * or when no judge gave a usable verdict.
 */
export function majorityVote(verdicts: ReadonlyArray<boolean | null>): boolean | null {
  let yes = 0;
  let no = 0;
  for (const v of verdicts) {
    if (v === true) yes++;
    else if (v === false) no++;
  }
  return yes === no ? null : yes > no;
}
