import { describe, expect, it } from 'vitest';
import type { FailureLabel, Trajectory } from '../core/index.ts';
import { DEFAULT_COMPARABILITY_WEIGHTS, DEFAULT_MIN_COMPARABILITY } from './comparability.ts';
import { findDivergences } from './divergence.ts';
import { act, page, trajectory } from './fixtures.ts';
import { tagByRules } from './rules-tagger.ts';
import {
  cart,
  HOME,
  LOOKALIKE_FAILURE,
  LOOP_WANDERER,
  product,
  RESULTS,
  results,
  SCROLL_WANDERER,
  SUCCESS,
  T,
} from './scenarios.test-helpers.ts';
import { Interner, trajectoryFeatures } from './state-features.ts';
import { LABEL_ORDER, TAXONOMY } from './taxonomy.ts';

/** The label of the last divergence of a pair. */
function lastLabel(
  success: Trajectory,
  failure: Trajectory,
): { label: FailureLabel; reason: string; i: number } {
  const interner = new Interner();
  const [d] = findDivergences(trajectoryFeatures(success, interner), trajectoryFeatures(failure, interner), {
    weights: DEFAULT_COMPARABILITY_WEIGHTS,
    minComparability: DEFAULT_MIN_COMPARABILITY,
    maxCandidates: 5,
  });
  if (!d) throw new Error('no divergence');
  return { ...tagByRules(d), i: d.i };
}

const fail = (id: string, moves: Parameters<typeof trajectory>[2]) => trajectory(id, T, moves, false);
const P2 = product('2', 'Trail Runner 2');
const MODAL_RESULTS = page('http://shop.test/search?q=trail+shoes', [
  ...RESULTS.elements.map((e) => ({ tag: e.tag, role: e.role, name: e.name, href: e.attributes.href })),
  { tag: 'div', role: 'dialog', name: 'We use cookies' },
  { name: 'Accept all', parentIndex: 8 },
]);

const cases: Array<[FailureLabel, Trajectory, Trajectory]> = [
  [
    'premature-done',
    SUCCESS,
    fail('f-done', [
      [HOME, act.input(0, 'trail shoes')],
      [RESULTS, act.done('Trail Runner 2 is available')],
    ]),
  ],
  [
    'blocked-by-overlay',
    SUCCESS,
    fail('f-overlay', [
      [HOME, act.input(0, 'trail shoes')],
      [
        RESULTS,
        act.click(6),
        { message: 'click(6): element 6 is covered by <div class="cookie-banner">', kind: 'covered' },
      ],
      [
        results({
          lastActionError: 'click(6): element 6 is covered by <div class="cookie-banner">',
          lastActionErrorKind: 'covered',
        }),
        act.click(6),
      ],
    ]),
  ],
  [
    'blocked-by-overlay',
    trajectory(
      's-modal',
      T,
      [
        [HOME, act.input(0, 'trail shoes')],
        [MODAL_RESULTS, act.click(9)],
        [RESULTS, act.click(4)],
      ],
      true,
    ),
    fail('f-modal', [
      [HOME, act.input(0, 'trail shoes')],
      [MODAL_RESULTS, act.click(6)],
    ]),
  ],
  [
    'input-error',
    SUCCESS,
    fail('f-typo', [
      [HOME, act.input(0, 'trial shoes')],
      [HOME, act.click(1)],
    ]),
  ],
  [
    'input-error',
    SUCCESS,
    fail('f-answer', [
      ...SUCCESS.steps
        .slice(0, 3)
        .map((s) => [s.observation, s.action] as [typeof s.observation, typeof s.action]),
      [cart('Trail Runner 2', '2'), act.done('Added Trail Runner 3 to the cart')],
    ]),
  ],
  [
    // Both answer from the results page, but only the success side had it sorted.
    'missed-constraint',
    trajectory(
      's-sorted-answer',
      T,
      [
        [HOME, act.input(0, 'trail shoes')],
        [
          { ...RESULTS, url: 'http://shop.test/search?q=trail+shoes&sort=price' },
          act.done('Road Racer, $59'),
        ],
      ],
      true,
    ),
    fail('f-unsorted-answer', [
      [HOME, act.input(0, 'trail shoes')],
      [RESULTS, act.done('Trail Runner 2 GTX, $149')],
    ]),
  ],
  ['lookalike-element', SUCCESS, LOOKALIKE_FAILURE],
  ['scroll-stall', SUCCESS, SCROLL_WANDERER],
  ['repetition-loop', SUCCESS, LOOP_WANDERER],
  [
    'missed-constraint',
    trajectory(
      's-sort',
      T,
      [
        [HOME, act.input(0, 'trail shoes')],
        [RESULTS, act.select(3, 'Price: low to high')],
        [RESULTS, act.click(6)],
      ],
      true,
    ),
    fail('f-nosort', [
      [HOME, act.input(0, 'trail shoes')],
      [RESULTS, act.click(6)],
      [page('http://shop.test/p/5', [{ name: 'Add to cart' }]), act.click(0)],
    ]),
  ],
  [
    'wrong-navigation',
    SUCCESS,
    fail('f-deals', [
      [HOME, act.input(0, 'trail shoes')],
      [RESULTS, act.click(7)],
    ]),
  ],
  [
    'wrong-navigation',
    SUCCESS,
    fail('f-back', [
      [HOME, act.input(0, 'trail shoes')],
      [RESULTS, act.back()],
    ]),
  ],
  [
    'other',
    trajectory(
      's-other',
      T,
      [
        [P2, act.click(0)],
        [P2, act.click(3)],
      ],
      true,
    ),
    fail('f-other', [[P2, act.click(1)]]),
  ],
];

