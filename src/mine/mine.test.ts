import { describe, expect, it } from 'vitest';
import { CriticalState, Rng, type Trajectory } from '../core/index.ts';
import { DEFAULT_COMPARABILITY_WEIGHTS, DEFAULT_MIN_COMPARABILITY } from './comparability.ts';
import { DEFAULT_LABEL_PRIORS, findDivergences, successActionRecoverable } from './divergence.ts';
import { act, page, task, trajectory } from './fixtures.ts';
import { mineCriticalStates } from './mine.ts';
import { rulesTagger } from './rules-tagger.ts';
import {
  ERROR_FAILURE,
  HOME,
  LOOKALIKE_FAILURE,
  LOOP_WANDERER,
  product,
  RESULTS,
  SAME_ACTIONS_FAILURE,
  SCROLL_WANDERER,
  SUCCESS,
  T,
  UNVERIFIED,
} from './scenarios.test-helpers.ts';
import { Interner, trajectoryFeatures } from './state-features.ts';
import type { Tagger } from './taxonomy.ts';

describe('mineCriticalStates', () => {
  it('finds the divergence at the known step, with the success action as ground truth', async () => {
    const { criticalStates, stats } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    expect(criticalStates).toHaveLength(1);
    const cs = CriticalState.parse(criticalStates[0]);
    expect(cs.success).toMatchObject({
      trajectoryId: 'succ-1',
      stepIndex: 1,
      action: { type: 'click', index: 4 },
    });
    expect(cs.failure).toMatchObject({
      trajectoryId: 'fail-lookalike',
      stepIndex: 1,
      action: { type: 'click', index: 5 },
    });
    expect(cs.success.history).toEqual([act.input(0, 'trail shoes')]);
    // The page of each earlier action, so the student's history facts stay page-scoped in RL.
    expect(cs.success.historyUrls).toEqual([HOME.url]);
    expect(cs.failure.history).toEqual([act.input(0, 'trail shoes')]);
    expect(cs.success.observation.url).toBe(RESULTS.url);
    expect(cs.label).toBe('lookalike-element');
    expect(cs.labelSource).toBe('rules');
    expect(cs.labelReason).toContain('Trail Runner 2 GTX');
    expect(cs.comparability.total).toBeGreaterThanOrEqual(0.7);
    expect(cs.comparability.url).toBe(1);
    expect(stats).toMatchObject({
      pairsConsidered: 1,
      failedPairs: 1,
      criticalStates: 1,
      successSteps: 4,
      yield: 0.25,
    });
    expect(stats.perLabel['lookalike-element']).toBe(1);
    expect(stats.perSite.shop).toMatchObject({ pairs: 1, criticalStates: 1, successSteps: 4 });
  });

  it('yields nothing when the runs never diverge from comparable states', async () => {
    for (const failure of [SAME_ACTIONS_FAILURE, ERROR_FAILURE]) {
      const { criticalStates, stats } = await mineCriticalStates([SUCCESS, failure]);
      expect(criticalStates).toEqual([]);
      expect(stats.pairsConsidered).toBe(1);
      expect(stats.pairsWithDivergence).toBe(0);
      expect(stats.yield).toBe(0);
    }
  });

  it('pairs wandering runs (no verdict, step limit or loop) and labels them', async () => {
    const { criticalStates, stats } = await mineCriticalStates(
      [SUCCESS, SCROLL_WANDERER, LOOP_WANDERER, UNVERIFIED],
      {
        dedupe: false,
      },
    );
    expect(stats).toMatchObject({ wandering: 2, unverified: 1, pairsConsidered: 2, wanderingPairs: 2 });
    const byFailure = Object.fromEntries(criticalStates.map((c) => [c.failure.trajectoryId, c]));
    expect(byFailure['wander-scroll'].label).toBe('scroll-stall');
    expect(byFailure['wander-loop'].label).toBe('repetition-loop');
    for (const cs of criticalStates) expect(cs.success.action).toEqual(act.click(4));
  });

  it('merges critical states from the same success state unless asked not to', async () => {
    const all = [SUCCESS, LOOKALIKE_FAILURE, SCROLL_WANDERER, LOOP_WANDERER];
    const merged = await mineCriticalStates(all);
    const kept = await mineCriticalStates(all, { dedupe: false });
    expect(kept.criticalStates).toHaveLength(3);
    expect(merged.criticalStates).toHaveLength(1);
    expect(merged.stats.duplicatesMerged).toBe(2);
    expect(merged.stats.criticalStates + merged.stats.duplicatesMerged).toBe(kept.stats.criticalStates);
  });

  it('is deterministic: the same output whatever the input order', async () => {
    const all = [SUCCESS, LOOKALIKE_FAILURE, SCROLL_WANDERER, LOOP_WANDERER, ERROR_FAILURE, UNVERIFIED];
    const a = await mineCriticalStates(all, { dedupe: false });
    const b = await mineCriticalStates(new Rng(7).shuffle(all), { dedupe: false });
    expect(JSON.stringify(b.criticalStates)).toBe(JSON.stringify(a.criticalStates));
    expect(a.criticalStates.map((c) => c.id)).toEqual(b.criticalStates.map((c) => c.id));
    expect(new Set(a.criticalStates.map((c) => c.id)).size).toBe(a.criticalStates.length);
  });

  it('gives the same output when a slow tagger runs pairs concurrently', async () => {
    const all = [SUCCESS, LOOKALIKE_FAILURE, SCROLL_WANDERER, LOOP_WANDERER, ERROR_FAILURE];
    const rng = new Rng(3);
    const slow: Tagger = {
      id: 'rules',
      tag: async (d) => {
        await new Promise((r) => setTimeout(r, rng.int(0, 15)));
        return rulesTagger.tag(d);
      },
    };
    const serial = await mineCriticalStates(all, { dedupe: false });
    let calls = 0;
    const parallel = await mineCriticalStates(all, {
      dedupe: false,
      tagger: slow,
      concurrency: 4,
      onProgress: () => calls++,
    });
    expect(JSON.stringify(parallel.criticalStates)).toBe(JSON.stringify(serial.criticalStates));
    expect(calls).toBe(parallel.stats.pairsConsidered);
  });

  it('strips reflection notes and screenshot bytes from the observations it emits', async () => {
    const noted: Trajectory = {
      ...LOOKALIKE_FAILURE,
      steps: LOOKALIKE_FAILURE.steps.map((s) => ({
        ...s,
        observation: {
          ...s.observation,
          notes: ['avoid GTX'],
          screenshot: { hash: 'h', mime: 'image/jpeg', width: 1, height: 1, data: 'AAAA' },
        },
      })),
    };
    const { criticalStates } = await mineCriticalStates([SUCCESS, noted]);
    expect(criticalStates[0].failure.observation.notes).toEqual([]);
    expect(criticalStates[0].failure.observation.screenshot).toEqual({
      hash: 'h',
      mime: 'image/jpeg',
      width: 1,
      height: 1,
    });
  });
});

