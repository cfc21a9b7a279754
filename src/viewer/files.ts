import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

/** Folders never worth walking into: content-addressed screenshots and dependency trees. */
const SKIP_DIRS = new Set(['images', 'node_modules', '.git', '.cache']);
const MAX_ENTRIES = 20_000;

/**
 * Files under `root` (at most `maxDepth` folders down) whose base name passes `match`, sorted by
 * path. The walk is bounded so pointing the viewer at a huge folder stays cheap.
 */
export function findFiles(root: string, match: (name: string) => boolean, maxDepth = 3): string[] {
  const out: string[] = [];
  let seen = 0;
  const walk = (dir: string, depth: number) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) return;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < maxDepth && !SKIP_DIRS.has(e.name)) walk(p, depth + 1);
      } else if (e.isFile() && match(e.name)) out.push(p);
    }
  };
  if (existsSync(root)) walk(root, 0);
  return out.sort();
}

/** A short name for a file inside `root`, for captions (`models/salvage/rl-metrics.json`). */
export function shortPath(root: string, file: string): string {
  const rel = relative(root, file);
  return rel && !rel.startsWith('..') ? rel : file;
}

/** Reads a JSON file; a failure comes back as an error string naming the file. */
export function readJson(file: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (e) {
    return { error: `${basename(file)}: ${(e as Error).message}` };
  }
}

/**
 * Re-reads a file only when its size or modification time changed, so pages stay live while a
 * run is still being written without re-parsing large files on every request.
 */
export class FileCache<T> {
  private readonly entries = new Map<string, { stamp: string; value: T }>();

  constructor(private readonly load: (file: string) => T) {}

  get(file: string): T {
    let stamp = '';
    try {
      const s = statSync(file);
      stamp = `${s.size}:${s.mtimeMs}`;
    } catch {
      stamp = 'missing';
    }
    const hit = this.entries.get(file);
    if (hit && hit.stamp === stamp) return hit.value;
    const value = this.load(file);
    this.entries.set(file, { stamp, value });
    return value;
  }
}
