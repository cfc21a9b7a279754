import { join } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import { formatRate } from '../../eval/metrics.ts';
import { writeReport } from '../../eval/report.ts';
import { planEvalRuns, runEval } from '../../eval/run-eval.ts';
import { type BenchmarkSuite, loadSuite } from '../../judge/benchmarks.ts';
import { evalViaQueue } from '../../queue/queued-eval.ts';
import { RunStore } from '../../store/run-store.ts';
import { generateWorldTasks } from '../../world/tasks.ts';
import { recordStage } from '../manifest.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { openQueueCoordinator, QUEUE_OPTION_HELP } from '../queue-mode.ts';
import {
  isDeterministicAgent,
  openWebRuntime,
  openWorldRuntime,
  resolveAgent,
  resolveLiveJudge,
} from '../runtime.ts';
import { sampleTasks } from '../tasks-arg.ts';

const LIVE = ['webvoyager', 'online-mind2web', 'webtailbench'] as const;

const Options = z.object({
  suite: z.enum(['world', 'webvoyager', 'online-mind2web', 'webtailbench', 'miniwob']),
  agent: z.string().min(1),
  judge: z.string().optional(),
  runs: z.coerce.number().int().min(1).max(20).default(3),
  limit: z.coerce.number().int().positive().optional(),
  split: z.enum(['train', 'test']).default('test'),
  workers: z.coerce.number().int().min(1).max(32).default(2),
  maxSteps: z.coerce.number().int().min(1).max(200).default(30),
  out: z.string().min(1),
  label: z.string().optional(),
  seed: z.coerce.number().int().default(0),
  perturb: z.boolean().default(true),
  worldSeed: z.coerce.number().int().default(1),
  port: z.coerce.number().int().min(0).max(65535).optional(),
  browserWs: z.string().optional(),
  benchmarksDir: z.string().optional(),
  queue: z.string().optional(),
  json: z.boolean().default(false),
  progress: z.boolean().default(false),
});

