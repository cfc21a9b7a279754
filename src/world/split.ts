import { hashString } from '../core/rng.ts';

/** Default world seed: the same seed gives the same catalog, tasks and splits. */
export const DEFAULT_WORLD_SEED = 1;

/** Default port of `rmsweb world serve`, also the origin in world tasks' start URLs. */
export const DEFAULT_WORLD_PORT = 7311;

/**
 * Which split a parameter value belongs to. Templates draw train tasks only from values whose key
 * is 'train' and test tasks only from 'test', so the splits never share a parameter value.
 * About one value in five is held out for test.
 */
export function splitOf(key: string): 'train' | 'test' {
  return hashString(`split:${key}`) % 5 === 0 ? 'test' : 'train';
}

/** Filters a pool to the values of one split. */
export function inSplit<T>(items: readonly T[], split: 'train' | 'test', key: (t: T) => string): T[] {
  return items.filter((t) => splitOf(key(t)) === split);
}
