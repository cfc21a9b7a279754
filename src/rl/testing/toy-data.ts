import type { Action } from '../../core/action.ts';
import { Observation, type ObservationInput } from '../../core/observation.ts';
import { Rng } from '../../core/rng.ts';
import type { RlExample } from '../critical-data.ts';

/**
 * Small synthetic critical states for rl/ tests: search, lookalike links and answer extraction,
 * with shuffled element order so indices carry no signal. Ground truth is always expressible by
 * TinyPolicy (click/input/done, texts drawn from the objective's words).
 */

const COLORS = ['red', 'blue', 'green', 'black', 'white'];
const ITEMS = ['shoes', 'mug', 'lamp', 'jacket', 'chair'];
const box = { x: 0, y: 0, width: 10, height: 10 };

type El = Omit<ObservationInput['elements'] extends Array<infer E> | undefined ? E : never, 'index' | 'bbox'>;

function state(
  rng: Rng,
  id: string,
  objective: string,
  url: string,
  els: El[],
  truthKey: string,
  make: (index: number) => Action,
): RlExample {
  const order = rng.shuffle(els);
  const observation = Observation.parse({
    url,
    elements: order.map((e, index) => ({ ...e, index, bbox: box })),
  });
  const truthIndex = order.findIndex((e) => e.nodeKey === truthKey);
  return {
    id,
    state: { task: { id, objective, startUrl: url, site: 'toy' }, observation, history: [] },
    truth: make(truthIndex),
  };
}

/** `n` toy examples, reproducible from `seed`. */
export function toyExamples(n: number, seed = 0): RlExample[] {
  const rng = new Rng(seed);
  const out: RlExample[] = [];
  for (let i = 0; i < n; i++) {
    const color = rng.pick(COLORS);
    const item = rng.pick(ITEMS);
    const id = `toy-${i}`;
    switch (i % 3) {
      case 0:
        out.push(
          state(
            rng,
            id,
            `Search for ${color} ${item}`,
            'http://toy.test/',
            [
              { tag: 'input', name: 'Search products', nodeKey: 'search' },
              { tag: 'button', name: 'Go', nodeKey: 'go' },
              { tag: 'a', name: 'Sale', attributes: { href: '/sale' }, nodeKey: 'sale' },
            ],
            'search',
            (index) => ({ type: 'input', index, text: `${color} ${item}`, clear: true }),
          ),
        );
        break;
      case 1:
        out.push(
          state(
            rng,
            id,
            `Open the ${item} page`,
            'http://toy.test/home',
            [
              { tag: 'a', name: `${item}`, attributes: { href: `/${item}` }, nodeKey: 'item' },
              { tag: 'a', name: `${item} accessories`, attributes: { href: `/${item}-acc` }, nodeKey: 'acc' },
              { tag: 'button', name: 'Login', nodeKey: 'login' },
            ],
            'item',
            (index) => ({ type: 'click', index }),
          ),
        );
        break;
      default:
        out.push(
          state(
            rng,
            id,
            `Report the ${item} colour which is ${color}`,
            `http://toy.test/${item}`,
            [{ tag: 'a', name: 'Home', attributes: { href: '/' }, nodeKey: 'home' }],
            'home',
            () => ({ type: 'done', text: color, success: true }),
          ),
        );
    }
  }
  return out;
}
