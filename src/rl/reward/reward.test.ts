import { describe, expect, it } from 'vitest';
import type { Action } from '../../core/action.ts';
import { Observation, type ObservationInput } from '../../core/observation.ts';
import {
  exactReward,
  polarize,
  polarizedReward,
  REWARD_NAMES,
  rewardByName,
  textSimReward,
} from './index.ts';

const box = { x: 0, y: 0, width: 10, height: 10 };
const obs = Observation.parse({
  url: 'http://shop.test/search',
  elements: [
    { index: 0, tag: 'input', name: 'Destination', nodeKey: 'k0', bbox: box },
    { index: 1, tag: 'button', name: 'Search', nodeKey: 'k1', bbox: box },
    { index: 2, tag: 'a', name: 'Contact', attributes: { href: '/contact' }, nodeKey: 'k2', bbox: box },
    { index: 3, tag: 'a', name: 'Contact', attributes: { href: '/contact-sales' }, nodeKey: 'k3', bbox: box },
    { index: 4, tag: 'span', text: 'Search', nodeKey: 'k4', parentIndex: 1, bbox: box },
    { index: 5, tag: 'button', name: 'Add to cart', nodeKey: 'k5', bbox: box },
    { index: 6, tag: 'button', name: 'Add to cart', nodeKey: 'k6', bbox: box },
  ],
} satisfies ObservationInput);

const polarized = polarizedReward();
const click = (index: number): Action => ({ type: 'click', index });
const input = (index: number, text: string): Action => ({ type: 'input', index, text, clear: true });

// [name, sampled, truth, polarized, exact, textsim as [lo, hi]]
const TABLE: Array<[string, Action | undefined, Action, number, number, [number, number]]> = [
  ['identical click', click(1), click(1), 1, 1, [1, 1]],
  ['wrong element, same label (lookalike)', click(5), click(6), -1, 0, [0.8, 0.99]],
  ['wrong link, same label, other destination', click(3), click(2), -1, 0, [0.8, 0.99]],
  ['descendant span of the same button', click(4), click(1), 1, 0, [0, 0.9]],
  ['"New York" vs "new york "', input(0, 'New York'), input(0, 'new york '), 1, 0, [0.5, 0.99]],
  ['wrong type', input(1, 'Search'), click(1), -1, 0, [0, 0.9]],
  ['parse failure', undefined, click(1), -1, 0, [0, 0]],
  ['right text, wrong element', input(1, 'Paris'), input(0, 'Paris'), -1, 0, [0.3, 0.99]],
  [
    'done with the wrong outcome',
    { type: 'done', text: 'ok', success: false },
    { type: 'done', text: 'ok', success: true },
    -1,
    0,
    [0.5, 0.99],
  ],
  [
    'done, answer with number format',
    { type: 'done', text: '$1,299.00', success: true },
    { type: 'done', text: '1299', success: true },
    1,
    0,
    [0, 0.9],
  ],
  [
    'scroll the other way',
    { type: 'scroll', down: false, pages: 1 },
    { type: 'scroll', down: true, pages: 1 },
    -1,
    0,
    [0.5, 0.99],
  ],
];

describe('rewards on near-misses', () => {
  it.each(TABLE)('%s', (_name, sampled, truth, pol, exact, [lo, hi]) => {
    expect(polarized(sampled, truth, obs)).toBe(pol);
    expect(exactReward(sampled, truth, obs)).toBe(exact);
    const ts = textSimReward(sampled, truth, obs);
    expect(ts).toBeGreaterThanOrEqual(lo);
    expect(ts).toBeLessThanOrEqual(hi);
  });

  it('pushes partial text away from the middle rather than scoring it linearly', () => {
    const truth = input(0, 'red running shoes size 10');
    // token F1 0.75 -> linear 0.5, polarized sqrt(0.5)
    const most = polarized(input(0, 'red running shoes'), truth, obs);
    expect(most).toBeCloseTo(Math.SQRT1_2, 6);
    expect(most).toBeGreaterThan(2 * 0.75 - 1);
    // token F1 1/3 -> linear -1/3, polarized -sqrt(1/3)
    const little = polarized(input(0, 'red'), truth, obs);
    expect(little).toBeCloseTo(-Math.sqrt(1 / 3), 6);
    expect(little).toBeLessThan(2 / 3 - 1);
    // disjoint text on the right element is as wrong as it gets
    expect(polarized(input(0, 'blue hats'), truth, obs)).toBe(-1);
  });

  it('polarize is odd around 0.5 and its power controls the push', () => {
    expect(polarize(0.5)).toBe(0);
    expect(polarize(0)).toBe(-1);
    expect(polarize(1)).toBe(1);
    expect(polarize(0.75, 1)).toBeCloseTo(0.5, 9);
    expect(polarize(0.6, 0.5)).toBeCloseTo(-polarize(0.4, 0.5), 9);
    expect(polarize(0.6, 0.25)).toBeGreaterThan(polarize(0.6, 0.5));
    expect(() => polarizedReward({ power: 0 })).toThrow(RangeError);
  });

  it('registers every reward by name and rejects unknown names', () => {
    for (const name of REWARD_NAMES) expect(typeof rewardByName(name)).toBe('function');
    expect(() => rewardByName('bleu')).toThrow(/unknown reward "bleu"/);
  });
});
