import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/index.ts';
import {
  parseTrainerError,
  TrainerEnvError,
  trainerEnv,
  trainerPython,
} from '../../models/trainer-python.ts';
import { fileOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';

const Options = z.object({
  model: z.string().min(1, 'give the checkpoint folder of a --lora run'),
  out: fileOption().optional(),
  base: fileOption().optional(),
  json: z.boolean().default(false),
});

/** What `python -m rmsweb_trainer export-gguf` prints (trainer/rmsweb_trainer/gguf_adapter.py). */
const Summary = z.object({
  out: z.string(),
  adapter: z.string(),
  base: z.string().nullable(),
  architecture: z.string(),
  alpha: z.number(),
  ranks: z.array(z.number()),
  weights: z.number(),
  bytes: z.number(),
});
export type ExportGgufSummary = z.infer<typeof Summary>;

/** The file `rmsweb export gguf` writes when no --out is given: beside the checkpoint's weights. */
export const DEFAULT_ADAPTER_GGUF = 'adapter.gguf';

/**
 * Writes the LoRA adapter a `--lora` run kept in `model`/adapter/ as a llama.cpp adapter GGUF, by
 * the trainer's `export-gguf` (the gguf package lives in its venv). The base GGUF defaults to the
 * one the run recorded. Errors of the trainer come back as InputErrors naming the option.
 */
export function exportGguf(o: { model: string; out?: string; base?: string }): ExportGgufSummary {
  if (!existsSync(o.model) || !statSync(o.model).isDirectory())
    throw new InputError('no such folder (the checkpoint of a --lora run)', {
      file: o.model,
      field: '--model',
    });
  const out = o.out ?? join(o.model, DEFAULT_ADAPTER_GGUF);
  const python = trainerPython();
  if (!process.env.RMSWEB_PYTHON && !existsSync(python))
    throw new TrainerEnvError(
      `the trainer's Python environment is missing (${python}); create it with: bash trainer/setup.sh`,
    );
  const args = ['-m', 'rmsweb_trainer', 'export-gguf', '--adapter', resolve(o.model), '--out', resolve(out)];
  if (o.base) args.push('--base', resolve(o.base));
  const r = spawnSync(python, args, { env: trainerEnv(), encoding: 'utf8', timeout: 600_000 });
  if (r.error) throw new TrainerEnvError(`cannot run ${python}: ${r.error.message}`);
  if (r.status === 2) {
    const { message, field } = parseTrainerError(r.stderr);
    // the trainer's --adapter is this command's --model
    throw new InputError(message, { field: field === '--adapter' || !field ? '--model' : field });
  }
  if (r.status !== 0)
    throw new Error(`export-gguf failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-800)}`);
  const parsed = Summary.safeParse(JSON.parse(r.stdout.trim().split('\n').at(-1) ?? 'null'));
  if (!parsed.success) throw new Error(`export-gguf printed an unexpected summary: ${r.stdout.slice(-400)}`);
  return parsed.data;
}

/**
 * `rmsweb export gguf`: registered under the `export` command that export.ts creates (index.ts
 * calls it after registerExport), kept in its own file since it runs the Python trainer.
 */
export function registerExportGguf(program: Command): void {
  const exp = program.commands.find((c) => c.name() === 'export');
  if (!exp) throw new Error('registerExportGguf: the export command must be registered first');
  exp
    .command('gguf')
    .description(
      "Write a --lora run's adapter (kept in DIR/adapter/ by train sft / rl --backend torch\n" +
        '--lora) as a llama.cpp LoRA adapter GGUF, served over the base GGUF the run started from:\n' +
        '  rmsweb serve-model --gguf BASE.gguf --lora DIR/adapter.gguf\n' +
        'The base is the GGUF the run recorded (or --base); each adapted weight is checked\n' +
        'against it. Gemma 3 only (other architectures may store projections permuted).',
    )
    .option('--model <dir>', 'the checkpoint folder of a --lora run (or its adapter/ folder)')
    .option('--out <file>', `the adapter GGUF to write (default DIR/${DEFAULT_ADAPTER_GGUF})`)
    .option('--base <file>', 'the base GGUF (default: the one the run recorded)')
    .option('--json', 'print the summary as JSON')
    .action((raw) => {
      const o = parseOptions(Options, { model: '', ...raw }, 'export gguf');
      const s = exportGguf(o);
      if (o.json) {
        process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        `wrote ${s.out}: ${s.weights} LoRA weights (rank ${s.ranks.join('/')}, alpha ${s.alpha}) for ${s.architecture}, ` +
          `${(s.bytes / 1024 / 1024).toFixed(1)} MiB\n` +
          (s.base
            ? `  serve it: rmsweb serve-model --gguf ${s.base} --lora ${s.out}\n`
            : `  serve it: rmsweb serve-model --gguf BASE.gguf --lora ${s.out} (BASE: the model the run trained)\n`),
      );
    });
}
