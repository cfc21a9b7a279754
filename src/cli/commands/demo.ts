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
import { checkOutFolder, PipelineContext, pipelineSettings } from '../pipeline/context.ts';
import { runDemo } from '../pipeline/demo.ts';
import { PRESET_NAMES } from '../pipeline/presets.ts';
import { PipelineInterrupted } from '../pipeline/stage.ts';

const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);

const Options = z.object({
  preset: z.enum(PRESET_NAMES).default('quick'),
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
      'tiny (CI smoke, a few minutes) | quick (the main job: mail and recipes, 13 min on 2 quiet cores, 18 with another job running) | full (the 1,000-task recipe over all sites; hours, resumable)',
      'quick',
    )
    .option('--out <dir>', 'run folder of the whole pipeline', 'runs/demo')
    .option('--seed <n>', 'seed of task sampling, training and RL', '0');
  addPipelineWorkersOption(cmd);
  addWorldOptions(cmd, 'reuse a world on this port (default: start one in-process on a free port)');
  addProgressOptions(cmd).action(async (raw) => {
    const o = parseOptions(Options, raw, 'demo');
    const settings = pipelineSettings('demo', o);
    // An --out folder of another run is refused before anything is written into it.
    checkOutFolder(settings);
    const sig = abortOnSigint('demo');
    const ctx = new PipelineContext(settings, sig.signal);
    const preset = ctx.preset;
    try {
      ctx.checkSettings();
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
