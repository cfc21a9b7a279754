import type { Command } from 'commander';
import { z } from 'zod';
import { DEFAULT_PROMPT_TOKENS } from '../../agent/lm-prompt.ts';
import { InputError } from '../../core/index.ts';
import {
  CRITICAL_FORMATS,
  type ExportRlSummary,
  type ExportSftSummary,
  exportCritical,
  exportRl,
  exportSft,
  parseCriticalFormat,
  parseRlFormat,
  parseSftFormat,
  RL_FORMATS,
  SFT_FORMATS,
} from '../../data/index.ts';
import { fileOption, intOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';

// Formats stay plain strings here: the data module names the allowed ones in its own error.
const SftOptions = z.object({
  run: z.array(z.string().min(1)).min(1, 'give at least one --run DIR'),
  format: z.string().min(1),
  out: z.string().min(1),
  imagePaths: z.enum(['relative', 'absolute']).optional(),
  promptTokens: intOption(64, 32_768).optional(),
  relabeled: z.boolean().default(false),
  progress: z.boolean().default(false),
  json: z.boolean().default(false),
});

const RlOptions = z.object({
  run: z.array(z.string().min(1)).min(1, 'give at least one --run DIR'),
  critical: fileOption(),
  format: z.string().min(1),
  out: fileOption(),
  promptTokens: intOption(64, 32_768).optional(),
  json: z.boolean().default(false),
});

const CriticalOptions = RlOptions.extend({ confirmedOnly: z.boolean().default(false) });

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function printSft(s: ExportSftSummary, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `exported ${s.examples} ${s.format} examples from ${s.trajectories} ${s.relabeled ? "relabelled rollouts (the expert's actions)" : 'verified successes'} to ${s.file}\n` +
      `  images: ${s.images}${s.missingImages ? ` (${s.missingImages} steps lacked their screenshot)` : ''}\n` +
      `  steps dropped because note text survived scrubbing: ${s.droppedNoteLeak}\n` +
      (s.relabeled ? `  states where the expert would give up, left out: ${s.droppedGiveUp}\n` : ''),
  );
}

function printRl(s: ExportRlSummary, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `exported ${s.rows} critical states as ${s.format} rows to ${s.out}\n` +
      `  images: ${s.images}; history from stored trajectories: ${s.withTrajectoryHistory}/${s.rows}; dropped for note text: ${s.droppedNoteLeak}\n`,
  );
}

