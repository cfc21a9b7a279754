import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import { initPolicyBackend } from '../../policy/backend.ts';
import { loadRelabeledTrajectories, loadSuccessfulTrajectories } from '../../policy/run-data.ts';
import { type EpochMetrics, type SftDataReport, trainSft } from '../../policy/sft-trainer.ts';
import { loadStudentPolicy } from '../../policy/student-policy.ts';
import { intOption, numberOption, positiveNumberOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { SFT_TORCH_HELP, sftTorchCommand } from './train-torch.ts';

const Options = z.object({
  run: z.array(z.string().min(1)).default([]),
  relabeled: z.array(z.string().min(1)).default([]),
  out: z.string().min(1),
  epochs: intOption(1, 1000).default(8),
  batch: intOption(1, 4096).default(32),
  lr: positiveNumberOption(1).default(0.004),
  seed: intOption().default(0),
  valFrac: numberOption(0, 0.9).default(0.1),
  hidden: intOption(8, 1024).optional(),
  embedDim: intOption(4, 512).optional(),
  maxElements: intOption(4, 1024).optional(),
  backend: z.enum(['wasm', 'cpu', 'torch']).default('wasm'),
  model: z.string().min(1).optional(),
  // a train.jsonl, or the export sft folder holding it (sftTorchCommand checks the folder)
  data: z.string().min(1).optional(),
  format: z.enum(['trl', 'lm']).optional(),
  promptTokens: intOption(64, 32_768).optional(),
  lora: z.boolean().default(false),
  loraLayers: intOption(0, 10_000).optional(),
  device: z.string().optional(),
  microBatch: intOption(0).optional(),
  saveSteps: intOption(0).optional(),
  gradientCheckpointing: z.boolean().default(false),
  nproc: intOption(1).optional(),
  accelerateConfig: z.string().min(1).optional(),
  verbose: z.boolean().default(false),
  resume: z.boolean().default(false),
  progress: z.boolean().default(false),
  quiet: z.boolean().default(false),
  json: z.boolean().default(false),
});
type TrainOptions = z.output<typeof Options>;

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');

export function formatEpoch(m: EpochMetrics, epochs: number): string {
  return (
    `epoch ${m.epoch}/${epochs}  loss ${m.trainLoss.toFixed(4)}  train acc ${pct(m.trainStepAccuracy)} (equiv ${pct(m.trainEquivalentAccuracy)})` +
    `  val acc ${pct(m.valStepAccuracy)} (equiv ${pct(m.valEquivalentAccuracy)})  val loss ${Number.isFinite(m.valLoss) ? m.valLoss.toFixed(4) : 'n/a'}` +
    `  ${m.examplesPerSecond.toFixed(0)} ex/s  ${m.seconds.toFixed(0)}s`
  );
}

export function formatData(d: SftDataReport): string {
  const skipped = Object.entries(d.skipped)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return (
    `data: ${d.trajectories} successful trajectories, ${d.steps} steps -> ${d.examples} examples ` +
    `(${d.relabeled} composed answers mapped to their answer span, ${d.partial} with the argument not among the candidates; skipped: ${skipped || 'none'}); ` +
    `train ${d.train} examples${d.expertExamples ? ` (${d.expertExamples} expert-relabelled)` : ''} / ${d.trainTasks} tasks, val ${d.val} examples / ${d.valTasks} tasks`
  );
}

function readPreviousEpochs(out: string): EpochMetrics[] {
  const path = join(out, 'metrics.json');
  if (!existsSync(path)) return [];
  const m = JSON.parse(readFileSync(path, 'utf8')) as { epochs?: EpochMetrics[] };
  return (m.epochs ?? []).map((e) => ({
    ...e,
    valLoss: e.valLoss ?? Number.NaN,
    valStepAccuracy: e.valStepAccuracy ?? Number.NaN,
    valEquivalentAccuracy: e.valEquivalentAccuracy ?? Number.NaN,
  }));
}

/**
 * A resumed checkpoint continues with the settings it was trained with: metrics.json records one
 * set of hyperparameters for every epoch, so a change (say --lr) is refused, naming each option.
 * Only --epochs may grow (that is what resuming is for).
 */
function refuseChangedHyperparameters(o: TrainOptions): void {
  const file = join(o.out, 'config.json');
  let cfg: {
    meta?: Record<string, unknown>;
    model?: Record<string, unknown>;
    featurizer?: Record<string, unknown>;
  };
  try {
    cfg = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`cannot read the checkpoint to resume: ${(e as Error).message}`, { file });
  }
  const meta = cfg.meta ?? {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const checks: Array<[string, unknown, unknown]> = [
    ['--run', meta.runs, o.run],
    ['--relabeled', meta.relabeled ?? [], o.relabeled],
    ['--batch', meta.batch, o.batch],
    ['--lr', meta.lr, o.lr],
    ['--seed', meta.seed, o.seed],
    ['--val-frac', meta.valFrac, o.valFrac],
    ['--hidden', cfg.model?.hidden, o.hidden ?? cfg.model?.hidden],
    ['--embed-dim', cfg.model?.embedDim, o.embedDim ?? cfg.model?.embedDim],
    ['--max-elements', cfg.featurizer?.maxElements, o.maxElements ?? cfg.featurizer?.maxElements],
  ];
  const changed = checks.filter(([, was, now]) => was !== undefined && !same(was, now));
  if (changed.length)
    throw new InputError(
      `--resume continues ${o.out} with the settings it was trained with; changed: ${changed
        .map(([flag, was, now]) => `${flag} ${JSON.stringify(now)} (was ${JSON.stringify(was)})`)
        .join(', ')}. Drop those options, or train into another --out`,
      { field: changed[0][0] },
    );
}

async function runSft(o: TrainOptions): Promise<void> {
  if (o.backend === 'torch') {
    await sftTorchCommand(o);
    return;
  }
  if (o.saveSteps !== undefined)
    throw new InputError('--save-steps applies to --backend torch only (use --resume)', {
      field: '--save-steps',
    });
  if (o.gradientCheckpointing)
    throw new InputError('--gradient-checkpointing applies to --backend torch only (an LM student)', {
      field: '--gradient-checkpointing',
    });
  if (o.loraLayers !== undefined)
    throw new InputError('--lora-layers applies to --backend torch --lora only', { field: '--lora-layers' });
  if (o.run.length === 0) throw new InputError('give at least one --run DIR', { field: '--run' });
  const hasCheckpoint = existsSync(join(o.out, 'config.json'));
  if (hasCheckpoint && !o.resume) {
    throw new InputError(
      `${o.out} already holds a checkpoint; pass --resume to continue it or choose another --out`,
      { field: '--out' },
    );
  }
  if (hasCheckpoint && o.resume) refuseChangedHyperparameters(o);
  const backend = await initPolicyBackend(o.backend);
  const log = (line: string) => {
    if (!o.quiet) (o.json ? process.stderr : process.stdout).write(`${line}\n`);
  };
  const trajectories = loadSuccessfulTrajectories(o.run);
  if (trajectories.length === 0)
    throw new InputError(`no verified-success trajectories in ${o.run.join(', ')}`, { field: '--run' });
  const policy = o.resume && hasCheckpoint ? await loadStudentPolicy(o.out) : undefined;
  const previousEpochs = policy ? readPreviousEpochs(o.out) : [];
  if (policy && previousEpochs.length >= o.epochs) {
    log(`${o.out} already has ${previousEpochs.length} epochs (--epochs ${o.epochs}); nothing to do`);
    return;
  }
  if (policy) log(`resuming ${o.out} after epoch ${previousEpochs.length}`);
  log(`backend: ${backend}`);
  const bar = { current: null as ReturnType<typeof createProgress> | null };
  const result = await trainSft(trajectories, {
    epochs: o.epochs,
    batchSize: o.batch,
    lr: o.lr,
    seed: o.seed,
    valFrac: o.valFrac,
    model: { ...(o.hidden ? { hidden: o.hidden } : {}), ...(o.embedDim ? { embedDim: o.embedDim } : {}) },
    featurizer: o.maxElements ? { maxElements: o.maxElements } : {},
    relabeled: loadRelabeledTrajectories(o.relabeled),
    policy,
    startEpoch: previousEpochs.length,
    previousEpochs,
    outDir: o.out,
    meta: {
      command: 'train sft',
      runs: o.run,
      relabeled: o.relabeled,
      seed: o.seed,
      epochs: o.epochs,
      batch: o.batch,
      lr: o.lr,
      valFrac: o.valFrac,
    },
    onData: (d) => log(formatData(d)),
    onBatch: ({ epoch, batch, batches, loss }) => {
      if (batch === 1)
        bar.current = createProgress(`epoch ${epoch}/${o.epochs}`, batches, {
          force: o.progress,
          quiet: o.quiet,
        });
      bar.current?.update(batch, { loss });
      if (batch === batches) bar.current?.stop();
    },
    onEpoch: (m) => log(formatEpoch(m, o.epochs)),
  });
  const last = result.epochs.at(-1);
  log(`saved ${o.out} (config.json, weights.json, weights.bin, metrics.json)`);
  if (o.json)
    process.stdout.write(
      `${JSON.stringify({ out: o.out, backend, data: result.data, epochs: result.epochs, final: last }, (_k, v) => (Number.isNaN(v) ? null : v))}\n`,
    );
  result.policy.dispose();
}

/** `rmsweb train sft`: supervised training of the local student on verified-success trajectories. */
export function registerTrain(program: Command): void {
  const train = program.command('train').description('Train the local student policy (SFT)');
  train
    .command('sft')
    .description(
      'Supervised fine-tuning of the local student on the verified successes of run folders; writes a checkpoint folder',
    )
    .option('--run <dir>', 'run folder with trajectories (repeatable)', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option(
      '--relabeled <dir>',
      "DAgger: a run of `rollout --relabel` whose steps train with the expert's action as the label (repeatable; --backend torch: with --format lm, and --run optional)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .requiredOption('--out <dir>', 'checkpoint folder, e.g. models/sft')
    .option('--epochs <n>', 'passes over the training examples', '8')
    .option('--batch <n>', 'examples per gradient step', '32')
    .option('--lr <x>', 'peak Adam learning rate (cosine decay to a tenth)', '0.004')
    .option('--seed <n>', 'seed of weights, split and shuffles', '0')
    .option('--val-frac <x>', 'share of tasks held out for validation', '0.1')
    .option('--hidden <n>', 'hidden width (default 64)')
    .option('--embed-dim <n>', 'token embedding width (default 32)')
    .option('--max-elements <n>', 'elements kept per observation (default 128)')
    .option(
      '--backend <name>',
      'wasm or cpu: the local tfjs student; torch: a Hugging Face causal LM (--model) with the PyTorch trainer',
      'wasm',
    )
    .option('--model <path>', 'torch: starting model, a Hugging Face folder or a .gguf file')
    .option(
      '--data <path>',
      'torch: an `export sft --format trl|lm` train.jsonl (or its folder) instead of exporting --run',
    )
    .option(
      '--format <name>',
      'torch: how --run is exported, trl (chat template, default) or lm (plain text for a base model without one)',
    )
    .option('--prompt-tokens <n>', 'torch, --format lm: the compact observation budget (default 768)')
    .option('--lora', 'torch: train LoRA adapters (merged into the saved checkpoint)')
    .option(
      '--lora-layers <n>',
      'torch, --lora: adapt the top N decoder layers only (default 0: all); the frozen layers below are computed once per row and reused every epoch',
    )
    .option('--device <name>', 'torch: auto (a GPU when there is one), cpu or cuda')
    .option('--micro-batch <n>', 'torch: sequences per forward pass, gradients accumulated (default 16)')
    .option(
      '--save-steps <n>',
      'torch: keep a resumable checkpoint every N optimizer steps in OUT/checkpoints (default 20; 0: none); the same command started again resumes from it',
    )
    .option(
      '--gradient-checkpointing',
      'torch: recompute activations in the backward pass (less memory for a large model, one more forward pass per micro-batch; default off)',
    )
    .option('--nproc <n>', 'torch: processes (GPUs) on this machine, launched with torchrun (DDP)')
    .option(
      '--accelerate-config <file>',
      'torch: launch with `accelerate launch --config_file FILE` (DDP, FSDP, DeepSpeed ZeRO-2/3; see trainer/configs/)',
    )
    .option('--verbose', "torch: show the trainer's stderr")
    .option(
      '--resume',
      'continue the checkpoint in --out from its last finished epoch (torch: rerunning the command resumes from OUT/checkpoints, --save-steps)',
    )
    .option('--progress', 'force the progress bar even without a terminal')
    .option('--quiet', 'no progress output')
    .option('--json', 'print a JSON summary on stdout (epoch lines go to stderr)')
    .addHelpText('after', SFT_TORCH_HELP)
    .action(async (raw) => runSft(parseOptions(Options, { ...raw, run: raw.run ?? [] }, 'train sft')));
}