describe('the label is a soft prior', () => {
  // Two comparable divergences on one product page: the quantity typed (input-error, earlier) and
  // the button pressed next (no rule explains it: 'other', later).
  const P = product('2', 'Trail Runner 2');
  const success = trajectory(
    's2',
    T,
    [
      [P, act.input(2, '2')],
      [P, act.click(0)],
      [P, act.click(3)],
    ],
    true,
  );
  const failure = trajectory(
    'f2',
    T,
    [
      [P, act.input(2, '3')],
      [P, act.click(1)],
    ],
    false,
  );
  const corpus = [
    success,
    failure,
    SUCCESS,
    LOOKALIKE_FAILURE,
    SCROLL_WANDERER,
    LOOP_WANDERER,
    ERROR_FAILURE,
  ];
  const uniform = Object.fromEntries(Object.keys(DEFAULT_LABEL_PRIORS).map((l) => [l, 1]));
  const allOther: Tagger = { id: 'all-other', tag: () => ({ label: 'other', reason: 'test' }) };

  it('changes which divergence is chosen', async () => {
    // The typed quantity is recoverable (the field is still there a step later): switch that prior
    // off so this test sees the label prior alone.
    const withPrior = await mineCriticalStates([success, failure], { recoverablePrior: 1 });
    const flat = await mineCriticalStates([success, failure], { labelPriors: uniform, recoverablePrior: 1 });
    expect(withPrior.criticalStates[0]).toMatchObject({ label: 'input-error', success: { stepIndex: 0 } });
    expect(flat.criticalStates[0]).toMatchObject({ label: 'other', success: { stepIndex: 1 } });
    expect(withPrior.stats.labelChangedChoice).toBe(1);
    expect(flat.stats.labelChangedChoice).toBe(0);
    expect(withPrior.stats.candidates).toBe(2);
  });

  it('never removes a pair: every prior and tagger yields one critical state per diverging pair', async () => {
    const runs = await Promise.all([
      mineCriticalStates(corpus, { dedupe: false }),
      mineCriticalStates(corpus, { dedupe: false, labelPriors: uniform }),
      mineCriticalStates(corpus, { dedupe: false, tagger: allOther }),
      mineCriticalStates(corpus, { dedupe: false, labelPriors: { ...uniform, other: 0 } }),
    ]);
    const pairsOf = (r: (typeof runs)[number]) =>
      r.criticalStates.map((c) => `${c.success.trajectoryId}/${c.failure.trajectoryId}`);
    for (const r of runs) {
      expect(r.stats.pairsWithDivergence).toBe(runs[0].stats.pairsWithDivergence);
      expect(r.stats.candidates).toBe(runs[0].stats.candidates);
      expect(pairsOf(r)).toEqual(pairsOf(runs[0]));
    }
    expect(runs[0].criticalStates.length).toBe(runs[0].stats.pairsWithDivergence);
    // The zero prior on 'other' still keeps the all-'other' choice: ranking only.
    const zeroOther = await mineCriticalStates(corpus, {
      dedupe: false,
      tagger: allOther,
      labelPriors: { other: 0 },
    });
    expect(pairsOf(zeroOther)).toEqual(pairsOf(runs[0]));
  });
});

