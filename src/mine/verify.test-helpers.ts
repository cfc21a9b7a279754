import type { Agent } from '../agent/agent.ts';
import type { EpisodeEnv } from '../agent/episode.ts';
import {
  type Action,
  elementAt,
  makeAgentOutput,
  type Observation,
  type Trajectory,
  type Verdict,
} from '../core/index.ts';
import { cart, ERROR_PAGE, HOME, product, RESULTS } from './scenarios.test-helpers.ts';

/** The results page before its listings have rendered. */
const LOADING: Observation = { ...RESULTS, elements: RESULTS.elements.slice(0, 4) };

/**
 * A resettable fake of the scenarios' tiny shop: the same pages the recorded runs saw, driven by the
 * element an action hits. `brokenSearch` serves the error page after a search (a world that no
 * longer reproduces the recorded runs). `slowResults` observations after a search still show the
 * results page without its listings (they render late, as an autocomplete list does).
 */
export class FakeShop implements EpisodeEnv {
  obs: Observation = HOME;
  resets = 0;
  private loading = 0;
  constructor(private readonly opts: { brokenSearch?: boolean; slowResults?: number } = {}) {}
  async reset(): Promise<Observation> {
    this.resets++;
    this.obs = HOME;
    this.loading = 0;
    return this.obs;
  }
  async step(action: Action): Promise<Observation> {
    if (this.loading > 0) {
      this.loading--;
      this.obs = this.loading ? LOADING : RESULTS;
      return this.obs;
    }
    if (action.type === 'input' && this.obs.url === HOME.url && this.opts.slowResults) {
      this.loading = this.opts.slowResults;
      this.obs = LOADING;
      return this.obs;
    }
    const here = this.obs;
    const e =
      'index' in action && typeof action.index === 'number' ? elementAt(here, action.index) : undefined;
    if ('index' in action && typeof action.index === 'number' && !e) {
      this.obs = { ...here, lastActionError: `no element ${action.index}` };
      return this.obs;
    }
    let next = here;
    if (action.type === 'input' && here.url === HOME.url)
      next = this.opts.brokenSearch ? ERROR_PAGE : RESULTS;
    else if (action.type === 'go_back' && /\/p\//.test(here.url)) next = RESULTS;
    else if (action.type === 'click' && e?.attributes.href === '/p/2') next = product('2', 'Trail Runner 2');
    else if (action.type === 'click' && e?.attributes.href === '/p/22')
      next = product('22', 'Trail Runner 2 GTX');
    else if (action.type === 'click' && e?.name === 'Add to cart') {
      next = here.url.endsWith('/p/2') ? cart('Trail Runner 2', '2') : cart('Trail Runner 2 GTX', '22');
    }
    this.obs = { ...next, lastActionError: null };
    return this.obs;
  }
  async close(): Promise<void> {}
}

/** Success: the run ends with done on the cart holding exactly Trail Runner 2. */
export async function verifyCart(t: Trajectory): Promise<Verdict> {
  const last = t.steps.at(-1);
  const ok =
    last?.action.type === 'done' &&
    /\/cart$/.test(last.observation.url) &&
    last.observation.elements.some((e) => e.name === 'Trail Runner 2');
  return {
    success: !!ok,
    score: ok ? 1 : 0,
    reason: ok ? 'right item' : 'wrong item',
    verifierId: 'fake',
    failedConditions: [],
  };
}

/** The continuation: follows the page; `recovers` goes back from the wrong product. */
export function continuation(recovers: boolean): Agent {
  return {
    id: recovers ? 'recovering' : 'sticky',
    async act({ observation: obs }) {
      const byName = (n: string) => obs.elements.find((e) => e.name === n)?.index ?? 0;
      let a: Action;
      if (obs.url === HOME.url) a = { type: 'input', index: 0, text: 'trail shoes', clear: true };
      else if (/\/search/.test(obs.url)) a = { type: 'click', index: byName('Trail Runner 2') };
      else if (/\/p\/22$/.test(obs.url) && recovers) a = { type: 'go_back' };
      else if (/\/p\//.test(obs.url)) a = { type: 'click', index: byName('Add to cart') };
      else a = { type: 'done', text: 'added', success: true };
      return { output: makeAgentOutput({}, [a]), actions: [a] };
    },
  };
}
