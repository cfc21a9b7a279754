import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  describeZodIssues,
  InputError,
  levelFromReferenceLength,
  Task,
  type TaskInput,
} from '../core/index.ts';

/**
 * Loaders for the live-web benchmark task files (WebVoyager, its Fara revision, Online-Mind2Web,
 * WebTailBench) into core Task records. They live with the judges because the verifier spec each
 * task carries (reference answer, rubric, or none) is what judging needs.
 */

export const BENCHMARK_SUITES = ['webvoyager', 'webvoyager-fara', 'online-mind2web', 'webtailbench'] as const;
export type BenchmarkSuite = (typeof BENCHMARK_SUITES)[number];

/** The file each suite reads, relative to the benchmarks directory. */
export const SUITE_FILES: Record<BenchmarkSuite, string> = {
  webvoyager: 'webvoyager/WebVoyager_data.jsonl',
  'webvoyager-fara': 'webvoyager/WebVoyager_data_08312025_fara.jsonl',
  'online-mind2web': 'online-mind2web/Online_Mind2Web_06042025.json',
  webtailbench: 'webtailbench/WebTailBench_v1_with_rubrics.jsonl',
};
const REFERENCE_FILE = 'webvoyager/reference_answer.json';
const ORIGINAL_WEBVOYAGER = SUITE_FILES.webvoyager;

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where to look for benchmark files; each field defaults to the running process's. */
export interface BenchmarkLocation {
  /** Explicit directory (`--benchmarks-dir`); when given, nothing else is searched. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The rmsweb package root (default: this checkout's). */
  packageRoot?: string;
}

/**
 * Where the default search looks, in order: `$RMSWEB_BENCHMARKS`, `../shared/benchmarks` from the
 * working directory and from the package root, then `./benchmarks` in each.
 */
export function benchmarkSearchPath(loc: BenchmarkLocation = {}): string[] {
  const env = loc.env ?? process.env;
  const cwd = loc.cwd ?? process.cwd();
  const root = loc.packageRoot ?? PACKAGE_ROOT;
  const dirs = [
    ...(env.RMSWEB_BENCHMARKS ? [resolve(cwd, env.RMSWEB_BENCHMARKS)] : []),
    resolve(cwd, '..', 'shared', 'benchmarks'),
    resolve(root, '..', 'shared', 'benchmarks'),
    resolve(cwd, 'benchmarks'),
    resolve(root, 'benchmarks'),
  ];
  return [...new Set(dirs)];
}

/**
 * The benchmarks directory holding `suite`'s file: `dir` when given (it must hold the file), else
 * the first directory of the search path that does. Throws InputError saying where it looked.
 */
export function findBenchmarksDir(suite: BenchmarkSuite, opts: BenchmarkLocation = {}): string {
  const rel = SUITE_FILES[suite];
  if (opts.dir) {
    const dir = resolve(opts.cwd ?? process.cwd(), opts.dir);
    if (!existsSync(join(dir, rel))) {
      throw new InputError(`benchmark file for ${suite} not found: expected ${join(dir, rel)}`, {
        field: 'benchmarks-dir',
      });
    }
    return dir;
  }
  const path = benchmarkSearchPath(opts);
  for (const dir of path) {
    if (existsSync(join(dir, rel)) && statSync(join(dir, rel)).isFile()) return dir;
  }
  throw new InputError(
    `benchmark file ${rel} for ${suite} not found. Looked in:\n  ${path.join('\n  ')}\n` +
      'Pass --benchmarks-dir DIR or set RMSWEB_BENCHMARKS.',
  );
}

// ---- raw record schemas -------------------------------------------------------------------------

