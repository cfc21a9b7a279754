import { execFileSync } from 'node:child_process';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The source tree's git commit and whether it had uncommitted changes (null/false outside git).
 * Changes under `ignore` (paths from the repo's top; default `results/`, which the runs themselves
 * rewrite) do not count: a resumed run would otherwise call every later invocation dirty.
 */
export function gitState(
  cwd = dirname(fileURLToPath(import.meta.url)),
  ignore: readonly string[] = ['results'],
): {
  commit: string | null;
  dirty: boolean;
} {
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git(['rev-parse', 'HEAD']);
    // Untracked files (run folders, node_modules links) do not change what was run.
    const dirty =
      git([
        'status',
        '--porcelain',
        '--untracked-files=no',
        '--',
        ':(top)',
        ...ignore.map((p) => `:(top,exclude)${p}`),
      ]) !== '';
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

/** The git work tree that holds `dir` (null outside git). */
export function repoRoot(dir: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/**
 * Text of a results file to commit: a run folder outside the repo is named by its role
 * (`<the demo's data folder>`), since its machine path means nothing on another machine; one
 * inside the repo is named by its path relative to the repo root. Applies to absolute paths
 * anywhere in the text, and to the folder as typed where it is a whole argument of `command`.
 */
export function nameFoldersByRole(
  text: string,
  command: string,
  folders: Array<{ dir: string; role: string }>,
  repo: string | null,
): { text: string; command: string } {
  const pairs: Array<[string, string]> = [];
  for (const f of folders) {
    const abs = resolve(f.dir);
    const rel = repo ? relative(repo, abs) : '..';
    const name = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : `<${f.role}>`;
    pairs.push([abs, name], [f.dir, name]);
  }
  const cmd = command
    .split(' ')
    .map((tok) => pairs.find(([from]) => from === tok || `${from}/` === tok)?.[1] ?? tok)
    .join(' ');
  let out = command ? text.replaceAll(command, cmd) : text;
  // Longest first, so a folder inside another is named by its own role; never inside a longer
  // name (/data/demo leaves /data/demo2 alone).
  for (const [from, to] of pairs
    .filter(([from]) => isAbsolute(from))
    .sort((a, b) => b[0].length - a[0].length))
    out = out.replace(new RegExp(`${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`, 'g'), to);
  return { text: out, command: cmd };
}
