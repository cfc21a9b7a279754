import { join } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { formatLedger } from '../../eval/ledger.ts';
import { formatRate } from '../../eval/metrics.ts';
import { listMiniwobEnvs, miniwobHooks, miniwobTasks, serveMiniwob } from '../../eval/miniwob.ts';
import { writeReport } from '../../eval/report.ts';
import { DEFAULT_RUNS, planEvalRuns, type RunEvalOptions, runEval } from '../../eval/run-eval.ts';
import { type BenchmarkSuite, loadSuite } from '../../judge/benchmarks.ts';
import { withJudgeFailures } from '../../judge/judge-under-test.ts';
import type { EpisodeQueue } from '../../queue/episode-queue.ts';
import { evalViaQueue } from '../../queue/queued-eval.ts';
import { RunStore } from '../../store/run-store.ts';
import { generateWorldTasks } from '../../world/tasks.ts';
import { episodesNotRun } from '../episode-errors.ts';
import { recordStage } from '../manifest.ts';
import {
  AllowPrivateOption,
  addAllowPrivateOption,
  addBrowserOptions,
  addEpisodeOptions,
  addQueueOption,
  addWorldOptions,
  BrowserOptions,
  EpisodeOptions,
  intOption,
  QueueOptions,
  seedOption,
  WorldOptions,
} from '../options.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { openQueueCoordinator } from '../queue-mode.ts';
import {
  checkAgentSpec,
  isDeterministicAgent,
  openWebRuntime,
  openWorldRuntime,
  resolveAgent,
  resolveLiveJudge,
  screenshotsFor,
} from '../runtime.ts';
import { refuseUnsafeStartUrls, sampleTasks } from '../tasks-arg.ts';

const LIVE = ['webvoyager', 'online-mind2web', 'webtailbench'] as const;

const Options = z.object({
  suite: z.enum(['world', 'webvoyager', 'online-mind2web', 'webtailbench', 'miniwob']),
  agent: z.string().min(1),
  judge: z.string().optional(),
  runs: intOption(1, 20).default(DEFAULT_RUNS),
  limit: intOption(1).optional(),
  split: z.enum(['train', 'test']).default('test'),
  out: z.string().min(1),
  label: z.string().optional(),
  seed: seedOption.default(0),
  perturb: z.boolean().default(true),
  benchmarksDir: z.string().optional(),
  miniwobDir: z.string().min(1).optional(),
  tasks: z.string().min(1).optional(),
  screenshots: z.boolean().optional(),
  json: z.boolean().default(false),
  progress: z.boolean().default(false),
  ...BrowserOptions,
  ...WorldOptions,
  ...QueueOptions,
  ...EpisodeOptions,
  ...AllowPrivateOption,
});
type Options = z.output<typeof Options>;

/** What an evaluation runs episodes in: hooks for runEval plus what to close after. */
type EvalRuntime = Pick<RunEvalOptions, 'makeEnv' | 'start' | 'verify' | 'isTerminal'> & {
  close(): Promise<void>;
};

/** `rmsweb eval`: pass@1 over k runs on a suite. */
export function registerEval(program: Command): void {
  const cmd = program
    .command('eval')
    .description(
      'Evaluate an agent on a suite: pass@1 averaged over --runs runs with its spread, per site, category and level\n' +
        '(per environment for MiniWoB++); mean steps on solved tasks; cost; wall time. Episodes that could not be run\n' +
        '(model endpoint down, browser lost) are left out of pass@1, counted beside it, and make the command exit 1;\n' +
        'rerun the same command to retry them. Resumable: rerun the same command to continue.\n' +
        'On the world suite each run gets its own world perturbation seed (from --seed and the run index): listing ' +
        'order under the default sort, page size, cookie banner and promo timing change, answers never do, so the ' +
        'runs measure robustness. With --no-perturb and a deterministic agent (heuristic, random, policy) the runs ' +
        'could not differ, so the evaluation runs once and says so.',
    )
    .requiredOption('--suite <name>', 'world | webvoyager | online-mind2web | webtailbench | miniwob')
    .requiredOption(
      '--agent <spec>',
      'heuristic | random | openai:MODEL[@URL] | policy:DIR | hf:DIR | lm:openai:MODEL[@URL] | lm:hf:DIR',
    )
    .requiredOption('--out <dir>', 'run folder for the evaluation episodes and report')
    .option('--judge <spec>', 'LLM judge for live suites (openai:MODEL[@URL])')
    .option('--runs <k>', `independent runs (pass@1 is averaged over them; default ${DEFAULT_RUNS})`)
    .option('--limit <n>', 'evaluate a seeded sample of n tasks')
    .option('--split <split>', 'world split', 'test')
    .option('--label <name>', 'name of this evaluation inside the run folder (default: the agent spec)')
    .option('--seed <n>', "seed of the task sample and of the runs' world perturbation seeds", '0')
    .option('--no-perturb', 'world suite: every run sees the same, unperturbed pages');
  addEpisodeOptions(cmd);
  addBrowserOptions(cmd);
  addAllowPrivateOption(cmd);
  addWorldOptions(cmd);
  addQueueOption(cmd)
    .option(
      '--benchmarks-dir <dir>',
      'folder with the benchmark task files (default: $RMSWEB_BENCHMARKS, ../shared/benchmarks, ./benchmarks)',
    )
    .option(
      '--miniwob-dir <path>',
      "your copy of MiniWoB++'s html folder, the one holding core/ and miniwob/ (for --suite miniwob)",
    )
    .option('--tasks <envs>', 'miniwob: comma-separated environments (default: all in the folder)')
    .option(
      '--screenshots',
      'take a JPEG screenshot with every observation (default: on, except for policy: students, which do not read them)',
    )
    .option(
      '--no-screenshots',
      'observe without screenshots (an openai: judge still gets them unless this is given)',
    )
    .option('--json', 'print the summary as JSON')
    .option('--progress', 'force the progress bar even without a terminal')
    .action(async (raw) => runEvalCommand(parseOptions(Options, raw, 'eval')));
}

