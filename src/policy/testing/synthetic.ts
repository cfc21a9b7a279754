import type { Action } from '../../core/action.ts';
import { makeAgentOutput } from '../../core/agent-output.ts';
import { type Element, Observation } from '../../core/observation.ts';
import { Rng } from '../../core/rng.ts';
import { Trajectory, type TrajectoryInput } from '../../core/trajectory.ts';

/**
 * Hand-built observations and trajectories for the policy's tests and benchmark: a small shop with a
 * search box, result lists with lookalike items, a sort select, prices to report and a link below
 * the fold. Solutions need the task text (which item, which option, which answer), so a policy
 * that ignores the task cannot fit them.
 */

const ITEMS = [
  'Trail Runner 2',
  'Trail Runner 2 GTX',
  'Road Racer',
  'Summit Pack 30',
  'Summit Pack 45',
  'Camp Stove Mini',
  'Rain Shell Pro',
  'Down Jacket',
  'Wool Socks',
  'Headlamp 300',
  'Water Filter',
  'Trekking Poles',
];
const SORTS = ['Relevance', 'Price: low to high', 'Price: high to low', 'Highest rated'];
const FILLER = [
  'Home',
  'Deals',
  'Help',
  'Account',
  'Stores',
  'Gift cards',
  'Careers',
  'Blog',
  'Returns',
  'Shipping',
];

interface ElSpec {
  tag: string;
  text?: string;
  role?: string;
  attributes?: Record<string, string>;
  y?: number;
}

function obs(
  url: string,
  title: string,
  specs: ElSpec[],
  rng: Rng,
  filler: number,
  extra: Partial<Observation> = {},
): Observation {
  const all: ElSpec[] = [...specs];
  for (let i = 0; i < filler; i++) {
    const name = `${rng.pick(FILLER)} ${i}`;
    all.splice(rng.int(0, all.length), 0, {
      tag: 'a',
      text: name,
      attributes: { href: `/shop/${name.toLowerCase().replace(/\s+/g, '-')}` },
    });
  }
  const scrollY = extra.scroll?.y ?? 0;
  const elements: Element[] = all.map((s, index) => ({
    index,
    tag: s.tag,
    role: s.role ?? '',
    name: s.text ?? '',
    text: s.text ?? '',
    attributes: s.attributes ?? {},
    bbox: { x: 20, y: s.y ?? 40 + index * 30, width: 200, height: 24 },
    nodeKey: `k${index}-${s.tag}-${s.text ?? ''}`,
    inViewport: (s.y ?? 40 + index * 30) - scrollY >= 0 && (s.y ?? 40 + index * 30) - scrollY < 800,
    frame: '',
    inShadow: false,
    depth: 0,
    parentIndex: null,
  }));
  const text = elements.map((e) => `[${e.index}]<${e.tag}>${e.text}`).join('\n');
  return Observation.parse({ url, title, elements, text, ...extra });
}

function step(index: number, observation: Observation, action: Action) {
  return {
    index,
    observation: { ...observation, stepIndex: index },
    output: makeAgentOutput({ memory: '' }, [action]),
    action,
    result: {
      error: null,
      isDone: action.type === 'done',
      success: action.type === 'done' ? true : null,
      extractedContent: null,
    },
  };
}

function trajectory(id: string, objective: string, steps: ReturnType<typeof step>[]): Trajectory {
  const input: TrajectoryInput = {
    id: `traj_${id}`,
    task: {
      id: `task_${id}`,
      suite: 'world',
      site: 'shop',
      objective,
      startUrl: 'http://127.0.0.1/shop/',
      verifier: { kind: 'world', template: 'synthetic', params: {} },
    },
    agentId: 'synthetic-teacher',
    steps,
    endReason: 'done',
    verdict: { success: true, score: 1, reason: '', verifierId: 'synthetic' },
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:00:10.000Z',
  };
  return Trajectory.parse(input);
}

