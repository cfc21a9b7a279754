import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError, Task } from '../../core/index.ts';
import { BENCHMARK_SUITES, type BenchmarkSuite, loadSuite } from '../../judge/index.ts';
import {
  createChatModel,
  LlmTaskRewriter,
  loadPriceTable,
  type RewriteOutcome,
  readQueries,
  type SourcedQuery,
  type TaskRewriter,
  UsageMeter,
} from '../../models/index.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { createOfflineRewriter } from '../../world/rewriter.ts';
import { generateWorldTasks } from '../../world/tasks.ts';
import { fileOption, intOption, seedOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';

export const LIST_SUITES = ['world', ...BENCHMARK_SUITES] as const;

const ListOptions = z.object({
  suite: z.string().min(1),
  benchmarksDir: z.string().optional(),
  site: z.string().optional(),
  seed: seedOption.optional(),
  split: z.enum(['train', 'test']).optional(),
  limit: intOption(0).optional(),
  json: z.boolean().default(false),
});

const SynthOptions = z.object({
  queries: fileOption().optional(),
  model: z.string().min(1),
  out: fileOption(),
  dropped: fileOption().optional(),
  baseUrl: z.string().optional(),
  cacheDir: z.string().optional(),
  concurrency: intOption(1, 256).default(4),
  timeoutMs: intOption(1).optional(),
  prices: fileOption().optional(),
  progress: z.boolean().default(false),
  json: z.boolean().default(false),
});
type SynthOptions = z.output<typeof SynthOptions>;

/** The world's tasks, through the offline world's own generator. */
function worldTasks(o: { seed?: number; split?: 'train' | 'test'; site?: string }): Task[] {
  const tasks = generateWorldTasks({
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.split ? { split: o.split } : {}),
    ...(o.site ? { site: o.site } : {}),
  });
  if (o.site && tasks.length === 0)
    throw new InputError(`the offline world has no site "${o.site}"`, { field: 'site' });
  return tasks;
}

/** Tasks of a suite, validated. */
export async function listSuiteTasks(
  suite: string,
  o: { benchmarksDir?: string; seed?: number; split?: 'train' | 'test'; site?: string },
): Promise<Task[]> {
  if (suite === 'world') return worldTasks(o);
  if (!(BENCHMARK_SUITES as readonly string[]).includes(suite)) {
    throw new InputError(`unknown suite "${suite}"; expected one of ${LIST_SUITES.join(', ')}`, {
      field: 'suite',
    });
  }
  const tasks = loadSuite(suite as BenchmarkSuite, { dir: o.benchmarksDir });
  return o.site ? tasks.filter((t) => t.site.toLowerCase() === o.site!.toLowerCase()) : tasks;
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** `out.jsonl` -> `out.dropped.jsonl`. */
export function droppedPathFor(out: string): string {
  return `${out.replace(/\.jsonl?$/i, '')}.dropped.jsonl`;
}

function writeJsonl(file: string, rows: unknown[]): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, rows.length ? `${rows.map((r) => JSON.stringify(r)).join('\n')}\n` : '');
}