/** `rmsweb eval`: pass@1 over k runs on a suite. */
export function registerEval(program: Command): void {
  program
    .command('eval')
    .description(
      'Evaluate an agent on a suite: pass@1 averaged over --runs runs with its spread, per site, category and level;\n' +
        'mean steps on solved tasks; cost; wall time. Resumable: rerun the same command to continue.\n' +
        'On the world suite each run gets its own world perturbation seed (from --seed and the run index): listing ' +
        'order under the default sort, page size, cookie banner and promo timing change, answers never do, so the ' +
        'runs measure robustness. With --no-perturb and a deterministic agent (heuristic, random, policy) the runs ' +
        'could not differ, so the evaluation runs once and says so.',
    )
    .requiredOption('--suite <name>', 'world | webvoyager | online-mind2web | webtailbench | miniwob')
    .requiredOption('--agent <spec>', 'heuristic | random | openai:MODEL[@URL] | policy:DIR | hf:DIR')
    .requiredOption('--out <dir>', 'run folder for the evaluation episodes and report')
    .option('--judge <spec>', 'LLM judge for live suites (openai:MODEL[@URL])')
    .option('--runs <k>', 'independent runs (pass@1 is averaged over them)', '3')
    .option('--limit <n>', 'evaluate a seeded sample of n tasks')
    .option('--split <split>', 'world split', 'test')
    .option('--workers <k>', 'parallel browser contexts', '2')
    .option('--max-steps <n>', 'step budget per episode', '30')
    .option('--label <name>', 'name of this evaluation inside the run folder (default: the agent spec)')
    .option('--seed <n>', "seed of the task sample and of the runs' world perturbation seeds", '0')
    .option('--no-perturb', 'world suite: every run sees the same, unperturbed pages')
    .option('--world-seed <n>', 'seed of the offline world', '1')
    .option('--port <n>', 'world port')
    .option('--browser-ws <url>', 'connect to a remote browser instead of launching Chromium')
    .option('--queue <redis-url>', QUEUE_OPTION_HELP)
    .option(
      '--benchmarks-dir <dir>',
      'folder with the benchmark task files (default: $RMSWEB_BENCHMARKS, ../shared/benchmarks, ./benchmarks)',
    )
    .option('--miniwob-dir <path>', "your copy of MiniWoB++'s html folder (for --suite miniwob)")
    .option('--tasks <envs>', 'miniwob: comma-separated environments (default: all in the folder)')
    .option('--json', 'print the summary as JSON')
    .option('--progress', 'force the progress bar even without a terminal')
    .action(async (raw) => {
      const o = parseOptions(Options, raw, 'eval');
      if ((LIVE as readonly string[]).includes(o.suite)) {
        if (!o.judge)
          throw new InputError(
            `suite ${o.suite} runs on the live web and needs a judge: pass --judge openai:MODEL[@URL] (or --judge answer for WebVoyager's reference answers)`,
            { field: '--judge' },
          );
        await assertNetwork();
      }
      if (o.suite === 'miniwob')
        throw new InputError(
          'the miniwob suite is not available yet (it needs --miniwob-dir support, not implemented)',
          { field: '--suite' },
        );
      const live = o.suite !== 'world';
      const all = live
        ? loadSuite(o.suite as BenchmarkSuite, { dir: o.benchmarksDir })
        : generateWorldTasks({ split: o.split, seed: o.worldSeed });
      const tasks = o.limit ? sampleTasks(all, o.limit, o.seed) : all;
      const store = RunStore.open(o.out);
      const label = o.label ?? o.agent;
      recordStage(store, `eval:${label}`, { ...o, tasks: tasks.length }, o.seed);
      const rt = o.queue
        ? null
        : live
          ? {
              ...(await openWebRuntime({ browserWs: o.browserWs })),
              start: undefined,
              verify: resolveLiveJudge(o.suite, o.judge!),
            }
          : await openWorldRuntime({ port: o.port, seed: o.worldSeed, browserWs: o.browserWs });
      const queue = o.queue ? await openQueueCoordinator(o.queue, store, { quiet: o.json }) : null;
      const sig = abortOnSigint('eval');
      const deterministicAgent = isDeterministicAgent(o.agent);
      const plan = planEvalRuns({ ...o, evalSeed: o.seed, deterministicAgent });
      const bar = createProgress(`eval ${label}`, tasks.length * plan.runs, {
        force: o.progress,
        quiet: o.json,
      });
      const t0 = Date.now();
      try {
        const common = {
          label,
          agentId: o.agent,
          suite: o.suite,
          tasks,
          store,
          runs: o.runs,
          perturb: o.perturb,
          evalSeed: o.seed,
          deterministicAgent,
          maxSteps: o.maxSteps,
          signal: sig.signal,
          onEpisode: (done: number, _total: number, rate: number) => bar.update(done, { success: rate }),
          onError: (taskId: string, error: Error) =>
            process.stderr.write(`\neval: ${taskId}: ${error.message} (rerun to retry)\n`),
        };
        const s = queue
          ? await evalViaQueue({
              ...common,
              queue,
              agent: o.agent,
              agentSeed: o.seed,
              runtime: live
                ? { kind: 'web', suite: o.suite, judge: o.judge! }
                : { kind: 'world', worldSeed: o.worldSeed },
            })
          : await runEval({
              ...common,
              makeAgent: () => resolveAgent(o.agent, { seed: o.seed }),
              makeEnv: rt!.makeEnv,
              start: rt!.start,
              verify: rt!.verify,
              workers: o.workers,
            });
        bar.stop();
        const wall = (Date.now() - t0) / 1000;
        const result = { ...s, wallSeconds: wall };
        store.putRecord('eval-summary', label, result);
        const paths = writeReport(join(store.dir, 'reports', label.replace(/[^\w.-]+/g, '_')), {
          title: `Evaluation of ${o.agent} on ${o.suite}`,
          createdAt: new Date().toISOString(),
          stages: [{ stage: label, summary: s }],
        });
        if (o.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        else {
          process.stdout.write(
            `\n${o.agent} on ${o.suite} (${s.tasks} tasks × ${s.runs} runs): pass@1 ${formatRate(s.pass1)}${s.complete ? '' : ' (incomplete: rerun to resume)'}\n`,
          );
          if (s.perturbSeeds)
            process.stdout.write(
              `  per run    ${s.pass1.perRun.map((r, i) => `${(100 * r).toFixed(1)}% (perturbation ${s.perturbSeeds?.[i] ?? 0})`).join(', ')}\n`,
            );
          if (s.runsNote) process.stdout.write(`  note: ${s.runsNote}\n`);
          for (const [site, r] of Object.entries(s.perSite))
            process.stdout.write(`  ${site.padEnd(10)} ${formatRate(r)}\n`);
          for (const [lvl, r] of Object.entries(s.perLevel))
            process.stdout.write(`  level ${lvl.padEnd(6)} ${formatRate(r)}\n`);
          process.stdout.write(
            `mean steps on solved: ${s.meanStepsSolved?.toFixed(2) ?? 'n/a'}; cost $${s.costUsd.toFixed(4)}; wall ${wall.toFixed(1)} s\nreport: ${paths.html}\n`,
          );
        }
        if (sig.signal.aborted) process.exitCode = 130;
      } finally {
        bar.stop();
        sig.dispose();
        await rt?.close();
        await queue?.close();
        store.close();
      }
    });
}

async function assertNetwork(): Promise<void> {
  try {
    await fetch('https://example.com/', { method: 'HEAD', signal: AbortSignal.timeout(5000) });
  } catch (e) {
    throw new InputError(
      `live suites need internet access, and https://example.com is unreachable from here (${(e as Error).message}); use --suite world offline`,
      { field: '--suite' },
    );
  }
}
