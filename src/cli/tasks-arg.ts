import { existsSync, readFileSync, statSync } from 'node:fs';
import { describeZodIssues, InputError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { startUrlRisk } from '../core/start-url.ts';
import { Task } from '../core/task.ts';
import { generateWorldTasks } from '../world/tasks.ts';

/** The sites of the offline world, in the order reports list them. */
export const WORLD_SITES = ['shop', 'travel', 'recipes', 'mail', 'forms', 'homes'] as const;

/**
 * Resolves `--tasks`: `world:train[:N][:SITES]`, `world:test[:N][:SITES]` (a seeded sample of N world
 * tasks, mixed over sites, or over the comma-separated SITES only, e.g. `world:train:90:mail,recipes`)
 * or a file of Task objects (JSONL, or a JSON array). A bad line names the file and line; a live task
 * of the file that starts on this machine or a private address is refused unless `allowPrivate`.
 */
export function resolveTasks(
  spec: string,
  opts: { seed?: number; worldSeed?: number; allowPrivate?: boolean } = {},
): Task[] {
  const m = /^world:(train|test)(?::(\d+))?(?::([a-z,]+))?$/.exec(spec);
  if (m) {
    const sites = m[3] ? parseSites(m[3], 'tasks') : undefined;
    const all = worldTasksOf(m[1] as 'train' | 'test', opts.worldSeed, sites);
    const n = m[2] ? Number(m[2]) : all.length;
    if (n < 1) throw new InputError(`--tasks "${spec}" selects no tasks`, { field: '--tasks' });
    return sampleTasks(all, n, opts.seed ?? 0);
  }
  if (spec.startsWith('world'))
    throw new InputError(`bad --tasks "${spec}": use world:train[:N][:SITES] or world:test[:N][:SITES]`, {
      field: 'tasks',
    });
  const tasks = readTaskFile(spec);
  if (!tasks.length) throw new InputError('the task file holds no tasks', { file: spec });
  refuseUnsafeStartUrls(tasks, { allowPrivate: opts.allowPrivate, file: spec });
  return tasks;
}

/** Suites whose tasks run on this machine by design (the offline world, the user's MiniWoB copy). */
const LOCAL_SUITES: ReadonlySet<string> = new Set(['world', 'miniwob']);

/**
 * Refuses live tasks (every suite but the offline world's and MiniWoB's) whose start URL is not a
 * public http(s) URL: a local file, a script, this machine, a private network, a link-local or cloud
 * metadata address (core/start-url.ts). Checked before any browser starts; `allowPrivate`
 * (`--allow-private`) lets them run. The error names the task, its URL and where it came from.
 */
export function refuseUnsafeStartUrls(
  tasks: readonly Task[],
  o: { allowPrivate?: boolean; file?: string; field?: string },
): void {
  if (o.allowPrivate) return;
  for (const t of tasks) {
    if (LOCAL_SUITES.has(t.suite)) continue;
    const risk = startUrlRisk(t.startUrl);
    if (risk)
      throw new InputError(
        `task "${t.id}" starts at ${t.startUrl}: ${risk.detail}; live tasks may not start on local files, this machine, a private network or a cloud metadata address (pass --allow-private to run it anyway)`,
        { file: o.file, field: o.field },
      );
  }
}

/** A comma-separated list of world sites; an unknown site is a usage error naming `field`. */
export function parseSites(list: string, field: string): string[] {
  const sites = list.split(',').filter(Boolean);
  for (const s of sites) {
    if (!(WORLD_SITES as readonly string[]).includes(s))
      throw new InputError(`unknown world site "${s}"; the sites are ${WORLD_SITES.join(', ')}`, { field });
  }
  if (sites.length === 0) throw new InputError('no site named', { field });
  return sites;
}

/** The world tasks of a split, optionally only those of some sites. */
export function worldTasksOf(
  split: 'train' | 'test',
  worldSeed: number | undefined,
  sites?: readonly string[],
): Task[] {
  const all = generateWorldTasks({ split, seed: worldSeed });
  return sites ? all.filter((t) => sites.includes(t.site)) : all;
}

/** A seeded sample of n tasks, returned in a stable order (sorted by id) so runs line up. */
export function sampleTasks(tasks: Task[], n: number, seed: number): Task[] {
  if (n >= tasks.length) return tasks.slice();
  return new Rng(`tasks:${seed}`)
    .shuffle(tasks)
    .slice(0, n)
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Reads a task file (JSONL, or a JSON array of Task objects); every problem is an input error naming it. */
export function readTaskFile(file: string): Task[] {
  if (existsSync(file) && statSync(file).isDirectory())
    throw new InputError(`${file} is a directory, expected a task file`, { field: '--tasks' });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read task file: ${(e as Error).message}`, { file });
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let arr: unknown[];
    try {
      arr = JSON.parse(trimmed);
    } catch (e) {
      throw new InputError(`not valid JSON: ${(e as Error).message}`, { file });
    }
    if (!Array.isArray(arr)) throw new InputError('expected a JSON array of Task objects', { file });
    return noDuplicateIds(
      arr.map((v, i) => ({ task: parseTask(v, file, i + 1, 'item'), n: i + 1 })),
      file,
      'item',
    );
  }
  const out: Array<{ task: Task; n: number }> = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not valid JSON: ${(e as Error).message}`, { file, line: i + 1 });
    }
    out.push({ task: parseTask(v, file, i + 1, 'line'), n: i + 1 });
  });
  return noDuplicateIds(out, file, 'line');
}

/** Two tasks with one id would be merged in every store and report: refused, naming both places. */
function noDuplicateIds(
  tasks: Array<{ task: Task; n: number }>,
  file: string,
  unit: 'line' | 'item',
): Task[] {
  const seen = new Map<string, number>();
  for (const { task, n } of tasks) {
    const first = seen.get(task.id);
    if (first !== undefined)
      throw new InputError(
        `duplicate task id "${task.id}" (first at ${unit === 'line' ? 'line' : 'item'} ${unit === 'line' ? first : first - 1})`,
        unit === 'line' ? { file, line: n, field: 'id' } : { file, field: `[${n - 1}].id` },
      );
    seen.set(task.id, n);
  }
  return tasks.map((t) => t.task);
}

// Top-level fields are closed (free-form extras go in `meta`), so a misspelt field is refused
// instead of silently dropped.
const StrictTask = Task.strict();

function parseTask(v: unknown, file: string, n: number, unit: 'line' | 'item'): Task {
  const r = StrictTask.safeParse(v);
  if (!r.success) {
    const issue = r.error.issues[0];
    const unknown = issue?.code === 'unrecognized_keys' ? issue.keys : null;
    const path = unknown ? unknown[0] : issue?.path.join('.');
    const where = {
      file,
      ...(unit === 'line' ? { line: n } : {}),
      field: unit === 'item' ? `[${n - 1}].${path}` : path,
    };
    if (unknown)
      throw new InputError(
        `not a valid Task: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${Object.keys(Task.shape).join(', ')}; put extras in meta)`,
        where,
      );
    throw new InputError(`not a valid Task: ${describeZodIssues(r.error.issues)}`, where);
  }
  return r.data;
}
