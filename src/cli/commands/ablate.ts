import type { Command } from 'commander';
import { z } from 'zod';
import {
  addPipelineWorkersOption,
  addProgressOptions,
  addWorldOptions,
  PipelineWorkersOption,
  ProgressOptions,
  seedOption,
  WorldOptions,
} from '../options.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { runAblation } from '../pipeline/ablate.ts';
import { stepTable } from '../pipeline/ablation-table.ts';
import { PipelineContext } from '../pipeline/context.ts';
import { presetByName } from '../pipeline/presets.ts';
import { PipelineInterrupted } from '../pipeline/stage.ts';

const Options = z.object({
  preset: z.enum(['quick', 'full']).default('quick'),
  out: z.string().min(1),
  from: z.string().min(1).optional(),
  seed: seedOption.default(0),
  ...PipelineWorkersOption,
  ...WorldOptions,
  ...ProgressOptions,
});

/** `rmsweb ablate`: the paper's ablation table on the offline world. */
export function registerAblate(program: Command): void {
  const cmd = program
    .command('ablate')
    .description(
      'The ablation table on the offline world, each row pass@1 over the preset’s runs on held-out world test tasks,\n' +
        'with mean steps on solved tasks and RL cost: SFT; + Salvage-DS on mined states; the same RL on the full corpus;\n' +
        'Salvage-DS without salvage; DAPO; GRPO with the exact-match reward; SFT on data collected without reflection.\n' +
        'Writes ablation.md and ablation.json into --out. Rerun to resume.',
    )
    .option('--preset <name>', 'quick | full', 'quick')
    .requiredOption('--out <dir>', 'folder for the ablation runs, ablation.md and ablation.json')
    .option(
      '--from <dir>',
      'reuse a demo run folder’s collection, SFT checkpoint and mined states (else run them here)',
    )
    .option('--seed <n>', 'seed of task sampling, training and RL', '0');
  addPipelineWorkersOption(cmd);
  addWorldOptions(cmd, 'reuse a world on this port (default: start one in-process on a free port)');
  addProgressOptions(cmd).action(async (raw) => {
    const o = parseOptions(Options, raw, 'ablate');
    const preset = presetByName(o.preset);
    if (o.workers) preset.workers = o.workers;
    const sig = abortOnSigint('ablate');
    const ctx = new PipelineContext(
      {
        command: 'ablate',
        out: o.out,
        preset,
        seed: o.seed,
        worldSeed: o.worldSeed,
        port: o.port,
        forceProgress: o.progress,
        quiet: o.quiet,
      },
      sig.signal,
    );
    try {
      ctx.checkSettings();
      const r = await runAblation(ctx, { from: o.from });
      const total = Object.values(r.timings).reduce((a, b) => a + b, 0);
      process.stdout.write(
        `\n${r.table}\n\n${stepTable(r.rows)}\n\n` +
          r.targets
            .map(
              (t) =>
                `${t.met === null ? 'not measured' : t.met ? 'MET    ' : 'NOT MET'}  ${t.target} (${t.detail})\n`,
            )
            .join('') +
          `\nwall time (sum of stages): ${total.toFixed(0)} s\nwrote ${r.files.markdown}, ${r.files.json} and ${r.files.report}\n`,
      );
    } catch (e) {
      if (e instanceof PipelineInterrupted) {
        process.stderr.write(`ablate: ${e.message}\n`);
        process.exitCode = 130;
        return;
      }
      throw e;
    } finally {
      sig.dispose();
      await ctx.close();
    }
  });
}
