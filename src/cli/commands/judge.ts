import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import { calibrateJudges, planCalibration } from '../../eval/calibrate-judges.ts';
import {
  formatEstimate,
  renderCalibrationMarkdown,
  renderCalibrationSvg,
} from '../../eval/judge-calibration.ts';
import { judgeUnderTest, parseJudgeSpec } from '../../judge/judge-under-test.ts';
import { RunStore } from '../../store/run-store.ts';
import { intOption, seedOption } from '../options.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';

const Options = z.object({
  run: z.string().min(1),
  judge: z.array(z.string().min(1)).min(1),
  sample: intOption(2, 100_000).default(100),
  seed: seedOption.default(0),
  out: z.string().min(1).optional(),
  concurrency: intOption(1, 64).default(1),
  maxTokens: intOption(16, 100_000).optional(),
  timeout: intOption(1, 3600).default(120),
  resamples: intOption(100, 100_000).default(2000),
  viewerBase: z.string().url().optional(),
  json: z.boolean().default(false),
  progress: z.boolean().default(false),
});
type Options = z.output<typeof Options>;

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `rmsweb judge calibrate`: measure LLM judges against the world's programmatic verifier. */
export function registerJudge(program: Command): void {
  const judge = program
    .command('judge')
    .description('Judges of episode outcomes: calibrate them against ground truth');
  judge
    .command('calibrate')
    .description(
      "Run judges on a balanced, seeded sample of a run's verified world episodes and measure them against the\n" +
        'programmatic verifier: agreement, precision and recall of "success", Cohen\'s kappa and the rate of judge\n' +
        'errors, with paired bootstrap 95% CIs; tokens, cost and time per verdict; per site and per failure label;\n' +
        'a calibrated threshold for judges that give graded scores and a majority-vote row. A judge error\n' +
        '(unparseable reply, timeout, endpoint down) is counted as such, never as a failure. Verdicts are stored in\n' +
        'the run store as they arrive: rerun the same command to resume (errors from an endpoint or a timeout are\n' +
        'asked again). Writes a Markdown table (--out), a JSON file and an SVG confusion plot beside it.',
    )
    .requiredOption('--run <dir>', 'run folder holding world episodes (e.g. an evaluation)')
    .requiredOption(
      '--judge <spec>',
      'rules | [webvoyager:|webjudge:|rubric:]openai:MODEL[@URL] (repeat for several judges)',
      collect,
    )
    .option('--sample <n>', 'episodes to judge, half verified successes and half failures', '100')
    .option('--seed <n>', 'seed of the sample, the threshold split and the bootstrap', '0')
    .option('--out <file>', 'Markdown report (default: <run>/reports/judge-calibration/calibration.md)')
    .option(
      '--concurrency <n>',
      'verdicts in flight at once (a local serve-model answers one at a time)',
      '1',
    )
    .option('--max-tokens <n>', "LLM judges' reply budget per call (default: each judge's own)")
    .option('--timeout <s>', 'seconds one verdict may take before it counts as a judge error', '120')
    .option('--resamples <n>', 'bootstrap resamples', '2000')
    .option('--viewer-base <url>', 'link disagreements to a running viewer, e.g. http://127.0.0.1:8080')
    .option('--json', 'print the report as JSON')
    .option('--progress', 'force the progress bar even without a terminal')
    .action(async (raw) => runCalibrate(parseOptions(Options, raw, 'judge calibrate')));
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return undefined;
  }
}

async function runCalibrate(o: Options): Promise<void> {
  // Everything that can be refused is checked before anything is written.
  const specs = o.judge.map((j) => parseJudgeSpec(j));
  const names = new Set<string>();
  for (const [i, s] of specs.entries()) {
    const name = s.kind === 'rules' ? 'rules' : `${s.method}:${s.model}`;
    if (names.has(name)) throw new InputError(`--judge ${o.judge[i]} is given twice`, { field: '--judge' });
    names.add(name);
  }
  // A missing API key is refused here too (the model client checks it when it is made).
  const judges = specs.map((s) => judgeUnderTest(s, { maxTokens: o.maxTokens, timeoutMs: o.timeout * 1000 }));
  if (!existsSync(join(o.run, 'store.sqlite')))
    throw new InputError(`--run ${o.run} is not a run folder (no store.sqlite)`, { field: '--run' });
  const store = RunStore.open(o.run, { create: false });
  const sig = abortOnSigint('judge calibrate');
  try {
    const plan = planCalibration(store, o.sample, o.seed);
    if (!plan.sample.ids.length)
      throw new InputError(
        `${o.run} holds no world episodes scored by the programmatic verifier; point --run at a world collection, rollout or evaluation`,
        { field: '--run' },
      );
    const out = resolve(o.out ?? join(o.run, 'reports', 'judge-calibration', 'calibration.md'));
    const base = out.replace(/\.md$/i, '');
    const bar = createProgress('judge calibrate', judges.length * plan.sample.ids.length, {
      force: o.progress,
      quiet: o.json,
    });
    const errors = new Map<string, number>();
    const report = await calibrateJudges({
      store,
      run: o.run,
      judges,
      sample: o.sample,
      seed: o.seed,
      concurrency: o.concurrency,
      resamples: o.resamples,
      commit: gitCommit(),
      signal: sig.signal,
      onProgress: (done, _total, last) => {
        if (last?.outcome === 'error') errors.set(last.judge, (errors.get(last.judge) ?? 0) + 1);
        bar.update(done, { 'judge errors': [...errors.values()].reduce((a, b) => a + b, 0) });
      },
    });
    bar.stop();
    if (sig.signal.aborted) {
      process.exitCode = 130;
      return;
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, renderCalibrationMarkdown(report, { viewerBase: o.viewerBase }));
    writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(`${base}.svg`, renderCalibrationSvg(report));
    if (o.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    const s = report.sample;
    process.stdout.write(
      `\n${s.ids.length} episodes (${s.successes} verified successes, ${s.failures} failures)${s.note ? `; ${s.note}` : ''}\n`,
    );
    for (const r of report.rows) {
      const scored = r.stats.n - r.stats.confusion.errors;
      process.stdout.write(
        `  ${r.row}\n    agreement ${formatEstimate(r.stats.agreement, true)}, kappa ${formatEstimate(r.stats.kappa)}, ` +
          `precision ${formatEstimate(r.stats.precision)}, recall ${formatEstimate(r.stats.recall)}; ` +
          `${scored}/${r.stats.n} scored, judge errors ${formatEstimate(r.stats.errorRate, true)}\n`,
      );
    }
    process.stdout.write(
      `disagreements: ${report.disagreements.length}\nreport: ${out}\n        ${base}.json\n        ${base}.svg\n`,
    );
  } finally {
    sig.dispose();
    store.close();
  }
}
