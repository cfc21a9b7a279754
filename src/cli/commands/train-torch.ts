import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../core/index.ts';
import { exportSft } from '../../data/export-sft.ts';
import { createProgress } from '../progress.ts';
import { requireTorchTrainer, runTorchTrainer } from '../torch-trainer.ts';

/** Flags of `rmsweb train sft` that the torch backend reads. */
export interface SftTorchOptions {
  run: string[];
  data?: string;
  model?: string;
  out: string;
  epochs: number;
  batch: number;
  lr: number;
  seed: number;
  valFrac: number;
  lora: boolean;
  device?: string;
  microBatch?: number;
  nproc?: number;
  progress: boolean;
  quiet: boolean;
  json: boolean;
  verbose: boolean;
}

/**
 * `rmsweb train sft --backend torch`: supervised fine-tuning of a Hugging Face causal LM on the
 * TRL export of the runs' verified successes (`--data` takes an existing `export sft --format trl`
 * file instead). Writes a Hugging Face checkpoint and sft-metrics.jsonl to --out.
 */
export async function sftTorchCommand(o: SftTorchOptions): Promise<void> {
  if (!o.model)
    throw new InputError('--backend torch needs --model DIR (a Hugging Face folder or .gguf)', {
      field: '--model',
    });
  if (!existsSync(o.model)) throw new InputError('model does not exist', { file: o.model, field: '--model' });
  if (!o.data && o.run.length === 0)
    throw new InputError('give --run DIR (repeatable) or --data train.jsonl', { field: '--run' });
  requireTorchTrainer();
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const log = (line: string) => {
    if (!o.quiet) (o.json ? process.stderr : process.stdout).write(`${line}\n`);
  };
  let data = o.data ? resolve(o.data) : '';
  if (!data) {
    const s = exportSft({ runs: o.run, format: 'trl', out: join(out, 'trl') });
    if (s.examples === 0)
      throw new InputError(`no verified-success steps in ${o.run.join(', ')}`, { field: '--run' });
    data = s.file;
    log(`exported ${s.examples} SFT examples from ${s.trajectories} trajectories to ${data}`);
  }
  const args = ['sft', '--model', resolve(o.model), '--data', data, '--out', out];
  args.push('--epochs', String(o.epochs), '--batch', String(o.batch), '--lr', String(o.lr));
  args.push('--seed', String(o.seed), '--val-frac', String(o.valFrac));
  if (o.device) args.push('--device', o.device);
  if (o.microBatch !== undefined) args.push('--micro-batch', String(o.microBatch));
  if (o.lora) args.push('--lora');
  const bar = createProgress('sft (torch)', o.epochs, { force: o.progress, quiet: o.quiet || o.json });
  let events: Awaited<ReturnType<typeof runTorchTrainer>>;
  try {
    events = await runTorchTrainer({
      args,
      metricsFile: join(out, 'sft-metrics.jsonl'),
      nproc: o.nproc,
      verbose: o.verbose,
      onEvent: (e) => {
        if (e.event !== 'epoch') return;
        bar?.update(Number(e.epoch));
        const val = e['losses/val'];
        log(
          `epoch ${e.epoch}/${o.epochs}  loss ${Number(e['losses/train']).toFixed(4)}  val loss ${typeof val === 'number' ? val.toFixed(4) : 'n/a'}`,
        );
      },
    });
  } finally {
    bar?.stop();
  }
  const epochs = events.filter((e) => e.event === 'epoch');
  const done = events.find((e) => e.event === 'done');
  log(`saved the Hugging Face checkpoint to ${out}; evaluate it with --agent hf:${o.out}`);
  if (o.json)
    process.stdout.write(
      `${JSON.stringify({ out, backend: 'torch', data, epochs, seconds: done?.seconds ?? null })}\n`,
    );
}
