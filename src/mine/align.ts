import { type ComparabilityWeights, comparabilityTotal } from './comparability.ts';
import type { StateFeatures } from './state-features.ts';

/** One matched pair of states: position `i` in run A, `j` in run B, with their comparability total. */
export interface AlignedPair {
  i: number;
  j: number;
  total: number;
}

/**
 * Monotone alignment of two runs: the set of matched state pairs (i1 < i2 implies j1 < j2) that
 * maximizes the summed comparability, where only pairs with total >= `minComparability` may match.
 * This is a weighted longest-common-subsequence DP, O(n x m): runs are short (tens of steps), and a
 * monotone matching keeps a failure's detour from matching states the success reached later.
 * Ties prefer the diagonal, then skipping a state of run B, so the result is deterministic.
 * Returns the pairs in run order.
 */
export function alignRuns(
  a: readonly StateFeatures[],
  b: readonly StateFeatures[],
  weights: ComparabilityWeights,
  minComparability: number,
): AlignedPair[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return [];
  const w = m + 1;
  const score = new Float64Array((n + 1) * w);
  const total = new Float64Array(n * m);
  for (let i = 1; i <= n; i++) {
    const sa = a[i - 1];
    for (let j = 1; j <= m; j++) {
      const c = comparabilityTotal(sa, b[j - 1], weights);
      total[(i - 1) * m + (j - 1)] = c;
      const up = score[(i - 1) * w + j];
      const left = score[i * w + j - 1];
      let best = Math.max(up, left);
      if (c >= minComparability) {
        const diag = score[(i - 1) * w + j - 1] + c;
        if (diag >= best) best = diag;
      }
      score[i * w + j] = best;
    }
  }
  const pairs: AlignedPair[] = [];
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const here = score[i * w + j];
    const c = total[(i - 1) * m + (j - 1)];
    if (c >= minComparability && here === score[(i - 1) * w + j - 1] + c) {
      pairs.push({ i: i - 1, j: j - 1, total: c });
      i--;
      j--;
    } else if (here === score[i * w + j - 1]) j--;
    else i--;
  }
  return pairs.reverse();
}
