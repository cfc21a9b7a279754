import type { Action } from '../core/action.ts';
import type { Element, Observation } from '../core/observation.ts';
import type { ElementTarget, SolverDriver } from './site.ts';

/** The part of BrowserEnv a reference solver drives. */
export interface SteppableEnv {
  step(action: Action): Promise<Observation>;
  observe(): Promise<Observation>;
}

function norm(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Tests whether an element matches a target (see ElementTarget). */
export function matches(e: Element, target: ElementTarget): boolean {
  if (typeof target === 'function') return target(e);
  if (typeof target === 'string') {
    const t = norm(target);
    return norm(e.name) === t || norm(e.text) === t || norm(e.attributes['aria-label'] ?? '') === t;
  }
  if (target.tag && e.tag !== target.tag) return false;
  if (target.role && e.role !== target.role) return false;
  if (target.name !== undefined) {
    const names = [e.name, e.text, e.attributes['aria-label'] ?? '', e.attributes.placeholder ?? ''];
    const ok =
      typeof target.name === 'string'
        ? names.some((n) => norm(n) === norm(target.name as string))
        : names.some((n) => (target.name as RegExp).test(n));
    if (!ok) return false;
  }
  for (const [k, v] of Object.entries(target.attr ?? {})) {
    const a = e.attributes[k];
    if (a === undefined) return false;
    if (typeof v === 'string' ? a !== v : !v.test(a)) return false;
  }
  return true;
}

/** Finds matching elements, ignoring ones flagged as covered by an overlay. */
export function findAll(obs: Observation, target: ElementTarget): Element[] {
  return obs.elements.filter((e) => matches(e, target));
}

/**
 * A SolverDriver over a BrowserEnv. Reference solvers use it to act like an agent would: they find
 * elements in the observation and act through env.step, so a solvable task is solvable by an agent.
 * Action errors (lastActionError) make the driver throw, so a broken solver fails its test loudly.
 */
export class EnvSolverDriver implements SolverDriver {
  private current: Observation;
  private count = 0;

  constructor(
    private readonly env: SteppableEnv,
    initial: Observation,
    private readonly maxScrolls = 8,
  ) {
    this.current = initial;
  }

  get obs(): Observation {
    return this.current;
  }

  get actions(): number {
    return this.count;
  }

  private async act(action: Action, strict = true, mayDismiss = true): Promise<Observation> {
    this.count++;
    this.current = await this.env.step(action);
    // A promo that pops up mid-task (a perturbed visit shows it from a later page view) blocks the
    // click: close it, as a user would, and try again. Unperturbed pages never get here, because
    // their solvers close overlays where they know them to be.
    const closer = this.current.lastActionError?.includes('is covered by') ? modalCloser(this.current) : null;
    if (closer && mayDismiss && 'index' in action) {
      const before = this.current;
      this.count++;
      this.current = await this.env.step({ type: 'click', index: closer.index });
      if (this.current.lastActionError) this.current = before;
      else return this.act(this.relocate(action, before), strict, false);
    }
    if (strict && this.current.lastActionError) {
      throw new Error(
        `reference solver action ${JSON.stringify(action)} failed: ${this.current.lastActionError}`,
      );
    }
    return this.current;
  }

  /** The same action on the same element (by node key) in the current observation. */
  private relocate(action: Action, before: Observation): Action {
    if (!('index' in action)) return action;
    const key = before.elements.find((e) => e.index === action.index)?.nodeKey;
    const now = key ? this.current.elements.find((e) => e.nodeKey === key) : undefined;
    return now ? ({ ...action, index: now.index } as Action) : action;
  }

  /** Finds a target, scrolling down (then back to the top) when it is not in the element list. */
  private async locate(target: ElementTarget): Promise<Element> {
    const nth = typeof target === 'object' && typeof target !== 'function' ? (target.nth ?? 0) : 0;
    for (let i = 0; i <= this.maxScrolls; i++) {
      const found = findAll(this.current, target);
      if (found.length > nth) return found[nth];
      if (this.current.scroll.pagesBelow <= 0.01) break;
      await this.act({ type: 'scroll', down: true, pages: 1 });
    }
    throw new Error(`reference solver could not find ${describe(target)} on ${this.current.url}`);
  }

  async click(target: ElementTarget): Promise<Observation> {
    const e = await this.locate(target);
    return this.act({ type: 'click', index: e.index });
  }

  async input(target: ElementTarget, text: string): Promise<Observation> {
    const e = await this.locate(target);
    return this.act({ type: 'input', index: e.index, text, clear: true });
  }

  async select(target: ElementTarget, option: string): Promise<Observation> {
    const e = await this.locate(target);
    return this.act({ type: 'select_dropdown', index: e.index, text: option });
  }

  scroll(down = true, pages = 1): Promise<Observation> {
    return this.act({ type: 'scroll', down, pages });
  }

  sendKeys(keys: string): Promise<Observation> {
    return this.act({ type: 'send_keys', keys });
  }

  navigate(pathOrUrl: string): Promise<Observation> {
    const url = /^https?:/.test(pathOrUrl) ? pathOrUrl : new URL(pathOrUrl, this.current.url).toString();
    return this.act({ type: 'navigate', url, new_tab: false });
  }

  goBack(): Promise<Observation> {
    return this.act({ type: 'go_back' });
  }

  wait(seconds: number): Promise<Observation> {
    return this.act({ type: 'wait', seconds });
  }

  switchTab(tabId: string): Promise<Observation> {
    return this.act({ type: 'switch_tab', tab_id: tabId });
  }

  done(text: string, success = true): Promise<Observation> {
    return this.act({ type: 'done', text, success }, false);
  }

  async refresh(): Promise<Observation> {
    this.current = await this.env.observe();
    return this.current;
  }

  async waitFor(pred: (o: Observation) => boolean, what: string, timeoutMs = 20_000): Promise<Observation> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (pred(this.current)) return this.current;
      if (Date.now() > deadline)
        throw new Error(`reference solver timed out waiting for ${what} on ${this.current.url}`);
      await this.act({ type: 'wait', seconds: 0.5 });
    }
  }
}

function describe(t: ElementTarget): string {
  if (typeof t === 'string') return JSON.stringify(t);
  if (typeof t === 'function') return 'an element matching a predicate';
  return JSON.stringify({ ...t, name: t.name instanceof RegExp ? String(t.name) : t.name });
}

/** An uncovered "No thanks" or "Close" button of a modal dialog, when one is showing. */
function modalCloser(obs: Observation): Element | null {
  return (
    obs.elements.find(
      (e) =>
        e.tag === 'button' &&
        e.attributes.covered !== 'true' &&
        /^(no thanks|close)$/i.test((e.name || e.text).trim()),
    ) ?? null
  );
}
