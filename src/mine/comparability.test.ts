import { describe, expect, it } from 'vitest';
import { alignRuns } from './align.ts';
import {
  comparability,
  comparabilityTotal,
  DEFAULT_COMPARABILITY_WEIGHTS,
  DEFAULT_MIN_COMPARABILITY,
  weightedJaccard,
} from './comparability.ts';
import { act, page, trajectory } from './fixtures.ts';
import {
  cart,
  ERROR_PAGE,
  HOME,
  LOOKALIKE_FAILURE,
  product,
  RESULTS,
  results,
  SUCCESS,
  T,
} from './scenarios.test-helpers.ts';
import { Interner, trajectoryFeatures } from './state-features.ts';

const W = DEFAULT_COMPARABILITY_WEIGHTS;

describe('weightedJaccard', () => {
  it('is sum(min) / sum(max) over keys', () => {
    const k = (xs: number[]) => Int32Array.from(xs);
    const w = (xs: number[]) => Float64Array.from(xs);
    // keys 1,2 vs 2,3 with weights: min 1 (key 2), max 1 + 2 + 1 = 4
    expect(weightedJaccard(k([1, 2]), w([1, 1]), k([2, 3]), w([2, 1]))).toBeCloseTo(1 / 4, 10);
    expect(weightedJaccard(k([]), w([]), k([]), w([]))).toBe(1);
    expect(weightedJaccard(k([1]), w([1]), k([]), w([]))).toBe(0);
  });
});

describe('comparability', () => {
  const interner = new Interner();
  // One-step runs so progress is equal and only the page differs.
  const state = (obs: typeof HOME, memory = '') =>
    trajectoryFeatures(trajectory('x', T, [[{ ...obs, memory }, act.scroll()]], false), interner).states[0];

  it('is 1 for the same state and weights sum to 1', () => {
    expect(comparability(state(RESULTS), state(RESULTS)).total).toBeCloseTo(1, 10);
    expect(W.url + W.elements + W.memory + W.progress).toBeCloseTo(1, 10);
  });

  it('ranks same page > same path, other query > sibling path > other page, and gates at the threshold', () => {
    const same = comparabilityTotal(state(RESULTS), state(results({ lastActionError: 'x' })), W);
    const otherQuery = comparabilityTotal(
      state(RESULTS),
      state(page('http://shop.test/search?q=boots', RESULTS.elements)),
      W,
    );
    const sibling = comparabilityTotal(
      state(product('2', 'Trail Runner 2')),
      state(product('22', 'Trail Runner 2 GTX')),
      W,
    );
    const unrelated = comparabilityTotal(state(RESULTS), state(ERROR_PAGE), W);
    expect(same).toBeCloseTo(1, 10);
    expect(otherQuery).toBeLessThan(same);
    expect(sibling).toBeLessThan(otherQuery);
    expect(unrelated).toBeLessThan(sibling);
    expect(otherQuery).toBeGreaterThanOrEqual(DEFAULT_MIN_COMPARABILITY);
    expect(sibling).toBeLessThan(DEFAULT_MIN_COMPARABILITY);
  });

  it('reads memory as token overlap and reports each part', () => {
    const c = comparability(
      state(RESULTS, 'searched trail shoes'),
      state(RESULTS, 'searched for road shoes'),
    );
    expect(c.memory).toBeCloseTo(2 / 5, 10);
    expect(c.url).toBe(1);
    expect(c.elements).toBe(1);
    expect(c.total).toBeCloseTo(W.url + W.elements + W.memory * 0.4 + W.progress, 10);
  });

  it('counts distinct successful state-changing actions as subgoals', () => {
    const f = trajectoryFeatures(
      trajectory(
        'sub',
        T,
        [
          [HOME, act.input(0, 'a')],
          [HOME, act.input(0, 'a')],
          [HOME, act.scroll()],
          [HOME, act.click(1), 'boom'],
          [HOME, act.click(1)],
          [cart('x', '1'), act.done()],
        ],
        true,
      ),
      interner,
    );
    expect(f.states.map((s) => s.subgoals)).toEqual([0, 1, 1, 1, 1, 2]);
  });
});

describe('alignRuns', () => {
  it('matches comparable states monotonically and skips detours', () => {
    const interner = new Interner();
    const s = trajectoryFeatures(SUCCESS, interner);
    const f = trajectoryFeatures(LOOKALIKE_FAILURE, interner);
    const pairs = alignRuns(s.states, f.states, W, DEFAULT_MIN_COMPARABILITY);
    // Home and results match; the two product pages do not; the cart pages (same path) do.
    expect(pairs.map((p) => [p.i, p.j])).toEqual([
      [0, 0],
      [1, 1],
      [3, 3],
    ]);
    const detour = trajectoryFeatures(
      trajectory(
        'detour',
        T,
        [
          [HOME, act.input(0, 'trail shoes')],
          [ERROR_PAGE, act.click(0)],
          [RESULTS, act.click(4)],
        ],
        false,
      ),
      interner,
    );
    expect(alignRuns(s.states, detour.states, W, DEFAULT_MIN_COMPARABILITY).map((p) => [p.i, p.j])).toEqual([
      [0, 0],
      [1, 2],
    ]);
  });
});
