import { Rng } from '../core/rng.ts';

/** Mean and sample standard deviation (0 for fewer than two values; NaN mean for none). */
export function meanSd(xs: readonly number[]): { mean: number; sd: number; n: number } {
  const n = xs.length;
  if (!n) return { mean: Number.NaN, sd: 0, n };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, sd, n };
}

/** Linear-interpolation quantile (R's type 7) of an ascending array. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (!sorted.length) return Number.NaN;
  const h = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** A paired difference of means with its percentile bootstrap confidence interval. */
export interface PairedDiff {
  /** mean(a) - mean(b) over the pairs. */
  diff: number;
  lo: number;
  hi: number;
  /** Confidence level of [lo, hi] (0.95 by default). */
  level: number;
  /** Pairs (units resampled). */
  n: number;
  resamples: number;
  /** The Rng seed of the resampling (the same seed reproduces the interval exactly). */
  seed: number | string;
}

/**
 * Percentile bootstrap CI of mean(a - b) for paired measurements (a[i] and b[i] are the same unit,
 * e.g. the same test task): the pairs are resampled with replacement `resamples` times through the
 * project's seeded Rng, so the interval is reproducible. Pairing removes the between-unit spread
 * (easy vs hard tasks) that an unpaired comparison of two pass rates would carry.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  o: { resamples?: number; level?: number; seed?: number | string } = {},
): PairedDiff {
  if (a.length !== b.length)
    throw new RangeError(`paired bootstrap needs pairs: ${a.length} vs ${b.length} values`);
  if (!a.length) throw new RangeError('paired bootstrap of no pairs');
  const resamples = o.resamples ?? 10_000;
  const level = o.level ?? 0.95;
  const seed = o.seed ?? 0;
  const n = a.length;
  const d = a.map((x, i) => x - b[i]);
  const diff = d.reduce((s, x) => s + x, 0) / n;
  const rng = new Rng(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(rng.next() * n)];
    means[r] = s / n;
  }
  means.sort();
  const sorted = Array.from(means);
  const tail = (1 - level) / 2;
  return {
    diff,
    lo: quantileSorted(sorted, tail),
    hi: quantileSorted(sorted, 1 - tail),
    level,
    n,
    resamples,
    seed,
  };
}
