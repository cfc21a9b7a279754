import type { Rng } from '../core/rng.ts';
import { messify } from './messy.ts';
import type { RawQuery, TaskTemplate } from './site.ts';

/** One informal phrasing of a task, with the spans that must survive messification exactly. */
export interface Phrase {
  text: string;
  keep?: string[];
}

/** How users would type one template's request for given parameters. */
export type Phraser<P = any, D = any> = (params: P, data: D, rng: Rng) => Phrase;

/**
 * Draws up to `count` raw queries for one template: parameters come from the template's own
 * generator (mostly train, some test), the text from the phraser, made messy by `messify`.
 */
export function queriesFor<D>(
  site: string,
  template: TaskTemplate<any, any, D>,
  data: D,
  phraser: Phraser<any, D>,
  rng: Rng,
  count: number,
): RawQuery[] {
  const out: RawQuery[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < count && i < count * 10; i++) {
    const split = rng.bool(0.8) ? 'train' : 'test';
    const draft = template.generate({ rng, split, data, index: i });
    if (!draft) continue;
    const key = JSON.stringify(draft.params);
    if (seen.has(key)) continue;
    seen.add(key);
    const ph = phraser(draft.params, data, rng);
    out.push({
      site,
      text: messify(ph.text, rng, { keep: ph.keep }),
      grounding: { template: template.id, params: draft.params as Record<string, unknown> },
    });
  }
  return out;
}

/** Queries for every template of a site that has a phraser (`perTemplate` each). */
export function siteQueries<D>(
  site: string,
  templates: TaskTemplate<any, any, D>[],
  phrasers: Record<string, Phraser<any, D>>,
  data: D,
  rng: Rng,
  perTemplate: number,
): RawQuery[] {
  return templates.flatMap((t) => {
    const ph = phrasers[t.id];
    if (!ph) throw new Error(`no raw-query phraser for template ${t.id}`);
    return queriesFor(site, t, data, ph, rng.fork(t.id), perTemplate);
  });
}