describe('tagByRules', () => {
  it.each(cases)('%s (%#)', (label, success, failure) => {
    const got = lastLabel(success, failure);
    expect(got.label).toBe(label);
    expect(got.reason.length).toBeGreaterThan(10);
  });

  it('covers every label of the taxonomy, each with a documented rule', () => {
    expect(new Set(cases.map((c) => c[0]))).toEqual(new Set(LABEL_ORDER));
    for (const l of LABEL_ORDER) expect(TAXONOMY[l].rule.length).toBeGreaterThan(10);
  });

  it('reads the error kind, never the wording: an overlay-sounding message of another kind is no overlay', () => {
    const wording = 'click(6): element 6 <a "Close overlay"> is disabled';
    const failure = fail('f-wording', [
      [HOME, act.input(0, 'trail shoes')],
      [RESULTS, act.click(6), { message: wording, kind: 'other' }],
      [results({ lastActionError: wording, lastActionErrorKind: 'other' }), act.click(6)],
    ]);
    expect(lastLabel(SUCCESS, failure).label).not.toBe('blocked-by-overlay');
    const legacy = fail('f-legacy', [
      [HOME, act.input(0, 'trail shoes')],
      [RESULTS, act.click(6), 'click intercepted by overlay'],
    ]);
    expect(lastLabel(SUCCESS, legacy).label).not.toBe('blocked-by-overlay');
  });

  it('names both elements in a lookalike reason', () => {
    const { reason, i } = lastLabel(SUCCESS, LOOKALIKE_FAILURE);
    expect(i).toBe(1);
    expect(reason).toContain('"Trail Runner 2"');
    expect(reason).toContain('"Trail Runner 2 GTX"');
  });

  it('does not call typing into "Search products" a lookalike of clicking "Search"', () => {
    const success = trajectory(
      's-search',
      T,
      [
        [HOME, act.input(0, 'trail shoes')],
        [HOME, act.click(1)],
        [RESULTS, act.click(4)],
      ],
      true,
    );
    const failure = fail('f-retype', [
      [HOME, act.input(0, 'trail shoes')],
      [HOME, act.input(0, 'trail')],
    ]);
    expect(lastLabel(success, failure).label).not.toBe('lookalike-element');
  });
});
