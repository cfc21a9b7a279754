import type { Observation } from '../core/index.ts';
import { act, page, task, trajectory } from './fixtures.ts';

/**
 * A tiny shop used by the miner's tests. Element indices are fixed per page so scenarios read like
 * the agent's view: RESULTS[4] is the "Trail Runner 2" link, RESULTS[5] its lookalike, and so on.
 */
export const SHOP = 'shop';
export const T = task('buy-trail-runner-2', SHOP);

export const HOME = page('http://shop.test/', [
  { tag: 'input', role: 'searchbox', name: 'Search products' },
  { name: 'Search' },
  { name: 'Deals', href: '/deals' },
  { name: 'Cart', href: '/cart' },
]);

export function results(
  extra: Partial<Pick<Observation, 'memory' | 'lastActionError' | 'lastActionErrorKind'>> = {},
): Observation {
  return page(
    'http://shop.test/search?q=trail+shoes',
    [
      { tag: 'input', role: 'searchbox', name: 'Search products' },
      { name: 'Search' },
      { name: 'Cart', href: '/cart' },
      { tag: 'select', name: 'Sort by' },
      { name: 'Trail Runner 2', href: '/p/2' },
      { name: 'Trail Runner 2 GTX', href: '/p/22' },
      { name: 'Road Racer', href: '/p/5' },
      { name: 'Next page', href: '/search?q=trail+shoes&page=2' },
    ],
    extra,
  );
}
export const RESULTS = results();

/** A product page: [0] Add to cart, [1] Compare, [2] Quantity, [3] Cart, [4] Reviews, [5] Back to results. */
export function product(id: string, name: string): Observation {
  return page(`http://shop.test/p/${id}`, [
    { name: 'Add to cart' },
    { name: 'Compare' },
    { tag: 'input', name: 'Quantity' },
    { name: 'Cart', href: '/cart' },
    { name: `Reviews of ${name}`, href: `/p/${id}/reviews` },
    { name: `More like ${name}`, href: `/p/${id}/similar` },
  ]);
}

export function cart(item: string, id: string): Observation {
  return page('http://shop.test/cart', [
    { name: 'Checkout' },
    { name: item, href: `/p/${id}` },
    { name: 'Continue shopping', href: '/' },
  ]);
}

export const ERROR_PAGE = page('http://shop.test/error', [{ name: 'Retry' }, { name: 'Report a problem' }]);

/** The success every scenario pairs with: search, open Trail Runner 2, add it, answer. */
export const SUCCESS = trajectory(
  'succ-1',
  T,
  [
    [HOME, act.input(0, 'trail shoes')],
    [RESULTS, act.click(4)],
    [product('2', 'Trail Runner 2'), act.click(0)],
    [cart('Trail Runner 2', '2'), act.done('Added Trail Runner 2 to the cart')],
  ],
  true,
);

/** Clicked the lookalike at step 1; the rest follows the same script on the wrong product. */
export const LOOKALIKE_FAILURE = trajectory(
  'fail-lookalike',
  T,
  [
    [HOME, act.input(0, 'trail shoes')],
    [RESULTS, act.click(5)],
    [product('22', 'Trail Runner 2 GTX'), act.click(0)],
    [cart('Trail Runner 2 GTX', '22'), act.done('Added Trail Runner 2 to the cart')],
  ],
  false,
);

/** Same actions as the success, yet judged a failure: nothing diverges. */
export const SAME_ACTIONS_FAILURE = trajectory(
  'fail-same',
  T,
  SUCCESS.steps.map((s) => [s.observation, s.action] as [Observation, typeof s.action]),
  false,
);

/** The site served an error page after the search: it diverges, but never from comparable states. */
export const ERROR_FAILURE = trajectory(
  'fail-error',
  T,
  [
    [HOME, act.input(0, 'trail shoes')],
    [ERROR_PAGE, act.click(0)],
    [ERROR_PAGE, act.click(1)],
  ],
  false,
);

/** Wandering: scrolls the results until the step limit, no verdict. */
export const SCROLL_WANDERER = trajectory(
  'wander-scroll',
  T,
  [
    [HOME, act.input(0, 'trail shoes')],
    [RESULTS, act.scroll()],
    [RESULTS, act.scroll()],
    [RESULTS, act.scroll()],
    [RESULTS, act.scroll()],
  ],
  null,
  'max_steps',
);

/** Wandering: presses Search again and again until the loop detector stops it. */
export const LOOP_WANDERER = trajectory(
  'wander-loop',
  T,
  [
    [HOME, act.input(0, 'trail shoes')],
    [RESULTS, act.click(1)],
    [RESULTS, act.click(1)],
    [RESULTS, act.click(1)],
  ],
  null,
  'loop',
);

/** No verdict and not wandering: never paired. */
export const UNVERIFIED = trajectory('unverified', T, [[HOME, act.done('gave up', false)]], null, 'done');