const WebVoyagerRow = z.object({
  web_name: z.string().min(1),
  id: z.string().min(1),
  ques: z.string().min(1),
  web: z.string().min(1),
});
const ReferenceAnswers = z.record(
  z.string(),
  z.object({
    notice: z.string().optional(),
    answers: z.array(z.object({ id: z.number().int(), type: z.string(), ans: z.string() })),
  }),
);
const Mind2WebRow = z.object({
  task_id: z.string().min(1),
  confirmed_task: z.string().min(1),
  website: z.string().min(1),
  reference_length: z.number().int().positive().optional(),
  level: z.enum(['easy', 'medium', 'hard']).optional(),
});
const TailRow = z.object({
  id: z.string().min(1),
  category: z.string().min(1),
  ques: z.string().min(1),
  web: z.string().default(''),
  precomputed_rubric: z.object({
    items: z
      .array(
        z.object({
          criterion: z.string().min(1),
          description: z.string().default(''),
          max_points: z.number().nonnegative(),
          condition: z.string().nullish(),
        }),
      )
      .min(1),
  }),
});

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read benchmark file: ${(e as Error).message}`, { file }, e);
  }
}

/** Parses a JSONL file row by row; a bad row names the file, the line and the field. */
function readJsonl<S extends z.ZodType>(file: string, schema: S): Array<z.output<S>> {
  const rows: Array<z.output<S>> = [];
  readText(file)
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (e) {
        throw new InputError(`malformed JSON: ${(e as Error).message}`, { file, line: i + 1 }, e);
      }
      const r = schema.safeParse(raw);
      if (!r.success) {
        throw new InputError(describeZodIssues(r.error.issues), {
          file,
          line: i + 1,
          field: r.error.issues[0]?.path.join('.'),
        });
      }
      rows.push(r.data);
    });
  return rows;
}

/** Parses a whole-JSON file; a syntax error is reported with its line. */
function readJson(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (e) {
    const pos = /position (\d+)/.exec((e as Error).message);
    const line = pos ? text.slice(0, Number(pos[1])).split('\n').length : undefined;
    throw new InputError(`malformed JSON: ${(e as Error).message}`, { file, line }, e);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

function finish(tasks: TaskInput[], file: string): Task[] {
  return tasks.map((t, i) => {
    const r = Task.safeParse(t);
    if (!r.success) throw new InputError(describeZodIssues(r.error.issues), { file, field: `[${i}]` });
    return r.data;
  });
}

// ---- suites -------------------------------------------------------------------------------------

function loadReferences(dir: string): Map<string, { ans: string; type: string; notice?: string }> {
  const file = join(dir, REFERENCE_FILE);
  const out = new Map<string, { ans: string; type: string; notice?: string }>();
  if (!existsSync(file)) return out;
  const r = ReferenceAnswers.safeParse(readJson(file));
  if (!r.success)
    throw new InputError(describeZodIssues(r.error.issues), {
      file,
      field: r.error.issues[0]?.path.join('.'),
    });
  for (const [site, v] of Object.entries(r.data)) {
    for (const a of v.answers)
      out.set(`${site}--${a.id}`, { ans: a.ans, type: a.type, notice: v.notice?.trim() || undefined });
  }
  return out;
}

function loadWebVoyager(dir: string, fara: boolean): Task[] {
  const file = join(dir, SUITE_FILES[fara ? 'webvoyager-fara' : 'webvoyager']);
  const rows = readJsonl(file, WebVoyagerRow);
  const refs = loadReferences(dir);
  // Fara reworded some questions; a reference written for the old wording may no longer fit.
  const original =
    fara && existsSync(join(dir, ORIGINAL_WEBVOYAGER))
      ? new Map(readJsonl(join(dir, ORIGINAL_WEBVOYAGER), WebVoyagerRow).map((r) => [r.id, r.ques.trim()]))
      : null;
  const prefix = fara ? 'webvoyager-fara' : 'webvoyager';
  return finish(
    rows.map((r) => {
      const ques = r.ques.trim();
      const reworded = original ? original.get(r.id) !== ques : false;
      const ref = refs.get(r.id);
      const useRef = ref && (!fara || (original !== null && !reworded));
      return {
        id: `${prefix}:${r.id}`,
        suite: 'webvoyager',
        site: r.web_name,
        objective: ques,
        startUrl: r.web,
        verifier: useRef ? { kind: 'answer', reference: ref.ans, answerType: ref.type } : { kind: 'judge' },
        meta: {
          sourceId: r.id,
          ...(fara ? { variant: 'fara', reworded } : {}),
          ...(ref?.notice ? { referenceNotice: ref.notice } : {}),
        },
      } satisfies TaskInput;
    }),
    file,
  );
}

function loadMind2Web(dir: string): Task[] {
  const file = join(dir, SUITE_FILES['online-mind2web']);
  const raw = readJson(file);
  if (!Array.isArray(raw)) throw new InputError('expected a JSON array of tasks', { file });
  return finish(
    raw.map((item, i) => {
      const r = Mind2WebRow.safeParse(item);
      if (!r.success)
        throw new InputError(describeZodIssues(r.error.issues), {
          file,
          field: `[${i}].${r.error.issues[0]?.path.join('.')}`,
        });
      const t = r.data;
      return {
        id: `online-mind2web:${t.task_id}`,
        suite: 'online-mind2web',
        site: hostOf(t.website),
        objective: t.confirmed_task.trim(),
        startUrl: t.website,
        level: t.level ?? (t.reference_length ? levelFromReferenceLength(t.reference_length) : undefined),
        ...(t.reference_length ? { referenceLength: t.reference_length } : {}),
        verifier: { kind: 'judge' },
        meta: { sourceId: t.task_id },
      } satisfies TaskInput;
    }),
    file,
  );
}

function loadWebTailBench(dir: string): Task[] {
  const file = join(dir, SUITE_FILES.webtailbench);
  return finish(
    readJsonl(file, TailRow).map((r) => {
      const web = r.web.trim();
      return {
        id: `webtailbench:${r.id}`,
        suite: 'webtailbench',
        // Ids are `<site>_<n>` (or `<site>_<kind>_<n>`); the file gives no start URL.
        site: r.id.split('_')[0] || r.category,
        objective: r.ques.trim(),
        // No start page is given: the agent starts blank and chooses where to go.
        startUrl: web || 'about:blank',
        category: r.category,
        verifier: {
          kind: 'rubric',
          items: r.precomputed_rubric.items.map((it) => ({
            criterion: it.criterion,
            description: it.description,
            maxPoints: it.max_points,
            ...(it.condition ? { condition: it.condition } : {}),
          })),
        },
        meta: { sourceId: r.id },
      } satisfies TaskInput;
    }),
    file,
  );
}

/**
 * Loads a benchmark suite as core Tasks. Verifiers: WebVoyager tasks with a reference answer get
 * `{kind:'answer'}` (Fara-reworded ones fall back to `{kind:'judge'}`), WebTailBench gets its
 * rubric, Online-Mind2Web gets `{kind:'judge'}`.
 */
export function loadSuite(name: BenchmarkSuite, opts: BenchmarkLocation = {}): Task[] {
  if (!(BENCHMARK_SUITES as readonly string[]).includes(name)) {
    throw new InputError(
      `unknown benchmark suite "${name}"; expected one of ${BENCHMARK_SUITES.join(', ')}`,
      { field: 'suite' },
    );
  }
  const dir = findBenchmarksDir(name, opts);
  switch (name) {
    case 'webvoyager':
      return loadWebVoyager(dir, false);
    case 'webvoyager-fara':
      return loadWebVoyager(dir, true);
    case 'online-mind2web':
      return loadMind2Web(dir);
    case 'webtailbench':
      return loadWebTailBench(dir);
  }
}
