/** How many compiled grammars a backend keeps: enough for every schema of a run's roles. */
export const GRAMMAR_CACHE_SIZE = 32;

/**
 * Compiled grammars by schema, least recently used dropped first. Compiling takes milliseconds to
 * seconds and a grammar holds native memory, so a client sending a new schema with every request
 * must neither recompile the agent's schema each step nor grow the cache without bound.
 */
export class GrammarCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(readonly capacity: number = GRAMMAR_CACHE_SIZE) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity ${capacity} is not a positive integer`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry for `key`, now the most recently used; or undefined. */
  get(key: string): T | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      // A Map iterates in insertion order: re-inserting makes this the newest.
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
