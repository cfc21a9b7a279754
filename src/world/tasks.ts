import { Rng } from '../core/rng.ts';
import { levelFromReferenceLength, type Task } from '../core/task.ts';
import { DEFAULT_WORLD_PORT, DEFAULT_WORLD_SEED, splitOf } from './split.ts';
import { World } from './world.ts';

/** Tasks drawn per template and split with the default options. */
export const DEFAULT_TASKS_PER_TEMPLATE = { train: 36, test: 8 } as const;

export interface WorldTaskOptions {
  seed?: number;
  split?: 'train' | 'test';
  site?: string;
  /** Origin used in start URLs; world tasks are portable across ports via `resolveWorldUrl`. */
  origin?: string;
  perTemplate?: { train: number; test: number };
  /** Reuse a World built with the same seed. */
  world?: World;
}

/** The canonical origin of world task start URLs. */
export const WORLD_ORIGIN = `http://127.0.0.1:${DEFAULT_WORLD_PORT}`;

/**
 * Generates the offline world's tasks, deterministically from the seed. Train and test tasks never
 * share a parameter value: each draft's `splitKey` must fall in the split it was drawn for.
 */
export function generateWorldTasks(opts: WorldTaskOptions = {}): Task[] {
  const seed = opts.seed ?? DEFAULT_WORLD_SEED;
  const world = opts.world ?? new World(seed);
  const per = opts.perTemplate ?? DEFAULT_TASKS_PER_TEMPLATE;
  const origin = opts.origin ?? WORLD_ORIGIN;
  const splits: Array<'train' | 'test'> = opts.split ? [opts.split] : ['train', 'test'];
  const out: Task[] = [];
  for (const site of world.sites.values()) {
    if (opts.site && site.id !== opts.site) continue;
    for (const template of site.templates) {
      for (const split of splits) {
        const seen = new Set<string>();
        const rng = new Rng(`${seed}:${template.id}:${split}`);
        let attempts = 0;
        for (let i = 0; seen.size < per[split] && attempts < per[split] * 8; i++, attempts++) {
          const draft = template.generate({ rng, split, data: site.data, index: i });
          if (!draft) break;
          if (splitOf(draft.splitKey) !== split) {
            throw new Error(
              `template ${template.id} drew splitKey "${draft.splitKey}" outside the ${split} split`,
            );
          }
          if (seen.has(draft.objective)) continue;
          seen.add(draft.objective);
          out.push({
            schemaVersion: 1,
            id: `${template.id}.${split}.${String(seen.size - 1).padStart(3, '0')}`,
            suite: 'world',
            site: site.id,
            objective: draft.objective,
            startUrl: `${origin}/${site.id}${draft.startPath.startsWith('/') ? '' : '/'}${draft.startPath}`,
            level: levelFromReferenceLength(draft.referenceLength),
            split,
            referenceLength: draft.referenceLength,
            category: template.id.split('.').slice(1).join('.'),
            verifier: {
              kind: 'world',
              template: template.id,
              params: draft.params as Record<string, unknown>,
            },
            // Agents never see meta; tests use the split key to prove train and test are disjoint.
            meta: { splitKey: draft.splitKey },
          });
        }
      }
    }
  }
  return out;
}

/** Rewrites a world URL's origin to the origin of the running world server. */
export function resolveWorldUrl(url: string, origin: string): string {
  const u = new URL(url);
  const o = new URL(origin);
  u.protocol = o.protocol;
  u.host = o.host;
  return u.toString();
}