async function synth(o: SynthOptions): Promise<void> {
  if (o.model !== 'offline' && !o.queries)
    throw new InputError('--queries FILE is required with a model', { field: '--queries' });
  const meter = new UsageMeter();
  let rewriter: TaskRewriter;
  let queries: SourcedQuery[];
  if (o.model === 'offline') {
    rewriter = createOfflineRewriter() as TaskRewriter;
    // The offline rewriter may draw on the world's own raw-query corpus when no file is given.
    queries = o.queries && o.queries !== 'world' ? readQueries(o.queries) : [];
  } else {
    queries = readQueries(o.queries!);
    const concurrency = o.concurrency;
    const model = createChatModel(o.model, {
      role: 'rewriter',
      ...(o.baseUrl ? { baseURL: o.baseUrl } : {}),
      ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.prices ? { prices: loadPriceTable(o.prices) } : {}),
      concurrency,
      meter,
    });
    rewriter = new LlmTaskRewriter({ model, concurrency });
  }

  const bar =
    (o.progress || process.stderr.isTTY) && queries.length
      ? new cliProgress.SingleBar(
          { format: 'synth [{bar}] {value}/{total} queries | {eta_formatted} left', stream: process.stderr },
          cliProgress.Presets.shades_classic,
        )
      : null;
  bar?.start(queries.length, 0);
  let outcomes: RewriteOutcome[];
  try {
    outcomes = await rewriter.rewrite(queries, { onProgress: (done) => bar?.update(done) });
  } finally {
    bar?.stop();
  }

  const tasks = outcomes.flatMap((r) => (r.feasible ? [Task.parse(r.task)] : []));
  const dropped = outcomes.flatMap((r) =>
    r.feasible
      ? []
      : [
          {
            line: r.query.line,
            query: r.query.query,
            site: r.query.site,
            startUrl: r.query.startUrl,
            feasible: false,
            reason: r.reason,
          },
        ],
  );
  const droppedFile = o.dropped ?? droppedPathFor(o.out);
  writeJsonl(o.out, tasks);
  writeJsonl(droppedFile, dropped);
  const summary = {
    rewriter: rewriter.id,
    queries: queries.length,
    tasks: tasks.length,
    dropped: dropped.length,
    out: o.out,
    droppedFile,
    usage: meter.total(),
  };
  if (o.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${tasks.length} task(s) written to ${o.out}; ${dropped.length} query(ies) dropped, reasons in ${droppedFile}\n` +
        `usage: ${summary.usage.calls} call(s), ${summary.usage.promptTokens}+${summary.usage.completionTokens} tokens, $${summary.usage.costUsd.toFixed(4)}\n`,
    );
  }
}

/** Registers `rmsweb tasks list` and `rmsweb tasks synth`. */
export function registerTasks(program: Command): void {
  const tasks = program
    .command('tasks')
    .description('Synthesize tasks from raw queries; list benchmark suites');

  tasks
    .command('list')
    .description('List the tasks of a suite (the offline world, or a live-web benchmark file)')
    .requiredOption('--suite <name>', `one of ${LIST_SUITES.join(', ')}`)
    .option(
      '--benchmarks-dir <dir>',
      'folder holding the benchmark files (default: $RMSWEB_BENCHMARKS, ../shared/benchmarks, ./benchmarks)',
    )
    .option('--site <site>', 'only tasks of this site')
    .option('--seed <n>', 'world seed (world suite only)')
    .option('--split <split>', 'train or test (world suite only)')
    .option('--limit <n>', 'print at most n tasks')
    .option('--json', 'print the tasks as a JSON array on stdout')
    .action(async (raw) => {
      const o = parseOptions(ListOptions, raw, 'tasks list');
      const limit = o.limit;
      const all = await listSuiteTasks(o.suite, o);
      const shown = limit === undefined ? all : all.slice(0, limit);
      if (o.json) {
        process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
        return;
      }
      for (const t of shown) {
        const extra = t.level ?? t.category ?? t.verifier.kind;
        process.stdout.write(`${t.id}\t${t.site}\t${extra}\t${oneLine(t.objective, 100)}\n`);
      }
      process.stderr.write(`${shown.length} of ${all.length} task(s) in ${o.suite}\n`);
    });

  tasks
    .command('synth')
    .description(
      'Rewrite raw user queries into executable browsing tasks, dropping infeasible ones with a reason',
    )
    .option(
      '--queries <file>',
      "raw queries: one per line, or JSONL {query, site?, startUrl?}; 'world' (or none) with --model offline: the world's own raw-query corpus",
    )
    .requiredOption(
      '--model <spec>',
      "rewriter: a model spec openai:<model>[@<url>], or 'offline' (the offline world's rewriter)",
    )
    .requiredOption('--out <file>', 'output JSONL, one Task per line')
    .option('--dropped <file>', 'where dropped queries and their reasons go (default: <out>.dropped.jsonl)')
    .option(
      '--base-url <url>',
      'endpoint base URL (overrides RMSWEB_REWRITER_BASE_URL and OPENAI_BASE_URL); the key comes from RMSWEB_REWRITER_API_KEY or OPENAI_API_KEY',
    )
    .option('--cache-dir <dir>', 'cache model replies on disk, keyed by request hash')
    .option('--concurrency <n>', 'queries rewritten at once (default 4)')
    .option('--timeout-ms <n>', 'per-request timeout (default 120000)')
    .option('--prices <file>', 'JSON price table (USD per 1M tokens) merged over the defaults')
    .option('--progress', 'show a progress bar even when stderr is not a terminal')
    .option('--json', 'print the summary as JSON on stdout')
    .action((raw) => synth(parseOptions(SynthOptions, raw, 'tasks synth')));
}
