import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
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
import { checkOutFolder, PipelineContext, pipelineSettings } from '../pipeline/context.ts';
import { runDemo } from '../pipeline/demo.ts';
import { runLmDemo } from '../pipeline/lm-demo.ts';
import { checkLmSettings } from '../pipeline/lm-stages.ts';
import { DEMO_PRESET_NAMES, LM_FINETUNES, LM_INFERENCE, type PipelinePreset } from '../pipeline/presets.ts';
import { PipelineInterrupted } from '../pipeline/stage.ts';

const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);

const Options = z.object({
  preset: z.enum(DEMO_PRESET_NAMES).default('quick'),
  model: z.string().min(1).optional(),
  lmFinetune: z.enum(LM_FINETUNES).optional(),
  lmSeeds: z.coerce.number().int().min(1).max(10).optional(),
  lmInference: z.enum(LM_INFERENCE).optional(),
  lmAblation: z.boolean().optional(),
  lmDagger: z.coerce.number().int().min(0).max(10).optional(),
  results: z.string().min(1).optional(),
  out: z.string().min(1).default('runs/demo'),
  seed: seedOption.default(0),
  ...PipelineWorkersOption,
  ...WorldOptions,
  ...ProgressOptions,
});

/** `rmsweb demo`: the whole pipeline on the offline world, ending with the results table and a report. */
export function registerDemo(program: Command): void {
  const cmd = program
    .command('demo')
    .description(
      'The whole pipeline on the offline world with embedded defaults: synthesize tasks, collect with reflection, ' +
        "export SFT data, train the student (SFT, then the preset's relabelling rounds; the full preset picks the one " +
        'RL starts from on 120 train tasks outside the collection), roll it out, mine critical states, Salvage-DS, ' +
        'evaluate the teacher and the students on held-out test tasks, and write an HTML/markdown/JSON report. ' +
        'Rerun to resume.',
    )
    .option(
      '--preset <name>',
      'tiny (CI smoke, a few minutes) | quick (the main job: mail and recipes, 13 min on 2 quiet cores, 18 with another job running) | full (the 1,000-task recipe over all sites; hours, resumable) | lm (a language model, Gemma 3 270M, through the recipe on the quick collection; on 2 cores ~4.5 h for the first seed, ~3 h more for its default 3 DAgger rounds, ~4 h a further seed; resumable) | lm-tiny (the lm stages on a handful of tasks, for tests with --model <tiny LM>)',
      'quick',
    )
    .option('--out <dir>', 'run folder of the whole pipeline', 'runs/demo')
    .option('--seed <n>', 'seed of task sampling, training and RL', '0')
    .option(
      '--model <path>',
      'lm presets: the base LM, a Hugging Face folder or .gguf file (default: the local Gemma 3 270M of scripts/get-local-model.sh)',
    )
    .option(
      '--lm-finetune <mode>',
      'lm presets: lora | full | auto (default lora for lm, chosen on validation in results/lm-sft-tuning.md; auto: choose again on a validation split of train tasks, ~15-23 min)',
    )
    .option(
      '--lm-seeds <n>',
      'lm presets: training seeds of SFT and Salvage-DS, each evaluated (default 1; may be raised on a finished folder: only the new seeds run)',
    )
    .option(
      '--lm-ablation',
      'lm presets: also train and evaluate the RL ablation rows from the first SFT student (Salvage-DS without salvage; GRPO with the exact-match reward), each with its paired CI against Salvage-DS (may be added on a finished folder)',
    )
    .option(
      '--lm-dagger <rounds>',
      "lm presets: DAgger rounds of the first SFT student, evaluated as the row 'SFT + relabelling' (default 3 for lm; 0 skips them): the heuristic teacher labels every state the student reaches on train tasks, and a LoRA over the SFT student learns the labels of all rounds so far (~1 h a round on 2 cores)",
    )
    .option(
      '--results <dir>',
      'lm presets: also write lm-student.md and lm-student.json here (e.g. results/), machine paths named by role; the run folder always has them',
    )
    .option(
      '--lm-inference <route>',
      'lm presets: hf (the Python serve process, default) | llama (serve-model with a GGUF LoRA adapter)',
    );
  addPipelineWorkersOption(cmd);
  addWorldOptions(cmd, 'reuse a world on this port (default: start one in-process on a free port)');
  addProgressOptions(cmd).action(async (raw) => {
    const o = parseOptions(Options, raw, 'demo');
    const settings = pipelineSettings('demo', o);
    applyLmOptions(settings.preset, o);
    if (settings.preset.lm) checkLmSettings(settings.preset.lm);
    // An --out folder of another run is refused before anything is written into it.
    checkOutFolder(settings);
    const sig = abortOnSigint('demo');
    const ctx = new PipelineContext(settings, sig.signal);
    const preset = ctx.preset;
    try {
      ctx.checkSettings();
      if (preset.lm) {
        await printLmDemo(ctx, o.results);
        return;
      }
      const r = await runDemo(ctx);
      const tasks = r.evals[0]?.summary.tasks ?? 0;
      const c = r.base.collect.stats.overall;
      const lines = [
        '',
        r.lead,
        '',
        `rmsweb demo --preset ${preset.name}: pass@1 on ${tasks} held-out world test tasks${preset.sites ? ` (sites ${preset.sites.join(', ')} only)` : ''}, ${preset.eval.runs} run(s)`,
        '',
        r.table,
        '',
        `collection with reflection (heuristic teacher, rules reflector): ${c.tasksSolved}/${c.tasks} train tasks solved (${(100 * c.taskSuccessRate).toFixed(1)}%) in ${c.attempts} attempts`,
        `critical states mined: ${r.base.mine?.criticalStates ?? 0}` +
          (r.rl
            ? `; Salvage-DS: ${r.rl.steps} steps, ${r.rl.rolloutsSampled} rollouts sampled, ${r.rl.wallSeconds.toFixed(1)} s`
            : ' (no RL student)'),
        r.steps
          ? `greedy step accuracy on the teacher's ${r.steps.heldOutSteps} held-out test steps: SFT ${pct(r.steps.sft.heldOut)}` +
            (r.steps.rl
              ? `, Salvage-DS ${pct(r.steps.rl.heldOut)}; on the mined states: SFT ${pct(r.steps.sft.critical)}, Salvage-DS ${pct(r.steps.rl.critical)}`
              : '')
          : '',
        `wall time: ${Object.entries(r.timings)
          .map(([k, v]) => `${k} ${v.toFixed(0)}s`)
          .join(', ')}; this invocation ${r.invocationSeconds.toFixed(0)}s`,
        r.skipped.length
          ? `resumed: ${r.skipped.length} stage(s) finished earlier were skipped (${r.skipped.join(', ')})`
          : '',
        `report: ${r.report.html}`,
        '',
      ];
      process.stdout.write(lines.filter((l, i) => l !== '' || i === 0 || lines[i - 1] !== '').join('\n'));
    } catch (e) {
      if (e instanceof PipelineInterrupted) {
        process.stderr.write(`demo: ${e.message}\n`);
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

/**
 * The lm options on an lm preset (they are part of the preset, so resuming a folder with other
 * values is refused like any other preset change); refused on the other presets.
 */
function applyLmOptions(preset: PipelinePreset, o: z.infer<typeof Options>): void {
  const given = (
    [
      ['--model', o.model],
      ['--lm-finetune', o.lmFinetune],
      ['--lm-seeds', o.lmSeeds],
      ['--lm-inference', o.lmInference],
      ['--lm-ablation', o.lmAblation],
      ['--lm-dagger', o.lmDagger],
      ['--results', o.results],
    ] as const
  ).filter(([, v]) => v !== undefined);
  if (!preset.lm) {
    if (given.length)
      throw new InputError(`${given[0]![0]} applies to the lm presets only (--preset lm or lm-tiny)`, {
        field: given[0]![0],
      });
    return;
  }
  if (o.model) preset.lm.model = resolve(o.model);
  if (o.lmFinetune) preset.lm.finetune = o.lmFinetune;
  if (o.lmSeeds) preset.lm.seeds = o.lmSeeds;
  if (o.lmInference) preset.lm.inference = o.lmInference;
  if (o.lmAblation) preset.lm.ablation = true;
  if (o.lmDagger !== undefined) preset.lm.dagger.rounds = o.lmDagger;
}

async function printLmDemo(ctx: PipelineContext, resultsDir: string | undefined): Promise<void> {
  const r = await runLmDemo(ctx, { resultsDir });
  const preset = ctx.preset;
  const c = r.collect.stats.overall;
  const lines = [
    '',
    r.lead,
    '',
    `rmsweb demo --preset ${preset.name}: pass@1 on ${r.evals[0]?.summary.tasks ?? 0} held-out world test tasks${preset.sites ? ` (sites ${preset.sites.join(', ')} only)` : ''}, ${preset.eval.runs} run(s)`,
    '',
    r.table,
    '',
    'pass@1 over training seeds, paired by test task against Salvage-DS (95% bootstrap CI):',
    '',
    r.lmTable,
    '',
    `collection with reflection (heuristic teacher, rules reflector): ${c.tasksSolved}/${c.tasks} train tasks solved in ${c.attempts} attempts`,
    `fine-tuning: ${r.choice.chosen} (${r.choice.how === 'auto' ? `chosen on ${r.choice.valSteps} steps of ${r.choice.valTasks.length} held-out train tasks: ${r.choice.trials.map((t) => `${t.mode} ${(100 * t.equivalent).toFixed(1)}%`).join(', ')}` : 'fixed'})`,
    `critical states mined: ${r.mine.criticalStates}${r.rl.length ? `; Salvage-DS: ${r.rl.map((x) => `${x.steps} steps, ${x.wallSeconds.toFixed(0)} s`).join('; ')}` : ' (no RL student)'}`,
    `wall time: ${Object.entries(r.timings)
      .map(([k, v]) => `${k} ${v.toFixed(0)}s`)
      .join(', ')}; this invocation ${r.invocationSeconds.toFixed(0)}s`,
    r.skipped.length
      ? `resumed: ${r.skipped.length} stage(s) finished earlier were skipped (${r.skipped.join(', ')})`
      : '',
    `report: ${r.report.html}`,
    `results: ${r.results.markdown}${r.results.results ? `, ${r.results.results.markdown}` : ''}`,
    '',
  ];
  process.stdout.write(lines.filter((l, i) => l !== '' || i === 0 || lines[i - 1] !== '').join('\n'));
}
