import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The source tree's git commit and whether it had uncommitted changes (null/false outside git). */
export function gitState(cwd = dirname(fileURLToPath(import.meta.url))): {
  commit: string | null;
  dirty: boolean;
} {
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git(['rev-parse', 'HEAD']);
    // Untracked files (run folders, node_modules links) do not change what was run.
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: false };
  }
}

/** This process's command line as a user would type it (`rmsweb <args>`), arguments quoted when needed. */
export function commandLine(argv = process.argv): string {
  const q = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
  return ['rmsweb', ...argv.slice(2).map(q)].join(' ');
}
