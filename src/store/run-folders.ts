import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const SKIP = new Set(['images', 'exports', 'node_modules', 'reports', 'report']);

/**
 * The run folders inside `dir`: `dir` itself when it holds a run store, then every folder below it
 * (up to `depth` levels) that holds one. A demo or ablate folder keeps its collection, rollouts
 * and per-row runs in sub-folders, so commands that look trajectories and screenshots up by id
 * (`export rl`, `view`) read all of them. A folder with no store anywhere comes back alone, so
 * opening it fails with the usual error.
 */
export function findRunFolders(dir: string, depth = 3): string[] {
  const root = resolve(dir);
  const out: string[] = [];
  const walk = (d: string, left: number) => {
    if (existsSync(join(d, 'store.sqlite'))) out.push(d);
    if (left === 0) return;
    let entries: string[];
    try {
      entries = readdirSync(d, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !SKIP.has(e.name) && !e.name.startsWith('.'))
        .map((e) => e.name)
        .sort();
    } catch {
      return;
    }
    for (const e of entries) walk(join(d, e), left - 1);
  };
  walk(root, depth);
  return out.length ? out : [root];
}