/** One synthetic successful trajectory of template `kind` (0..3). `filler` adds distractor links. */
export function syntheticTrajectory(kind: number, rng: Rng, id: string, filler = 2): Trajectory {
  const item = rng.pick(ITEMS);
  const others = rng.shuffle(ITEMS.filter((i) => i !== item)).slice(0, 3);
  const results = rng.shuffle([item, ...others]);
  const resultSpecs = results.map((r) => ({
    tag: 'a',
    text: r,
    attributes: { href: `/shop/p/${r.toLowerCase().replace(/\s+/g, '-')}` },
  }));
  const search: ElSpec[] = [
    { tag: 'input', attributes: { type: 'search', placeholder: 'Search products', name: 'q' } },
    { tag: 'button', text: 'Search' },
  ];
  if (kind === 0) {
    const o1 = obs('http://127.0.0.1/shop/', 'Shop', search, rng, filler);
    const o2 = obs('http://127.0.0.1/shop/search', 'Results', [...search, ...resultSpecs], rng, filler);
    const target = o2.elements.find((e) => e.text === item)!;
    const o3 = obs('http://127.0.0.1/shop/p/x', item, [{ tag: 'button', text: 'Add to cart' }], rng, filler);
    return trajectory(id, `Search for "${item}" and open its page`, [
      step(0, o1, {
        type: 'input',
        index: o1.elements.find((e) => e.tag === 'input')!.index,
        text: item,
        clear: true,
      }),
      step(
        1,
        {
          ...o1,
          elements: o1.elements.map((e) =>
            e.tag === 'input' ? { ...e, attributes: { ...e.attributes, value: item } } : e,
          ),
        },
        {
          type: 'click',
          index: o1.elements.find((e) => e.text === 'Search')!.index,
        },
      ),
      step(2, o2, { type: 'click', index: target.index }),
      step(3, o3, { type: 'done', text: '', success: true }),
    ]);
  }
  if (kind === 1) {
    const sort = rng.pick(SORTS.slice(1));
    const select: ElSpec = {
      tag: 'select',
      text: 'Relevance',
      attributes: { name: 'sort', options: SORTS.join('|') },
    };
    const o1 = obs('http://127.0.0.1/shop/list', 'All products', [select, ...resultSpecs], rng, filler);
    const idx = o1.elements.find((e) => e.tag === 'select')!.index;
    const o2 = obs(
      'http://127.0.0.1/shop/list',
      'All products',
      [{ ...select, text: sort }, ...resultSpecs],
      rng,
      filler,
    );
    return trajectory(id, `Sort the product list by ${sort}`, [
      step(0, o1, { type: 'select_dropdown', index: idx, text: sort }),
      step(1, o2, { type: 'done', text: '', success: true }),
    ]);
  }
  if (kind === 2) {
    const price = `$${rng.int(10, 300)}.${rng.pick(['00', '50', '99'])}`;
    const rows: ElSpec[] = results.map((r) => ({
      tag: 'a',
      text: `${r} ${r === item ? price : `$${rng.int(10, 300)}.00`}`,
    }));
    const o1 = obs('http://127.0.0.1/shop/list', 'All products', rows, rng, filler);
    return trajectory(id, `What is the price of the ${item}?`, [
      step(0, o1, { type: 'done', text: price, success: true }),
    ]);
  }
  const o1 = obs(
    'http://127.0.0.1/shop/',
    'Shop',
    [...search, { tag: 'a', text: 'Contact us', y: 2000, attributes: { href: '/shop/contact' } }],
    rng,
    filler,
    {
      scroll: {
        x: 0,
        y: 0,
        viewportWidth: 1280,
        viewportHeight: 800,
        pageHeight: 2400,
        pagesAbove: 0,
        pagesBelow: 2,
      },
    },
  );
  const o2 = obs(
    'http://127.0.0.1/shop/',
    'Shop',
    [...search, { tag: 'a', text: 'Contact us', y: 2000, attributes: { href: '/shop/contact' } }],
    rng,
    filler,
    {
      scroll: {
        x: 0,
        y: 1500,
        viewportWidth: 1280,
        viewportHeight: 800,
        pageHeight: 2400,
        pagesAbove: 2,
        pagesBelow: 0,
      },
    },
  );
  return trajectory(id, 'Open the contact page of the shop', [
    step(0, o1, { type: 'scroll', down: true, pages: 1 }),
    step(1, o2, { type: 'click', index: o2.elements.find((e) => e.text === 'Contact us')!.index }),
  ]);
}

/** `n` synthetic trajectories cycling through the four templates. */
export function syntheticTrajectories(n: number, seed = 1, filler = 2): Trajectory[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => syntheticTrajectory(i % 4, rng.fork(i), `${seed}_${i}`, filler));
}

/** A small state with a search box, a button, a link and a sort select: few actions, every head used. */
export function tinyState(objective = 'Search for "Trail Runner 2" sorted by Price: low to high') {
  const rng = new Rng(7);
  const observation = obs(
    'http://127.0.0.1/shop/',
    'Shop',
    [
      { tag: 'input', attributes: { type: 'search', placeholder: 'Search products', name: 'q' } },
      { tag: 'button', text: 'Search' },
      { tag: 'a', text: 'Trail Runner 2 GTX', attributes: { href: '/shop/p/trail-runner-2-gtx' } },
      {
        tag: 'select',
        text: 'Relevance',
        attributes: { name: 'sort', options: 'Relevance|Price: low to high' },
      },
    ],
    rng,
    0,
  );
  return {
    task: { id: 'task_tiny', objective, startUrl: 'http://127.0.0.1/shop/', site: 'shop' },
    observation,
    history: [] as Action[],
  };
}
