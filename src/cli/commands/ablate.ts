import type { Command } from 'commander';
import { z } from 'zod';
import {
  addPipelineWorkersOption,
  addProgressOptions,
  addWorldOptions,
  fileOption,
  intOption,
  PipelineWorkersOption,
  ProgressOptions,
  seedOption,
  WorldOptions,
} from '../options.ts';
import { abortOnSigint, parseOptions } from '../parse-options.ts';
import { type AblationOptions, checkAblationInputs, DEFAULT_SEEDS, runAblation } from '../pipeline/ablate.ts';
import { miningLines, stepTable, targetVerdict } from '../pipeline/ablation-table.ts';
import { PipelineContext, pipelineSettings } from '../pipeline/context.ts';
import { PRESET_NAMES } from '../pipeline/presets.ts';
import { PipelineInterrupted } from '../pipeline/stage.ts';

const Options = z.object({
  preset: z.enum(PRESET_NAMES).default('quick'),
  out: z.string().min(1),
  from: z.string().min(1).optional(),
  seed: seedOption.default(0),
  seeds: intOption(1, 100).default(DEFAULT_SEEDS),
  results: z.string().min(1).optional(),
  ledger: fileOption('give the ledger file').optional(),
  snapshot: z.string().min(1).optional(),
  ...PipelineWorkersOption,
  ...WorldOptions,
  ...ProgressOptions,
});

/** `rmsweb ablate`: the paper's ablation table on the offline world. */
export function registerAblate(program: Command): void {
  const cmd = program
    .command('ablate')
    .description(
      'The ablation table on the offline world: SFT; + Salvage-DS on mined states; Salvage-DS on confirmed states ' +
        '(those mine --verify confirmed); the same RL on the full corpus; ' +
        'Salvage-DS without salvage; DAPO; GRPO with the exact-match reward; SFT on data collected without reflection. ' +
        'The reflection rows compare plain SFT students on data collected with and without reflection. ' +
        'The RL rows start from the base’s starting student (on the full preset the one of SFT and its relabelling rounds that solved most held-out train tasks). ' +
        'When that student had relabelling rounds, the Salvage-DS run is also made from each seed’s plain SFT student and reported against it. ' +
        'Each row is trained with --seeds seeds (the RL seeds; the SFT seeds of the reflection students) and evaluated ' +
        'on the same held-out world test tasks over the preset’s runs: pass@1 mean ± sd over seeds, the paired bootstrap ' +
        '95% CI of its difference to Salvage-DS (paired by test task), mean steps on solved tasks and RL cost. Also the ' +
        'mined states per label and source, reflection paired (teacher and students), and the targets as MET / NOT MET. ' +
        'Writes ablation.md and ablation.json (command, commit, seeds, wall time) into --out; each (row, seed) is its own ' +
        'stage, so a rerun resumes and a rerun with more --seeds trains only the new ones; until every row is in, ' +
        'ablation.partial.md holds the rows measured so far. Every finished (row, seed) also goes to a small ledger ' +
        '(ablation-<preset>.ledger.json beside --results, else in --out) keyed to the base by hash; commit it with the ' +
        'results: a rerun on the same base skips every seed it holds, and a ledger of another base is refused. With --from, a ' +
        'snapshot of the base is kept outside the repo (see --snapshot): first with the demo’s run stores (tens of MB), ' +
        'then, once the stages that read them have run (verification, plain SFT retrains, full-corpus RL), only what the ' +
        'remaining seeds read (a few MB). When the --from folder is gone, the snapshot is laid out there again and the ' +
        'ablation resumes on the same base; without the folder or its snapshot, the run is refused, saying what it needs. ' +
        'Every input (ledger, --from, snapshot, --out) is checked before anything is written.',
    )
    .option(
      '--preset <name>',
      `${PRESET_NAMES.join(' | ')} (tiny is a smoke run: its numbers mean nothing)`,
      'quick',
    )
    .requiredOption('--out <dir>', 'folder for the ablation runs, ablation.md and ablation.json')
    .option(
      '--from <dir>',
      'reuse a demo run folder’s collection, student and mined states (else run them here)',
    )
    .option('--seed <n>', 'seed of task sampling and training; the training seeds are seed, seed+1, ...', '0')
    .option('--seeds <k>', 'training seeds per row (1-100)', String(DEFAULT_SEEDS))
    .option(
      '--results <dir>',
      'also write ablation-<preset>.md, ablation-<preset>.json and the ledger of finished seeds here (e.g. results/)',
    )
    .option(
      '--ledger <file>',
      'the ledger of finished seeds (default: ablation-<preset>.ledger.json in --results, else ablation.ledger.json in --out)',
    )
    .option(
      '--snapshot <dir>',
      'the base snapshot of an ablation --from a demo (default: beside the ledger when the ledger is outside any git work tree, ' +
        'else $XDG_CACHE_HOME/rmsweb/snapshots/<preset>-<base hash>, ~/.cache by default: never in the repo)',
    );
  addPipelineWorkersOption(cmd);
  addWorldOptions(cmd, 'reuse a world on this port (default: start one in-process on a free port)');
  addProgressOptions(cmd).action(async (raw) => {
    const o = parseOptions(Options, raw, 'ablate');
    const opts: AblationOptions = {
      from: o.from,
      seeds: o.seeds,
      resultsDir: o.results,
      ledger: o.ledger,
      snapshot: o.snapshot,
    };
    const settings = pipelineSettings('ablate', o);
    // Every input is read and checked before the run folder exists: a refused run leaves none.
    checkAblationInputs(settings, opts);
    const sig = abortOnSigint('ablate');
    const ctx = new PipelineContext(settings, sig.signal);
    try {
      ctx.checkSettings();
      const r = await runAblation(ctx, opts);
      const total = Object.values(r.timings).reduce((a, b) => a + b, 0);
      const steps = stepTable(r.rows);
      process.stdout.write(
        `\n${r.table}\n\n${steps ? `${steps}\n\n` : ''}` +
          r.targets.map((t) => `${targetVerdict(t).padEnd(12)} ${t.target} (${t.detail})\n`).join('') +
          (r.mining ? `\n${miningLines(r.mining).join('\n')}\n` : '') +
          (r.reflection.length ? `\n${r.reflection.join('\n')}\n` : '') +
          `\nwall time: ${total.toFixed(0)} s over all stages, ${r.invocationSeconds.toFixed(0)} s this invocation\n` +
          `wrote ${r.files.markdown}, ${r.files.json} and ${r.files.report}\n` +
          (r.files.results ? `wrote ${r.files.results.markdown} and ${r.files.results.json}\n` : ''),
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
