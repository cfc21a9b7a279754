import type { Observation } from '../core/observation.ts';
import type { Rng } from '../core/rng.ts';
import type { TaskLevel } from '../core/task.ts';
import type { Perturbation } from './perturb.ts';

/** A request as a site sees it: the path is relative to the site's prefix (`/shop/cart` -> `/cart`). */
export interface SiteRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Parsed urlencoded or JSON body; repeated keys become arrays. */
  form: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  sessionId: string;
  /** Absolute prefix of this site, e.g. `/shop`, for building links. */
  base: string;
  /**
   * Per-session UI state kept by the server: whether this session accepted the site's cookie
   * banner and closed its promo modal. Sites pass these to `page()` so overlays show until dismissed.
   */
  ui: { consent: boolean; promoSeen: boolean };
  /**
   * The session's perturbation (identity unless the harness set one at reset): listings use it for
   * their default order and page size. It never changes data, state or what a verifier checks.
   */
  perturb: Perturbation;
}

export interface SiteResponse {
  status?: number;
  html?: string;
  json?: unknown;
  /** Path (absolute, e.g. `/shop/cart`) or URL to redirect to with 303. */
  redirect?: string;
  headers?: Record<string, string>;
  /** Server-side delay before answering, to model slow results. */
  delayMs?: number;
}

/** One verifier condition: an id that says what was checked, whether it held, and a detail. */
export interface Condition {
  id: string;
  ok: boolean;
  detail?: string;
}

/** A task drawn from a template, before it becomes a core Task. */
export interface TaskDraft<P> {
  params: P;
  objective: string;
  /** Path under the site prefix where the task starts, e.g. `/` or `/search?q=x`. */
  startPath: string;
  /** Steps the reference solution takes (sets the level). */
  referenceLength: number;
  /** Parameter values that must not be shared between train and test (item ids, cities...). */
  splitKey: string;
}

/**
 * The driver a reference solver uses: the same BrowserEnv actions as any agent, plus lookups.
 * Reference solvers may use privileged knowledge (the data, the params); agents may not.
 */
export interface SolverDriver {
  readonly obs: Observation;
  /** Clicks the first element matching the predicate or name (exact, case-insensitive), scrolling to find it. */
  click(target: ElementTarget): Promise<Observation>;
  input(target: ElementTarget, text: string): Promise<Observation>;
  select(target: ElementTarget, option: string): Promise<Observation>;
  scroll(down?: boolean, pages?: number): Promise<Observation>;
  sendKeys(keys: string): Promise<Observation>;
  navigate(pathOrUrl: string): Promise<Observation>;
  goBack(): Promise<Observation>;
  wait(seconds: number): Promise<Observation>;
  switchTab(tabId: string): Promise<Observation>;
  done(text: string, success?: boolean): Promise<Observation>;
  /** Re-observes the page. */
  refresh(): Promise<Observation>;
  /** Waits until the predicate holds on a fresh observation (polling), or throws. */
  waitFor(pred: (o: Observation) => boolean, what: string, timeoutMs?: number): Promise<Observation>;
  /** Number of actions taken so far. */
  readonly actions: number;
}

/** An element to act on: a predicate over elements, or a name/text to match exactly (case-insensitive). */
export type ElementTarget =
  | string
  | {
      name?: string | RegExp;
      tag?: string;
      role?: string;
      attr?: Record<string, string | RegExp>;
      nth?: number;
    }
  | ((e: Observation['elements'][number]) => boolean);

/** A task template: draws parameters, words the objective, verifies the final state, solves it. */
export interface TaskTemplate<P = any, S = any, D = any> {
  /** Globally unique, `<site>.<name>`. */
  id: string;
  description: string;
  /** Draws one task for a split, or null when the pool for this split is exhausted. */
  generate(ctx: { rng: Rng; split: 'train' | 'test'; data: D; index: number }): TaskDraft<P> | null;
  /** Checks the session state (and the agent's final answer for information tasks). */
  verify(params: P, state: S, answer: string | null, data: D): Condition[];
  /** Reference solution through the driver; used by tests only. */
  solve(params: P, driver: SolverDriver, data: D): Promise<void>;
  /**
   * Optional: words the task for given parameter values (deterministically), or null when they do
   * not make a valid task. The offline rewriter uses it to turn parameters grounded from a messy
   * query into a clean task; templates without it are worded from a generated draft with equal params.
   */
  draftFor?(params: P, data: D): TaskDraft<P> | null;
  /** Optional: every parameter set the template draws from, so the rewriter sees the whole domain. */
  pool?(data: D): P[];
}

/** A raw, messy user-style query and what the offline rewriter needs to ground it in the catalog. */
export interface RawQuery {
  site: string;
  text: string;
  /** The template and parameter values it corresponds to (used by the offline rewriter and tests). */
  grounding: { template: string; params: Record<string, unknown> };
}

/** A site of the offline world, served under `/<id>/`. */
export interface Site<S = any, D = any> {
  id: string;
  title: string;
  data: D;
  initialState(): S;
  handle(req: SiteRequest, state: S): SiteResponse | Promise<SiteResponse>;
  templates: TaskTemplate<any, S, D>[];
  rawQueries(rng: Rng): RawQuery[];
}

/** Builds a site from the world seed. */
export type SiteFactory = (seed: number) => Site;

/** Level by reference length, as in Online-Mind2Web. */
export type { TaskLevel };