/** Everything that can be refused is checked here, before the run folder exists. */
async function checkEval(o: Options): Promise<{ tasks: Task[]; verifyLive?: RunEvalOptions['verify'] }> {
  checkAgentSpec(o.agent);
  if (o.tasks !== undefined && o.suite !== 'miniwob')
    throw new InputError('--tasks picks MiniWoB++ environments; it applies to --suite miniwob only', {
      field: '--tasks',
    });
  if (o.miniwobDir !== undefined && o.suite !== 'miniwob')
    throw new InputError('--miniwob-dir applies to --suite miniwob only', { field: '--miniwob-dir' });
  let all: Task[];
  let verifyLive: RunEvalOptions['verify'] | undefined;
  if ((LIVE as readonly string[]).includes(o.suite)) {
    if (!o.judge)
      throw new InputError(
        `suite ${o.suite} runs on the live web and needs a judge: pass --judge openai:MODEL[@URL] (or --judge answer for WebVoyager's reference answers)`,
        { field: '--judge' },
      );
    // Its failures are judge errors in the ledger, apart from the agent's endpoint and the browser.
    verifyLive = withJudgeFailures(resolveLiveJudge(o.suite, o.judge));
    all = loadSuite(o.suite as BenchmarkSuite, { dir: o.benchmarksDir });
    refuseUnsafeStartUrls(all, { allowPrivate: o.allowPrivate, field: '--suite' });
    await assertNetwork();
  } else {
    if (o.judge !== undefined)
      throw new InputError(
        `--judge applies to live suites; ${o.suite} is scored ${o.suite === 'world' ? 'by its programmatic verifiers' : "by MiniWoB's raw reward"}`,
        { field: '--judge' },
      );
    if (o.suite === 'miniwob') {
      if (o.queue)
        throw new InputError('--suite miniwob runs in this process; drop --queue', { field: '--queue' });
      if (!o.miniwobDir)
        throw new InputError("--suite miniwob needs --miniwob-dir: your copy of MiniWoB++'s html folder", {
          field: '--miniwob-dir',
        });
      all = miniwobTasks(MINIWOB_ORIGIN, pickMiniwobEnvs(o.miniwobDir, o.tasks));
    } else all = generateWorldTasks({ split: o.split, seed: o.worldSeed });
  }
  const tasks = o.limit ? sampleTasks(all, o.limit, o.seed) : all;
  if (!tasks.length) throw new InputError(`suite ${o.suite} has no tasks to evaluate`, { field: '--suite' });
  return { tasks, verifyLive };
}

// MiniWoB tasks are listed before the pages are served; the real origin replaces this one.
const MINIWOB_ORIGIN = 'http://miniwob.invalid';

/** The environments to evaluate: all in the folder, or those `--tasks` names (each must exist). */
function pickMiniwobEnvs(dir: string, spec: string | undefined): string[] {
  const envs = listMiniwobEnvs(dir);
  if (!spec) return envs;
  const wanted = spec
    .split(',')
    .map((e) => e.trim().replace(/\.html$/, ''))
    .filter(Boolean);
  const unknown = wanted.filter((e) => !envs.includes(e));
  if (unknown.length)
    throw new InputError(
      `no MiniWoB environment ${unknown.map((e) => `"${e}"`).join(', ')} in ${dir}/miniwob (it has ${envs.length}: ${envs.slice(0, 8).join(', ')}${envs.length > 8 ? ', ...' : ''})`,
      { field: '--tasks' },
    );
  return [...new Set(wanted)];
}

