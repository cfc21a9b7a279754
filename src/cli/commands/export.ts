import type { Command } from 'commander';
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
import { createProgress } from '../progress.ts';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function printSft(s: ExportSftSummary, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `exported ${s.examples} ${s.format} examples from ${s.trajectories} verified successes to ${s.file}\n` +
      `  images: ${s.images}${s.missingImages ? ` (${s.missingImages} steps lacked their screenshot)` : ''}\n` +
      `  steps dropped because note text survived scrubbing: ${s.droppedNoteLeak}\n`,
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
      'One supervised example per step of verified successes, notes stripped, with images beside the JSONL',
    )
    .requiredOption('--run <dir>', 'run folder (repeatable)', collect)
    .requiredOption('--format <format>', `one of ${SFT_FORMATS.join(', ')}`)
    .requiredOption('--out <dir>', 'output folder')
    .option(
      '--image-paths <mode>',
      'relative | absolute (default: relative for llamafactory, absolute otherwise)',
    )
    .option('--progress', 'show progress even when stderr is not a terminal')
    .option('--json', 'print the summary as JSON')
    .action(
      (o: {
        run: string[];
        format: string;
        out: string;
        imagePaths?: string;
        progress?: boolean;
        json?: boolean;
      }) => {
        const format = parseSftFormat(o.format);
        if (o.imagePaths !== undefined && o.imagePaths !== 'relative' && o.imagePaths !== 'absolute') {
          throw new InputError(`--image-paths must be relative or absolute, got "${o.imagePaths}"`, {
            field: 'image-paths',
          });
        }
        const bar = createProgress('export sft', 0, {
          force: o.progress,
          quiet: !o.progress && !process.stderr.isTTY,
        });
        try {
          const summary = exportSft({
            runs: o.run,
            format,
            out: o.out,
            imagePaths: o.imagePaths as 'relative' | 'absolute' | undefined,
            onProgress: (done, total) => {
              bar.setTotal(total);
              bar.update(done);
            },
          });
          bar.stop();
          printSft(summary, o.json ?? false);
        } catch (e) {
          bar.stop();
          throw e;
        }
      },
    );

  exp
    .command('rl')
    .description('Critical states (JSONL from `rmsweb mine`) as verl parquet rows or JSONL')
    .requiredOption(
      '--run <dir>',
      'run folder holding the trajectories and screenshots (repeatable)',
      collect,
    )
    .requiredOption('--critical <file>', 'critical states, one JSON object per line')
    .requiredOption('--format <format>', `one of ${RL_FORMATS.join(', ')}`)
    .requiredOption('--out <file>', 'output file (.parquet for verl, .jsonl for jsonl)')
    .option('--json', 'print the summary as JSON')
    .action((o: { run: string[]; critical: string; format: string; out: string; json?: boolean }) => {
      const summary = exportRl({
        runs: o.run,
        critical: o.critical,
        format: parseRlFormat(o.format),
        out: o.out,
      });
      printRl(summary, o.json ?? false);
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
    .action(
      (o: {
        run: string[];
        critical: string;
        format: string;
        out: string;
        confirmedOnly?: boolean;
        json?: boolean;
      }) => {
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
      },
    );
}
