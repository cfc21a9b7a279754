import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CriticalState, describeZodIssues, InputError } from '../core/index.ts';
import { readCriticalStates } from '../data/read-critical.ts';
import { FileCache, shortPath } from './files.ts';
import type { RunReader } from './run-reader.ts';

/** A critical state and where the viewer found it. */
export interface CriticalEntry {
  state: CriticalState;
  /** `record` (the run store) or the JSONL file's path relative to the run folder. */
  source: string;
}

/** Every critical state the viewer knows about, plus problems found while reading them. */
export interface CriticalSet {
  entries: CriticalEntry[];
  files: string[];
  warnings: string[];
}

/**
 * JSONL files of critical states inside a run folder: `rmsweb mine --out` files named
 * `*critical*.jsonl` at the top, and any `.jsonl` under `mine/`.
 */
export function discoverCriticalFiles(runDir: string): string[] {
  const list = (dir: string, pick: (n: string) => boolean) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((n) => n.endsWith('.jsonl') && pick(n))
          .map((n) => join(dir, n))
      : [];
  return [...list(runDir, (n) => /critical/i.test(n)), ...list(join(runDir, 'mine'), () => true)].sort();
}

/**
 * Critical states from the run store's `critical-state` records (written by `rmsweb mine`
 * unless --no-record), the run folder's mine output files, and files named on the command line;
 * the same id seen twice is shown once (records first).
 */
export class CriticalSource {
  private readonly cache = new FileCache((file) => {
    try {
      return { states: readCriticalStates(file).map((r) => r.state), error: null as string | null };
    } catch (e) {
      return { states: [] as CriticalState[], error: (e as Error).message };
    }
  });

  constructor(
    private readonly store: RunReader,
    private readonly runDir: string,
    private readonly extraFiles: string[],
  ) {
    // Files the user named are checked at start-up: a typo should fail loudly, not show an empty page.
    for (const f of extraFiles) {
      if (!existsSync(f)) throw new InputError('critical-state file does not exist', { file: f });
      readCriticalStates(f);
    }
  }

  /** The JSONL files read, in order: discovered ones, then the extra ones. */
  files(): string[] {
    return [...new Set([...discoverCriticalFiles(this.runDir), ...this.extraFiles])];
  }

  /** Folders whose `images/` store may hold the screenshots of states read from files. */
  imageRoots(): string[] {
    return this.files().flatMap((f) => [join(dirname(f), 'images'), join(dirname(dirname(f)), 'images')]);
  }

  load(): CriticalSet {
    const warnings: string[] = [];
    const entries: CriticalEntry[] = [];
    const seen = new Set<string>();
    for (const { key, value } of this.store.listRecords('critical-state')) {
      const r = CriticalState.safeParse(value);
      if (!r.success) {
        warnings.push(`record critical-state/${key}: ${describeZodIssues(r.error.issues)}`);
        continue;
      }
      if (seen.has(r.data.id)) continue;
      seen.add(r.data.id);
      entries.push({ state: r.data, source: 'record' });
    }
    const files = this.files();
    for (const file of files) {
      const { states, error } = this.cache.get(file);
      if (error) warnings.push(error);
      for (const state of states) {
        if (seen.has(state.id)) continue;
        seen.add(state.id);
        entries.push({ state, source: shortPath(this.runDir, file) || basename(file) });
      }
    }
    return { entries, files, warnings };
  }
}
