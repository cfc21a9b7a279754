import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../core/index.ts';
import { exportSft } from '../../data/export-sft.ts';
import { checkModelPath } from '../../models/trainer-python.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { createProgress } from '../progress.ts';
import {
  checkLoraLayers,
  openOutDir,
  requireTorchTrainer,
  runTorchTrainer,
  SAVE_STEPS,
  type TrainerEvent,
} from '../torch-trainer.ts';

/** Flags of `rmsweb train sft` that the torch backend reads. */
export interface SftTorchOptions {
  run: string[];
  /**
   * DAgger: runs of `rollout --relabel` whose labelled steps are added to the rows (`export sft
   * --format lm --relabeled`), with the expert's action as the completion. Needs `format: 'lm'`.
   */
  relabeled?: string[];
  /**
   * An existing export to train on instead of exporting `run`: `export sft --format trl` or
   * `--format lm` rows (train.jsonl, or the export folder holding it); the rows say their layout.
   */
  data?: string;
  /**
   * The layout exported from `run`: `trl` (chat messages through the model's chat template, the
   * default) or `lm` (plain prompt-completion text, for a base model without a chat template).
   */
  format?: 'trl' | 'lm';
  /** Format `lm`: the compact observation's budget (default 768, src/agent/lm-prompt.ts). */
  promptTokens?: number;
  model?: string;
  out: string;
  epochs: number;
  batch: number;
  lr: number;
  seed: number;
  valFrac: number;
  lora: boolean;
  /** LoRA on the top N decoder layers only (0 or unset: all), the frozen ones cached per row. */
  loraLayers?: number;
  device?: string;
  microBatch?: number;
  /** Optimizer steps between resumable checkpoints in OUT/checkpoints (default 20; 0: none). */
  saveSteps?: number;
  /** Recompute activations in the backward pass (TRL's gradient_checkpointing; default off). */
  gradientCheckpointing?: boolean;
  nproc?: number;
  accelerateConfig?: string;
  progress: boolean;
  quiet: boolean;
  json: boolean;
  verbose: boolean;
}

/**
 * How `train sft --backend torch`'s flags land on TRL's SFTConfig (trainer/rmsweb_trainer/sft.py,
 * SFT_CONFIG_FIELDS, says the same): printed after `rmsweb train sft --help`.
 */
export const SFT_TORCH_HELP = `
--backend torch trains with TRL's SFTTrainer (trl 1.16.0); each flag sets:
  --epochs           SFTConfig.num_train_epochs
  --batch            per_device_train_batch_size x gradient_accumulation_steps (rows per optimizer
                     step, per process)
  --micro-batch      per_device_train_batch_size (the largest divisor of --batch not above it)
  --lr               learning_rate (optim adamw_torch, weight_decay 0, lr_scheduler_type constant,
                     max_grad_norm 0: plain Adam, as the loop it replaced)
  --seed             seed and data_seed (and the train/validation split)
  --val-frac         the eval_dataset's share of the rows (eval_strategy "epoch")
  --lora             peft_config = LoraConfig(r 16, lora_alpha 32, lora_dropout 0.05) on the
                     attention and MLP projections, merged into the saved checkpoint
  --lora-layers N    LoraConfig.layers_to_transform = the top N decoder layers (default 0: all);
                     the layers below are frozen, so their output is computed once per row and
                     reused every epoch (not with --gradient-checkpointing or several processes)
  --device           use_cpu (cpu); otherwise the GPU accelerate picks
  --nproc            torchrun --nproc-per-node (DDP)
  --accelerate-config  accelerate launch --config_file FILE (its num_processes; --nproc overrides)
  --save-steps N     save_strategy "steps", save_steps N, save_total_limit 1, in OUT/checkpoints
                     (default 20; 0: none): the same command started again resumes there (weights,
                     Adam, RNGs, data position); removed when the run ends
  --format lm        the rows exported from --run are plain prompt-completion text (export sft
                     --format lm), for a base model without a chat template: BOS + prompt, then the
                     reply + EOS, tokenized apart as at inference (--agent lm:hf:DIR)
Always: completion_only_loss True (loss on the assistant reply only; rmsweb tokenizes the
prompt-completion rows, the prompt left-truncated to 4096 tokens, and TRL masks the prompt),
max_length None, gradient_checkpointing False (True with --gradient-checkpointing), bf16/fp16
False (the model trains in the dtype it loads in: bf16 on GPUs). The loss is the mean over rows of
each reply's mean token NLL (TRL's own averages over the batch's tokens).`;

/** What {@link sftTorchCommand} resolves with. */
export interface SftTorchResult {
  /** The checkpoint folder (absolute). */
  out: string;
  /** The rows trained on (a train.jsonl, or the export folder given as `data`). */
  data: string;
  /** The trainer's {"event": "epoch"} records: losses/train, losses/val, train, val. */
  epochs: TrainerEvent[];
  seconds: number | null;
}

/**
 * `rmsweb train sft --backend torch`: supervised fine-tuning of a Hugging Face causal LM with TRL's
 * SFTTrainer on the TRL export of the runs' verified successes, or their lm export with `format:
 * 'lm'` (`--data` takes an existing `export sft --format trl|lm` file or folder instead). Writes a Hugging Face checkpoint and sft-metrics.jsonl
 * to --out. Every input is checked before --out is created, and a run the trainer refuses removes
 * the folder it created.
 */
