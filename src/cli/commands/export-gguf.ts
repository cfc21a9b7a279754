import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/** Precisions a dequantized base can be written in (f32: exactly the weights torch trained on). */
export const BASE_TYPES = ['f32', 'f16'] as const;

const Options = z.object({
  model: z.string().min(1, 'give the checkpoint folder of a --lora run'),
  out: fileOption().optional(),
  base: fileOption().optional(),
  dequantizeBase: z.enum(BASE_TYPES).optional(),
  baseOut: fileOption().optional(),
  json: z.boolean().default(false),
});

/** What `python -m rmsweb_trainer export-gguf` prints (trainer/rmsweb_trainer/gguf_adapter.py). */
const Summary = z.object({
  out: z.string(),
  adapter: z.string(),
  base: z.string().nullable(),
  /** LoRA checkpoints the run started from, the earliest first: their adapters are served first. */
  under: z.array(z.string()).default([]),
  architecture: z.string(),
  alpha: z.number(),
  ranks: z.array(z.number()),
  weights: z.number(),
  bytes: z.number(),
});
export type ExportGgufSummary = z.infer<typeof Summary>;

/** The file `rmsweb export gguf` writes when no --out is given: beside the checkpoint's weights. */
export const DEFAULT_ADAPTER_GGUF = 'adapter.gguf';

/** What `python -m rmsweb_trainer dequantize-gguf` prints (trainer/rmsweb_trainer/gguf_base.py). */
const BaseSummary = z.object({
  out: z.string(),
  gguf: z.string(),
  type: z.enum(['f32', 'f16']),
  tensors: z.number(),
  bytes: z.number(),
});
export type DequantizedBaseSummary = z.infer<typeof BaseSummary>;

/**
 * Runs `python -m rmsweb_trainer ARGS` and reads its one-line JSON summary. Exit 2 (bad input)
 * becomes an InputError naming the option (the trainer's `renames` mapped to this command's).
 */
function runTrainer<T>(args: string[], schema: z.ZodType<T>, renames: Record<string, string>): T {
  const python = trainerPython();
  if (!process.env.RMSWEB_PYTHON && !existsSync(python))
    throw new TrainerEnvError(
      `the trainer's Python environment is missing (${python}); create it with: bash trainer/setup.sh`,
    );
  const r = spawnSync(python, ['-m', 'rmsweb_trainer', ...args], {
    env: trainerEnv(),
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.error) throw new TrainerEnvError(`cannot run ${python}: ${r.error.message}`);
  if (r.status === 2) {
    const { message, field } = parseTrainerError(r.stderr);
    throw new InputError(message, { field: renames[field ?? ''] ?? field ?? renames[''] });
  }
  if (r.status !== 0)
    throw new Error(`${args[0]} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-800)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    parsed = undefined;
  }
  const s = schema.safeParse(parsed);
  if (!s.success) throw new Error(`${args[0]} printed an unexpected summary: ${r.stdout.slice(-400)}`);
  return s.data;
}

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
  const args = ['export-gguf', '--adapter', resolve(o.model), '--out', resolve(out)];
  if (o.base) args.push('--base', resolve(o.base));
  // the trainer's --adapter is this command's --model
  return runTrainer(args, Summary, { '--adapter': '--model', '': '--model' });
}

/**
 * Writes `gguf` (a quantized base) with every tensor dequantized, by the trainer's
 * `dequantize-gguf`: the base to serve a LoRA student over, since llama.cpp's quantized kernels
 * also quantize the activations and so part from what torch computed in training.
 */
export function dequantizeBase(o: {
  gguf: string;
  out: string;
  type?: (typeof BASE_TYPES)[number];
}): DequantizedBaseSummary {
  const args = [
    'dequantize-gguf',
    '--gguf',
    resolve(o.gguf),
    '--out',
    resolve(o.out),
    '--type',
    o.type ?? 'f32',
  ];
  return runTrainer(args, BaseSummary, {
    '--gguf': '--base',
    '--out': '--base-out',
    '--type': '--dequantize-base',
  });
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
      // Lines under 80 columns: commander rewraps longer ones at 80 and the hard breaks then dangle.
      "Write a --lora run's adapter (kept in DIR/adapter/ by train sft / rl\n" +
        '--backend torch --lora) as a llama.cpp LoRA adapter GGUF, served over the\n' +
        'base GGUF the run started from:\n' +
        '  rmsweb serve-model --gguf BASE.gguf --lora DIR/adapter.gguf\n' +
        'The base is the GGUF the run recorded (or --base); each adapted weight is\n' +
        'checked against it. Gemma 3 only (other architectures may store projections\n' +
        'permuted).',
    )
    .option('--model <dir>', 'the checkpoint folder of a --lora run (or its adapter/ folder)')
    .option('--out <file>', `the adapter GGUF to write (default DIR/${DEFAULT_ADAPTER_GGUF})`)
    .option('--base <file>', 'the base GGUF (default: the one the run recorded)')
    .option(
      '--dequantize-base <type>',
      'also write the base with every tensor dequantized (f32: exact, or f16), to serve the adapter over: ' +
        "llama.cpp's quantized kernels part from the float weights torch trained on",
    )
    .option('--base-out <file>', 'where --dequantize-base writes (default DIR/base-TYPE.gguf)')
    .option('--json', 'print the summary as JSON')
    .action((raw) => {
      const o = parseOptions(Options, { model: '', ...raw }, 'export gguf');
      if (o.baseOut && !o.dequantizeBase)
        throw new InputError('--base-out applies to --dequantize-base f32|f16', { field: '--base-out' });
      const s = exportGguf(o);
      let base: DequantizedBaseSummary | null = null;
      if (o.dequantizeBase) {
        const from = o.base ?? s.base;
        if (!from)
          throw new InputError('--dequantize-base needs the base GGUF: give --base (the run recorded none)', {
            field: '--base',
          });
        const out = o.baseOut ?? join(o.model, `base-${o.dequantizeBase}.gguf`);
        base = dequantizeBase({ gguf: from, out, type: o.dequantizeBase });
      }
      if (o.json) {
        process.stdout.write(`${JSON.stringify({ ...s, dequantizedBase: base }, null, 2)}\n`);
        return;
      }
      const serveOver = base?.out ?? s.base;
      // a run started from a merged LoRA checkpoint is served as that checkpoint's adapter, then its own
      const first = s.under.map((d) => join(d, DEFAULT_ADAPTER_GGUF));
      const missing = first.filter((f) => !existsSync(f));
      const loras = [...first, s.out].map((f) => `--lora ${f}`).join(' ');
      process.stdout.write(
        `wrote ${s.out}: ${s.weights} LoRA weights (rank ${s.ranks.join('/')}, alpha ${s.alpha}) for ${s.architecture}, ` +
          `${(s.bytes / 1024 / 1024).toFixed(1)} MiB\n` +
          (base
            ? `wrote ${base.out}: ${base.gguf} dequantized to ${base.type}, ${(base.bytes / 1024 / 1024).toFixed(0)} MiB\n`
            : '') +
          (serveOver
            ? `  serve it: rmsweb serve-model --gguf ${serveOver} ${loras}\n`
            : `  serve it: rmsweb serve-model --gguf BASE.gguf ${loras} (BASE: the model the run trained)\n`) +
          missing.map((f) => `  (first export ${f}: rmsweb export gguf --model ${dirname(f)})\n`).join(''),
      );
    });
}
