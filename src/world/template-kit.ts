import { hashString } from '../core/rng.ts';
import type { Condition, SolverDriver, TaskDraft, TaskTemplate } from './site.ts';
import { inSplit } from './split.ts';

/** What a pool template words for one parameter set. */
export interface Wording {
  objective: string;
  /** Path under the site prefix. */
  startPath: string;
  referenceLength: number;
}

/**
 * Spec of a template whose tasks are drawn from a finite pool of parameter sets. The wording is a
 * pure function of the parameters, so the same parameters always give the same task; this is what
 * lets the offline rewriter turn grounded parameters back into a task (`draftFor`).
 */
export interface PoolTemplateSpec<P, S, D> {
  id: string;
  description: string;
  /** Every valid parameter set (deterministic for a given data). */
  pool(data: D): P[];
  /** The value train and test must not share (an item id, a sender...). */
  splitKey(params: P): string;
  word(params: P, data: D): Wording | null;
  verify(params: P, state: S, answer: string | null, data: D): Condition[];
  solve(params: P, driver: SolverDriver, data: D): Promise<void>;
}

/** Picks one of several phrasings, stably for a given parameter set. */
export function variant<T>(params: unknown, options: readonly T[]): T {
  return options[hashString(JSON.stringify(params)) % options.length];
}

/** Builds a TaskTemplate from a pool spec: generate draws from the split's share of the pool. */
export function poolTemplate<P, S, D extends object>(spec: PoolTemplateSpec<P, S, D>): TaskTemplate<P, S, D> {
  const cache = new WeakMap<D, { all: P[]; train: P[]; test: P[] }>();
  const pools = (data: D) => {
    let c = cache.get(data);
    if (!c) {
      const all = spec.pool(data);
      c = { all, train: inSplit(all, 'train', spec.splitKey), test: inSplit(all, 'test', spec.splitKey) };
      cache.set(data, c);
    }
    return c;
  };
  const draft = (params: P, data: D): TaskDraft<P> | null => {
    const w = spec.word(params, data);
    return w ? { params, ...w, splitKey: spec.splitKey(params) } : null;
  };
  return {
    id: spec.id,
    description: spec.description,
    generate: ({ rng, split, data }) => {
      const pool = pools(data)[split];
      return pool.length ? draft(rng.pick(pool), data) : null;
    },
    verify: spec.verify,
    solve: spec.solve,
    draftFor: draft,
    pool: (data) => pools(data).all,
  };
}