async function openEvalRuntime(
  o: Options,
  verifyLive: RunEvalOptions['verify'] | undefined,
): Promise<{
  rt: EvalRuntime;
  tasks?: (tasks: Task[]) => Task[];
}> {
  const screenshots = screenshotsFor(o.agent, { override: o.screenshots, judge: o.judge });
  if (o.suite === 'miniwob') {
    const wob = await serveMiniwob(o.miniwobDir!);
    try {
      const web = await openWebRuntime({ browserWs: o.browserWs, allowlist: [wob.origin], screenshots });
      const hooks = miniwobHooks();
      return {
        rt: {
          makeEnv: web.makeEnv,
          start: hooks.start,
          isTerminal: hooks.isTerminal,
          verify: hooks.verify,
          close: async () => {
            await web.close();
            await wob.close();
          },
        },
        tasks: (tasks) =>
          tasks.map((t) => ({ ...t, startUrl: t.startUrl.replace(MINIWOB_ORIGIN, wob.origin) })),
      };
    } catch (e) {
      await wob.close();
      throw e;
    }
  }
  if (verifyLive) {
    const web = await openWebRuntime({ browserWs: o.browserWs, screenshots });
    return { rt: { makeEnv: web.makeEnv, verify: verifyLive, close: web.close } };
  }
  return {
    rt: await openWorldRuntime({ port: o.port, seed: o.worldSeed, browserWs: o.browserWs, screenshots }),
  };
}

async function runEvalCommand(o: Options): Promise<void> {
  const checked = await checkEval(o);
  let tasks = checked.tasks;
  const live = (LIVE as readonly string[]).includes(o.suite);
  const label = o.label ?? o.agent;
  const opened = o.queue ? null : await openEvalRuntime(o, checked.verifyLive);
  if (opened?.tasks) tasks = opened.tasks(tasks);
  const rt = opened?.rt ?? null;
  let store: RunStore | null = null;
  let queue: EpisodeQueue | null = null;
  const sig = abortOnSigint('eval');
  const deterministicAgent = isDeterministicAgent(o.agent);
  const plan = planEvalRuns({ ...o, evalSeed: o.seed, deterministicAgent });
  const bar = createProgress(`eval ${label}`, tasks.length * plan.runs, {
    force: o.progress,
    quiet: o.json,
  });
  const t0 = Date.now();
  try {
    store = RunStore.open(o.out);
    queue = o.queue ? await openQueueCoordinator(o.queue, store, { quiet: o.json }) : null;
    recordStage(store, `eval:${label}`, { ...o, tasks: tasks.length }, o.seed);
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
        process.stderr.write(`\neval: ${taskId}: ${error.message} (not counted; rerun to retry)\n`),
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
          isTerminal: rt!.isTerminal,
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
    const errored = s.errored ?? 0;
    if (o.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      const pass = s.episodes ? formatRate(s.pass1) : 'n/a (no episode ran)';
      process.stdout.write(
        `\n${o.agent} on ${o.suite} (${tasks.length} tasks × ${plan.runs} runs): pass@1 ${pass}` +
          `${errored ? `; ${errored} errored episode(s) left out` : ''}${s.complete ? '' : ' (incomplete: rerun to resume)'}\n`,
      );
      if (s.perturbSeeds && s.pass1.perRun.length)
        process.stdout.write(
          `  per run    ${s.pass1.perRun.map((r, i) => `${(100 * r).toFixed(1)}% (perturbation ${s.perturbSeeds?.[i] ?? 0})`).join(', ')}\n`,
        );
      if (s.runsNote) process.stdout.write(`  note: ${s.runsNote}\n`);
      if (s.ledger) process.stdout.write(`  rewards: ${formatLedger(s.ledger)}\n`);
      for (const [site, r] of Object.entries(s.perSite))
        process.stdout.write(`  ${site.padEnd(o.suite === 'miniwob' ? 24 : 10)} ${formatRate(r)}\n`);
      for (const [lvl, r] of Object.entries(s.perLevel))
        process.stdout.write(`  level ${lvl.padEnd(6)} ${formatRate(r)}\n`);
      process.stdout.write(
        `mean steps on solved: ${s.meanStepsSolved?.toFixed(2) ?? 'n/a'}; cost $${s.costUsd.toFixed(4)}; wall ${wall.toFixed(1)} s\nreport: ${paths.html}\n`,
      );
    }
    if (sig.signal.aborted) process.exitCode = 130;
    else if (errored) throw episodesNotRun('eval', errored, tasks.length * plan.runs);
  } finally {
    bar.stop();
    sig.dispose();
    await rt?.close();
    await queue?.close();
    store?.close();
  }
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