/** Registers `rmsweb export sft`, `rmsweb export rl` and `rmsweb export critical`. */
export function registerExport(program: Command): void {
  const exp = program
    .command('export')
    .description(
      'Export SFT data (TRL, ms-swift, LLaMA-Factory, OpenAI), RL data (verl) or failure-attribution labels (Who&When)',
    )
    // Usage errors throw (main maps them to exit 2) instead of commander exiting 1; subcommands
    // created below inherit this.
    .exitOverride();

  exp
    .command('sft')
    .description(
      'One supervised example per step of verified successes (or, with --relabeled, of relabelled rollouts), notes stripped, with images beside the JSONL',
    )
    .requiredOption('--run <dir>', 'run folder (repeatable)', collect)
    .requiredOption('--format <format>', `one of ${SFT_FORMATS.join(', ')}`)
    .requiredOption('--out <dir>', 'output folder')
    .option(
      '--image-paths <mode>',
      'relative | absolute (default: relative for llamafactory, absolute otherwise)',
    )
    .option(
      '--prompt-tokens <n>',
      `format lm only: the compact observation's budget in estimated tokens (default ${DEFAULT_PROMPT_TOKENS}; src/agent/lm-prompt.ts)`,
    )
    .option(
      '--relabeled',
      "format lm only, DAgger: instead of the successes, every step of the runs' relabelled rollouts (`rmsweb rollout --relabel heuristic --notes-from COLLECTION`), the state the agent reached with the expert's action as the completion (states where the expert would give up are left out)",
    )
    .option('--progress', 'show progress even when stderr is not a terminal')
    .option('--json', 'print the summary as JSON')
    .action((raw) => {
      const o = parseOptions(SftOptions, raw, 'export sft');
      const format = parseSftFormat(o.format);
      if (o.promptTokens !== undefined && format !== 'lm')
        throw new InputError('--prompt-tokens applies to --format lm only', { field: 'prompt-tokens' });
      const bar = createProgress('export sft', 0, {
        force: o.progress,
        quiet: !o.progress && !process.stderr.isTTY,
      });
      try {
        const summary = exportSft({
          runs: o.run,
          format,
          out: o.out,
          imagePaths: o.imagePaths,
          promptTokens: o.promptTokens,
          relabeled: o.relabeled,
          onProgress: (done, total) => {
            bar.setTotal(total);
            bar.update(done);
          },
        });
        bar.stop();
        printSft(summary, o.json);
      } catch (e) {
        bar.stop();
        throw e;
      }
    });

  exp
    .command('rl')
    .description(
      'Critical states (JSONL from `rmsweb mine`) as verl parquet rows, JSONL, or lm JSONL (the plain prompt of a\n' +
        'language-model student without a chat template, as `export sft --format lm` and `--agent lm:...` render it)',
    )
    .requiredOption(
      '--run <dir>',
      'run folder holding the trajectories and screenshots (repeatable; a demo or ablate folder is searched with its sub-runs)',
      collect,
    )
    .requiredOption('--critical <file>', 'critical states, one JSON object per line')
    .requiredOption('--format <format>', `one of ${RL_FORMATS.join(', ')}`)
    .requiredOption('--out <file>', 'output file (.parquet for verl, .jsonl for jsonl and lm)')
    .option(
      '--prompt-tokens <n>',
      `format lm only: the compact observation's budget in estimated tokens (default ${DEFAULT_PROMPT_TOKENS}; the student's, as in export sft)`,
    )
    .option('--json', 'print the summary as JSON')
    .action((raw) => {
      const o = parseOptions(RlOptions, raw, 'export rl');
      const format = parseRlFormat(o.format);
      if (o.promptTokens !== undefined && format !== 'lm')
        throw new InputError('--prompt-tokens applies to --format lm only', { field: 'prompt-tokens' });
      const summary = exportRl({
        runs: o.run,
        critical: o.critical,
        format,
        out: o.out,
        promptTokens: o.promptTokens,
      });
      printRl(summary, o.json);
    });

  exp
    .command('critical')
    .description(
      'Critical states as failure-attribution records (Who&When shape: the failed run as history, the responsible\n' +
        'agent, the decisive step and the reason), one JSON object per line; notes are never exported',
    )
    .requiredOption('--run <dir>', 'run folder holding the failure trajectories (repeatable)', collect)
    .requiredOption('--critical <file>', 'critical states, one JSON object per line (`rmsweb mine --out`)')
    .requiredOption('--format <format>', `one of ${CRITICAL_FORMATS.join(', ')}`)
    .requiredOption('--out <file>', 'output JSONL file')
    .option('--confirmed-only', 'only states the causal check confirmed (`rmsweb mine --verify`)')
    .option('--json', 'print the summary as JSON')
    .action((raw) => {
      const o = parseOptions(CriticalOptions, { ...raw, run: raw.run ?? [] }, 'export critical');
      const s = exportCritical({
        runs: o.run,
        critical: o.critical,
        format: parseCriticalFormat(o.format),
        out: o.out,
        confirmedOnly: o.confirmedOnly,
      });
      if (o.json) {
        process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        `exported ${s.rows} of ${s.states} critical states as ${s.format} records to ${s.out}` +
          `${s.skippedUnconfirmed ? `; ${s.skippedUnconfirmed} not confirmed` : ''}` +
          `${s.missingRuns ? `; ${s.missingRuns} whose failure run is not in --run` : ''}\n`,
      );
    });
}
