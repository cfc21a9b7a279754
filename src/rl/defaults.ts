/** Options merged over defaults; an explicit `undefined` keeps the default (CLI flags that were not given). */
export function withDefaults<D extends object, O extends Partial<Record<keyof D, unknown>>>(
  defaults: D,
  options: O,
): D & O {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return { ...defaults, ...given } as D & O;
}