export async function sftTorchCommand(o: SftTorchOptions): Promise<SftTorchResult> {
  if (!o.model)
    throw new InputError('--backend torch needs --model DIR (a Hugging Face folder or .gguf)', {
      field: '--model',
    });
  checkModelPath(o.model, '--model');
  const relabeled = o.relabeled ?? [];
  if (!o.data && o.run.length === 0 && relabeled.length === 0)
    throw new InputError('give --run DIR (repeatable), --relabeled DIR or --data train.jsonl', {
      field: '--run',
    });
  for (const r of o.run)
    if (!existsSync(r)) throw new InputError('no such run folder', { file: r, field: '--run' });
  for (const r of relabeled)
    if (!existsSync(r)) throw new InputError('no such run folder', { file: r, field: '--relabeled' });
  if (relabeled.length && o.data)
    throw new InputError(
      '--relabeled is exported with --run; to add it to --data, write its rows with `rmsweb export sft --format lm --relabeled` and append them to the file',
      { field: '--relabeled' },
    );
  if (relabeled.length && o.format !== 'lm')
    throw new InputError(
      "--backend torch takes --relabeled with --format lm only: a relabelled step's target is the expert's action alone, the lm layout's completion",
      { field: '--relabeled' },
    );
  if (o.data && o.format)
    throw new InputError("--format says how to export --run; --data's rows already have their layout", {
      field: '--format',
    });
  checkLoraLayers(o);
  if (o.promptTokens !== undefined && o.format !== 'lm')
    throw new InputError('--prompt-tokens applies to --format lm only', { field: '--prompt-tokens' });
  if (
    o.data &&
    existsSync(o.data) &&
    statSync(o.data).isDirectory() &&
    !existsSync(join(o.data, 'train.jsonl'))
  )
    throw new InputError('a folder given as --data must hold train.jsonl (an export sft folder)', {
      file: o.data,
      field: '--data',
    });
  requireTorchTrainer({ accelerateConfig: o.accelerateConfig });
  const dir = openOutDir(o.out);
  const out = dir.path;
  const log = (line: string) => {
    if (!o.quiet) (o.json ? process.stderr : process.stdout).write(`${line}\n`);
  };
  let data = o.data ? resolve(o.data) : '';
  const bar = createProgress('sft (torch)', o.epochs, { force: o.progress, quiet: o.quiet || o.json });
  let events: Awaited<ReturnType<typeof runTorchTrainer>>;
  try {
    if (!data) {
      const format = o.format ?? 'trl';
      const files: string[] = [];
      if (o.run.length) {
        const s = exportSft({ runs: o.run, format, out: join(out, format), promptTokens: o.promptTokens });
        if (s.examples === 0)
          throw new InputError(`no verified-success steps in ${o.run.join(', ')}`, { field: '--run' });
        files.push(s.file);
        log(`exported ${s.examples} SFT examples from ${s.trajectories} trajectories to ${s.file}`);
      }
      if (relabeled.length) {
        const s = exportSft({
          runs: relabeled,
          format,
          out: join(out, `${format}-relabeled`),
          promptTokens: o.promptTokens,
          relabeled: true,
        });
        files.push(s.file);
        log(`exported ${s.examples} expert-relabelled steps from ${s.trajectories} rollouts to ${s.file}`);
      }
      data = files.length === 1 ? files[0] : join(out, `${format}-train.jsonl`);
      if (files.length > 1) writeFileAtomic(data, files.map((f) => readFileSync(f, 'utf8')).join(''));
    }
    const args = ['sft', '--model', resolve(o.model), '--data', data, '--out', out];
    args.push('--epochs', String(o.epochs), '--batch', String(o.batch), '--lr', String(o.lr));
    args.push('--seed', String(o.seed), '--val-frac', String(o.valFrac));
    if (o.device) args.push('--device', o.device);
    if (o.microBatch !== undefined) args.push('--micro-batch', String(o.microBatch));
    // A killed run (Ctrl-C, a machine restart) loses at most these steps: the same command resumes.
    args.push('--save-steps', String(o.saveSteps ?? SAVE_STEPS.sft));
    if (o.lora) args.push('--lora');
    if (o.loraLayers !== undefined) args.push('--lora-layers', String(o.loraLayers));
    if (o.gradientCheckpointing) args.push('--set', 'gradientCheckpointing=true');
    events = await runTorchTrainer({
      args,
      metricsFile: join(out, 'sft-metrics.jsonl'),
      nproc: o.nproc,
      accelerateConfig: o.accelerateConfig,
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
  } catch (e) {
    if (InputError.isInstance(e)) dir.discard();
    throw e;
  } finally {
    bar?.stop();
  }
  const epochs = events.filter((e) => e.event === 'epoch');
  const done = events.find((e) => e.event === 'done');
  const seconds = typeof done?.seconds === 'number' ? done.seconds : null;
  const lm = isLmCheckpoint(out);
  log(
    `saved the Hugging Face checkpoint to ${out}; evaluate it with --agent ${lm ? 'lm:hf:' : 'hf:'}${o.out}`,
  );
  if (o.json) process.stdout.write(`${JSON.stringify({ out, backend: 'torch', data, epochs, seconds })}\n`);
  return { out, data, epochs, seconds };
}

/** Whether the trainer recorded the plain lm layout in the checkpoint (rmsweb-trainer.json). */
export function isLmCheckpoint(dir: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, 'rmsweb-trainer.json'), 'utf8')) as { layout?: unknown }).layout ===
      'lm'
    );
  } catch {
    return false;
  }
}
