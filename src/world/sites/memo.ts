/**
 * Caches a value computed from a site's data (pools of valid task parameters), once per data
 * object: templates are stateless, the catalog is built once per world.
 */
export function memoByData<D extends object, T>(fn: (data: D) => T): (data: D) => T {
  const cache = new WeakMap<D, T>();
  return (data) => {
    if (!cache.has(data)) cache.set(data, fn(data));
    return cache.get(data) as T;
  };
}
