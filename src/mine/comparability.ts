import type { Comparability } from '../core/index.ts';
import type { StateFeatures } from './state-features.ts';

/**
 * How comparable two states of two runs of the same task are, as a weighted sum of four parts in
 * [0, 1]. The weights are options; the defaults favour the page (URL and elements, 0.8 together)
 * because two agents that stand on the same page with the same controls (and the same values in
 * them) face the same decision, and keep memory and progress as tie-breakers: memory is often empty
 * or worded differently, and progress counts steps, so one extra step (a dismissed banner) on one
 * side must not outweigh a form that is filled differently.
 */
export interface ComparabilityWeights {
  /** Normalized URL path and relevant query. Default 0.35. */
  url: number;
  /** Weighted Jaccard over visible interactive elements' (role, normalized name, value held). Default 0.45. */
  elements: number;
  /** Token overlap of the agent memories. Default 0.1. */
  memory: number;
  /** Position in the run and subgoals completed. Default 0.1. */
  progress: number;
}

export const DEFAULT_COMPARABILITY_WEIGHTS: Readonly<ComparabilityWeights> = Object.freeze({
  url: 0.35,
  elements: 0.45,
  memory: 0.1,
  progress: 0.1,
});

/**
 * Default threshold on `total` for two states to count as comparable. Two states on the same path
 * with a fair share of the same controls clear it (0.35 x 1 + 0.45 x ~0.5 + memory + progress);
 * states on different paths cannot, unless everything else matches and the paths share most leading
 * segments: sibling pages reached through lookalike links (/p/2 vs /p/22) are different situations.
 */
export const DEFAULT_MIN_COMPARABILITY = 0.7;

/** Share of the URL score a different path can still earn through common leading segments. */
const SIBLING_PATH_CREDIT = 0.2;

/** Sorted-int-array Jaccard; 1 when both are empty (no evidence of a difference). */
export function sortedJaccard(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return inter / (a.length + b.length - inter);
}

/** Weighted Jaccard sum(min) / sum(max) over two sorted key arrays with aligned weights. */
export function weightedJaccard(ka: Int32Array, wa: Float64Array, kb: Int32Array, wb: Float64Array): number {
  if (ka.length === 0 && kb.length === 0) return 1;
  let i = 0;
  let j = 0;
  let num = 0;
  let den = 0;
  while (i < ka.length && j < kb.length) {
    if (ka[i] === kb[j]) {
      const x = wa[i++];
      const y = wb[j++];
      if (x < y) {
        num += x;
        den += y;
      } else {
        num += y;
        den += x;
      }
    } else if (ka[i] < kb[j]) den += wa[i++];
    else den += wb[j++];
  }
  while (i < ka.length) den += wa[i++];
  while (j < kb.length) den += wb[j++];
  return den === 0 ? 1 : num / den;
}

/**
 * URL part: same host+path scores 0.6 + 0.4 x Jaccard of the query pairs; a different path earns at
 * most 0.2, in proportion to the leading path segments the two share (sibling pages).
 */
export function urlSimilarity(a: StateFeatures, b: StateFeatures): number {
  if (a.urlPath === b.urlPath) return 0.6 + 0.4 * sortedJaccard(a.query, b.query);
  const sa = a.pathSegments;
  const sb = b.pathSegments;
  if (a.host !== b.host) return 0;
  const longest = Math.max(sa.length, sb.length);
  if (longest === 0) return SIBLING_PATH_CREDIT;
  let common = 0;
  while (common < sa.length && common < sb.length && sa[common] === sb[common]) common++;
  return (SIBLING_PATH_CREDIT * common) / longest;
}

/**
 * Progress part: half position (1 - step distance over the longer run), half subgoals (1 - the
 * difference in distinct successful state-changing actions over the larger count).
 */
export function progressSimilarity(a: StateFeatures, b: StateFeatures): number {
  const longest = Math.max(a.runLength, b.runLength, 1);
  const position = 1 - Math.abs(a.position - b.position) / longest;
  const most = Math.max(a.subgoals, b.subgoals, 1);
  const subgoals = 1 - Math.abs(a.subgoals - b.subgoals) / most;
  return 0.5 * position + 0.5 * subgoals;
}

/** The full comparability breakdown of two states. */
export function comparability(
  a: StateFeatures,
  b: StateFeatures,
  weights: ComparabilityWeights = DEFAULT_COMPARABILITY_WEIGHTS,
): Comparability {
  const url = urlSimilarity(a, b);
  const elements = weightedJaccard(a.elementKeys, a.elementWeights, b.elementKeys, b.elementWeights);
  const memory = sortedJaccard(a.memory, b.memory);
  const progress = progressSimilarity(a, b);
  return { url, elements, memory, progress, total: weightedTotal(url, elements, memory, progress, weights) };
}

/** The weighted total, normalized by the weight sum so it stays in [0, 1] whatever the weights. */
export function weightedTotal(
  url: number,
  elements: number,
  memory: number,
  progress: number,
  w: ComparabilityWeights,
): number {
  const sum = w.url + w.elements + w.memory + w.progress;
  if (sum <= 0) return 0;
  const t = (w.url * url + w.elements * elements + w.memory * memory + w.progress * progress) / sum;
  return Math.min(1, Math.max(0, t));
}

/** Only the total (the alignment's inner loop), without allocating a breakdown. */
export function comparabilityTotal(a: StateFeatures, b: StateFeatures, w: ComparabilityWeights): number {
  return weightedTotal(
    urlSimilarity(a, b),
    weightedJaccard(a.elementKeys, a.elementWeights, b.elementKeys, b.elementWeights),
    sortedJaccard(a.memory, b.memory),
    progressSimilarity(a, b),
    w,
  );
}
