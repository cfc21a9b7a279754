import { mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { CriticalState, describeZodIssues, InputError, type Trajectory } from '../../core/index.ts';
import {
  DEFAULT_MAX_CANDIDATES,
  DEFAULT_MIN_COMPARABILITY,
  DEFAULT_RECOVERABLE_PRIOR,
  DEFAULT_REPLAY_THRESHOLD,
  formatMineStats,
  formatVerification,
  LlmTagger,
  type MineResult,
  mineCriticalStates,
  rulesTagger,
  type Tagger,
} from '../../mine/index.ts';
import { createChatModel } from '../../models/index.ts';
import { RunStore, writeFileAtomic } from '../../store/index.ts';
import { fileOption, intOption, numberOption, seedOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { createProgress, type Progress } from '../progress.ts';
import { baselinesPathFor, journalPathFor, runMineVerify } from './mine-verify.ts';

const Options = z.object({
  run: z.array(z.string().min(1)).min(1, 'give at least one --run DIR'),
  judge: z.string().min(1).default('rules'),
  out: fileOption(),
  minComparability: numberOption(0, 1).default(DEFAULT_MIN_COMPARABILITY),
  maxCandidates: intOption(1, 1000).default(DEFAULT_MAX_CANDIDATES),
  recoverablePrior: numberOption(0, 1).default(DEFAULT_RECOVERABLE_PRIOR),
  dropRecoverable: z.boolean().default(false),
  concurrency: intOption(1, 256).optional(),
  keepDuplicates: z.boolean().default(false),
  record: z.boolean().default(true),
  progress: z.boolean().default(false),
  json: z.boolean().default(false),
  verify: z.boolean().default(false),
  verifyPolicy: z.string().min(1).default('heuristic'),
  replayThreshold: numberOption(0, 1).optional(),
  baselines: z.boolean().default(true),
  workers: intOption(1, 32).default(2),
  worldSeed: seedOption.optional(),
  maxSteps: intOption(1, 1000).optional(),
  seed: seedOption.default(0),
  port: intOption(0, 65535).optional(),
  browserWs: z.string().min(1).optional(),
  queue: z.string().min(1).optional(),
});

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `runs/x/critical.jsonl` -> `runs/x/critical.stats.json`. */
export function statsPathFor(out: string): string {
  return `${out.replace(/\.jsonl?$/i, '')}.stats.json`;
}

function makeTagger(judge: string): Tagger {
  if (judge === 'rules') return rulesTagger;
  return new LlmTagger(createChatModel(judge, { role: 'judge' }));
}

function readRuns(dirs: string[]): Trajectory[] {
  const all: Trajectory[] = [];
  for (const dir of dirs) {
    const store = RunStore.open(dir, { create: false, readonly: true });
    try {
      all.push(...store.listTrajectories());
    } finally {
      store.close();
    }
  }
  return all;
}

/** Validates every critical state and writes them one JSON object per line. */
function writeJsonl(out: string, result: MineResult): void {
  const lines = result.criticalStates.map((cs, i) => {
    const r = CriticalState.safeParse(cs);
    if (!r.success) {
      throw new InputError(`critical state ${cs.id} is invalid: ${describeZodIssues(r.error.issues)}`, {
        file: out,
        line: i + 1,
      });
    }
    return JSON.stringify(r.data);
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileAtomic(out, lines.length ? `${lines.join('\n')}\n` : '');
}

/** Registers `rmsweb mine`. */
export function registerMine(program: Command): void {
  program
    .command('mine')
    .description('Mine critical states from success/failure pairs')
    .requiredOption('--run <dir>', 'run folder to read trajectories from (repeatable)', collect)
    .option(
      '--judge <spec>',
      "taxonomy tagger: 'rules' (offline) or a model spec openai:<model>[@<url>]",
      'rules',
    )
    .requiredOption('--out <file>', 'output JSONL file, one CriticalState per line; stats go beside it')
    .option(
      '--min-comparability <x>',
      `comparability threshold in [0, 1] (default ${DEFAULT_MIN_COMPARABILITY})`,
    )
    .option(
      '--max-candidates <n>',
      `candidate divergences per pair, latest first (default ${DEFAULT_MAX_CANDIDATES})`,
    )
    .option(
      '--recoverable-prior <x>',
      'score multiplier in [0, 1] on a divergence the failure run could still undo (the success action ' +
        `stays available later in the failure run); 1 turns it off (default ${DEFAULT_RECOVERABLE_PRIOR})`,
    )
    .option(
      '--drop-recoverable',
      'never pick such a divergence: a pair whose every candidate is recoverable yields no critical state ' +
        '(fewer states, more of them causal)',
    )
    .option('--concurrency <n>', 'pairs tagged at once (default 1 for rules, 8 for a model)')
    .option('--keep-duplicates', 'keep one critical state per pair even when pairs share a success state')
    .option('--no-record', 'do not also save critical states and stats as records in the first run store')
    .option('--progress', 'show a progress bar even when stderr is not a terminal')
    .option('--json', 'print the stats as JSON on stdout')
    .option(
      '--verify',
      'check each critical state of a world task causally: replay the success prefix under the recorded seeds, ' +
        'branch on the success and the failure action, finish both with the same policy, let the verifier judge; ' +
        'labels confirmed / not-causal / replay-failed; compares the miner with two baselines (first differing ' +
        'step, a random shared step). Resumable (journal beside --out)',
    )
    .option(
      '--verify-policy <spec>',
      'continuation policy of both branches, with the solving notes',
      'heuristic',
    )
    .option(
      '--replay-threshold <x>',
      `comparability the replayed state must reach to the recorded one (default ${DEFAULT_REPLAY_THRESHOLD})`,
    )
    .option('--no-baselines', "verify only the miner's states, not the two baselines")
    .option('--workers <k>', 'parallel browser contexts for --verify (default 2)')
    .option('--world-seed <n>', "seed of the offline world (default: the run's collection seed, else 1)")
    .option('--max-steps <n>', "step budget of a branch episode (default: the run's, else 30)")
    .option('--seed <n>', 'seed of the random baseline (default 0)')
    .option('--port <n>', 'world port (a running world is reused; else one starts in-process)')
    .option('--browser-ws <url>', 'connect to a remote browser instead of launching Chromium')
    .option(
      '--queue <redis-url>',
      'with --verify: run the branch episodes on queue workers (`rmsweb worker --redis URL`) instead of ' +
        'in this process: redis://host:port[/db]; they are kept in a run store beside --out (.verify-queue)',
    )
    .action(async (raw) => {
      const o = parseOptions(Options, { ...raw, run: raw.run ?? [] }, 'mine');
      if (o.queue && !o.verify)
        throw new InputError('--queue runs the verification branches: give it with --verify', {
          field: '--queue',
        });
      const { minComparability, maxCandidates } = o;
      const tagger = makeTagger(o.judge);
      const concurrency = o.concurrency ?? (o.judge === 'rules' ? 1 : 8);
      const trajectories = readRuns(o.run);

      let progress: Progress | null = null;
      const result = await mineCriticalStates(trajectories, {
        minComparability,
        maxCandidates,
        recoverablePrior: o.recoverablePrior,
        dropRecoverable: o.dropRecoverable,
        tagger,
        concurrency,
        dedupe: !o.keepDuplicates,
        onProgress: (done, total) => {
          progress ??= createProgress('mine', total, { force: o.progress });
          progress.update(done);
        },
      });
      (progress as Progress | null)?.stop();

      let verified: Awaited<ReturnType<typeof runMineVerify>> | null = null;
      if (o.verify) {
        verified = await runMineVerify(result.criticalStates, trajectories, {
          runs: o.run,
          out: o.out,
          policy: o.verifyPolicy,
          replayThreshold: o.replayThreshold,
          workers: o.workers,
          worldSeed: o.worldSeed,
          maxSteps: o.maxSteps,
          seed: o.seed,
          baselines: o.baselines,
          port: o.port,
          browserWs: o.browserWs,
          progress: o.progress,
          queue: o.queue,
        });
        result.criticalStates = verified.states;
        const base = baselinesPathFor(o.out);
        writeFileAtomic(
          base,
          verified.baselines
            .map((r) =>
              JSON.stringify({
                method: r.target.method,
                stateId: r.target.stateId,
                successTrajectoryId: r.target.success.id,
                successStep: r.target.success.steps[r.target.i].index,
                failureTrajectoryId: r.target.failure.id,
                failureStep: r.target.failure.steps[r.target.j].index,
                label: r.target.label,
                site: r.target.site,
                verification: r.verification,
              }),
            )
            .join('\n') + (verified.baselines.length ? '\n' : ''),
        );
      }

      writeJsonl(o.out, result);
      const statsPath = statsPathFor(o.out);
      const saved = {
        ...result.stats,
        runs: o.run,
        out: o.out,
        ...(tagger instanceof LlmTagger
          ? { judgeUsage: tagger.usage, judgeFallbacks: tagger.fallbacks }
          : {}),
        ...(verified
          ? {
              verification: {
                ...verified.summary,
                journal: journalPathFor(o.out),
                baselines: baselinesPathFor(o.out),
              },
            }
          : {}),
      };
      writeFileAtomic(statsPath, `${JSON.stringify(saved, null, 2)}\n`);
      if (o.record) {
        const store = RunStore.open(o.run[0], { create: false });
        try {
          store.transaction(() => {
            for (const cs of result.criticalStates) store.putRecord('critical-state', cs.id, cs);
            store.putRecord('mine-stats', basename(o.out), saved);
          });
        } finally {
          store.close();
        }
      }

      if (o.json) {
        process.stdout.write(`${JSON.stringify(saved, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${formatMineStats(result.stats)}\n`);
      if (tagger instanceof LlmTagger) {
        const u = tagger.usage;
        process.stdout.write(
          `judge ${tagger.id}: ${u.calls} calls, ${u.promptTokens + u.completionTokens} tokens, $${u.costUsd.toFixed(4)}` +
            `${tagger.fallbacks ? `, ${tagger.fallbacks} fell back to rules` : ''}\n`,
        );
      }
      if (verified) process.stdout.write(`${formatVerification(verified.summary)}\n`);
      process.stdout.write(
        `wrote ${result.criticalStates.length} critical states to ${o.out} (stats: ${statsPath})\n`,
      );
    });
}