describe('recoverable divergences (the failure run could still take the success action)', () => {
  const H = task('homes.cheapest', 'homes');
  const controls = [
    { tag: 'select', name: 'Location' },
    { tag: 'select', name: 'Sort by' },
    { name: 'Apply filters' },
  ];
  const filters = () => page('http://homes.test/search', controls);
  // Each order shows its own first page of listings, as the world's results pages do.
  const listings: Record<string, string[]> = {
    newest: ['12 Oak St, $410,000', '3 Elm Ct, $455,000', '7 Mill Blvd, $374,000'],
    'price-asc': ['7 Mill Blvd, $374,000', '2 Bay Ln, $380,000', '12 Oak St, $410,000'],
  };
  const results = (sort: string) =>
    page(`http://homes.test/search?city=Raleigh&sort=${sort}`, [
      ...controls,
      ...listings[sort].map((name) => ({ name, href: `/homes/${name.split(' ')[0]}` })),
    ]);
  // The success sorts before applying and answers the cheapest; the failure applies unsorted and
  // answers the first listing. The sort control stays on the results page, so the unsorted apply
  // is recoverable; the wrong answer is not.
  const success = trajectory(
    'h-s',
    H,
    [
      [filters(), act.select(0, 'Raleigh')],
      [filters(), act.select(1, 'Price (low to high)')],
      [filters(), act.click(2)],
      [results('price-asc'), act.done('7 Mill Blvd, $374,000')],
    ],
    true,
  );
  const failure = trajectory(
    'h-f',
    H,
    [
      [filters(), act.select(0, 'Raleigh')],
      [filters(), act.click(2)],
      [results('newest'), act.done('12 Oak St, $410,000')],
    ],
    false,
  );

  it('tells an action the failure run could redo from one it could not take back', () => {
    const it = new Interner();
    const [sort, answer] = [
      [1, 1],
      [3, 2],
    ].map(([i, j]) => successActionRecoverable(success, i, failure, j));
    expect(sort).toBe(true);
    expect(answer).toBe(false);
    const f = findDivergences(trajectoryFeatures(success, it), trajectoryFeatures(failure, it), {
      weights: { ...DEFAULT_COMPARABILITY_WEIGHTS },
      minComparability: DEFAULT_MIN_COMPARABILITY,
      maxCandidates: 5,
    });
    expect(f.map((d) => [d.i, d.j, d.recoverable])).toEqual([
      [3, 2, false],
      [1, 1, true],
    ]);
    // The lookalike click cannot be redone: the failure run never sees that link again.
    expect(successActionRecoverable(SUCCESS, 1, LOOKALIKE_FAILURE, 1)).toBe(false);
    // Nothing follows the failure's last step.
    expect(successActionRecoverable(success, 3, failure, 2)).toBe(false);
  });

  it('prefers the irreversible divergence by default, the more comparable one without the prior', async () => {
    const def = await mineCriticalStates([success, failure]);
    const off = await mineCriticalStates([success, failure], { recoverablePrior: 1 });
    expect(def.criticalStates[0]).toMatchObject({ success: { stepIndex: 3 }, failure: { stepIndex: 2 } });
    expect(off.criticalStates[0]).toMatchObject({ success: { stepIndex: 1 }, failure: { stepIndex: 1 } });
    expect(def.stats).toMatchObject({
      recoverableCandidates: 1,
      pairsAllRecoverable: 0,
      recoverableChosen: 0,
    });
    expect(off.stats.recoverableChosen).toBe(1);
    expect(def.stats.options).toMatchObject({ recoverablePrior: 0.3, dropRecoverable: false });
  });

  it('drops a pair whose every divergence is recoverable only when asked to', async () => {
    // A radio set wrong and left so: the right option stays on the page after the wrong click.
    const form = page('http://forms.test/apply/step/2', [
      { tag: 'input', role: 'radio', name: 'Yes', nodeKey: 'radio:home:yes' },
      { tag: 'input', role: 'radio', name: 'No', nodeKey: 'radio:home:no' },
      { name: 'Continue' },
    ]);
    const review = page('http://forms.test/apply/review', [{ name: 'Submit application' }]);
    const F = task('forms.license', 'forms');
    const s = trajectory(
      'f-s',
      F,
      [
        [form, act.click(1)],
        [form, act.click(2)],
        [review, act.click(0)],
      ],
      true,
    );
    const f = trajectory(
      'f-f',
      F,
      [
        [form, act.click(0)],
        [form, act.click(2)],
        [review, act.click(0)],
      ],
      false,
    );
    const kept = await mineCriticalStates([s, f]);
    const dropped = await mineCriticalStates([s, f], { dropRecoverable: true });
    expect(kept.criticalStates).toHaveLength(1);
    expect(kept.stats).toMatchObject({
      pairsWithDivergence: 1,
      pairsAllRecoverable: 1,
      recoverableChosen: 1,
    });
    expect(dropped.criticalStates).toEqual([]);
    expect(dropped.stats).toMatchObject({
      pairsWithDivergence: 1,
      pairsAllRecoverable: 1,
      criticalStates: 0,
    });
    // With an irreversible candidate in the pair (the homes pair), dropping changes nothing.
    const both = await mineCriticalStates([success, failure], { dropRecoverable: true });
    expect(both.criticalStates.map((c) => c.id)).toEqual(
      (await mineCriticalStates([success, failure])).criticalStates.map((c) => c.id),
    );
  });
});
