import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../core/index.ts';
import { fixed } from '../../core/text.ts';
import { exportRl } from '../../data/export-rl.ts';
import { checkModelPath } from '../../models/trainer-python.ts';
import { METRICS } from '../../rl/metrics.ts';
import { RunStore, writeFileAtomic } from '../../store/index.ts';
import { createProgress } from '../progress.ts';
import {
  checkLoraLayers,
  checkVllm,
  openOutDir,
  requireTorchTrainer,
  runTorchTrainer,
  SAVE_STEPS,
  type TrainerEvent,
} from '../torch-trainer.ts';
import { isLmCheckpoint } from './train-torch.ts';

/** Flags of `rmsweb rl` that the torch backend reads (beside the shared ones). */
export interface RlTorchOptions {
  algo: string;
  reward: string;
  data?: string;
  fullCorpus?: string;
  model?: string;
  run?: string[];
  out: string;
  steps?: string;
  groupSize?: string;
  batch?: string;
  lr?: string;
  seed?: string;
  temperature?: string;
  salvage: boolean;
  lora?: boolean;
  /** LoRA on the top N decoder layers only (0 or unset: every layer); needs `lora`. */
  loraLayers?: string;
  device?: string;
  maxNewTokens?: string;
  microBatch?: string;
  /** Steps between resumable checkpoints in OUT/checkpoints (default 1 with LoRA, 5 without; 0: none). */
  saveSteps?: string;
  /** Recompute activations in the backward pass (TRL's gradient_checkpointing; rmsweb's default off). */
  gradientCheckpointing?: boolean;
  nproc?: string;
  accelerateConfig?: string;
  vllm?: string;
  logRun?: string;
  /**
   * How mined critical states (`data` from `rmsweb mine`) are exported: `jsonl` (chat messages, the
   * default) or `lm` (the plain prompt of a base model without a chat template, `export rl --format
   * lm`). An `export rl` file says its layout itself.
   */
  format?: string;
  /** Format `lm`: the compact observation's budget (default 768); must be the SFT student's. */
  promptTokens?: string;
  progress?: boolean;
  json?: boolean;
  /** Print nothing (no progress, notes or summary): for callers in-process, such as a pipeline. */
  quiet?: boolean;
  verbose?: boolean;
}

/**
 * What the file is: an `export rl` file (rows with reward_model; `layout` "lm" when its first row is
 * in the plain lm layout) or mined CriticalStates (null).
 */
function rlExportLayout(file: string): 'jsonl' | 'lm' | null {
  if (file.endsWith('.parquet')) return 'jsonl';
  const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
  try {
    const row = JSON.parse(first) as { reward_model?: unknown; extra_info?: { layout?: unknown } };
    if (!('reward_model' in row)) return null;
    return row.extra_info?.layout === 'lm' ? 'lm' : 'jsonl';
  } catch {
    return null;
  }
}

/**
 * How `rl --backend torch`'s flags land on TRL's GRPOConfig (trainer/rmsweb_trainer/rl.py,
 * RL_OPTION_FIELDS, says the same): printed after `rmsweb rl --help`.
 */
export const RL_TORCH_HELP = `
--backend torch trains with TRL's GRPOTrainer (trl 1.16.0; Salvage-DS is a subclass of it); each
flag sets:
  --steps            GRPOConfig.max_steps (steps x updateEpochs: one optimizer step per update epoch)
  --batch            generation_batch_size / num_generations (states per step, over all processes)
  --group-size       num_generations
  --micro-batch      per_device_train_batch_size (rows per forward pass; the rest is
                     gradient_accumulation_steps = steps_per_generation)
  --temperature      temperature (top_p 1, top_k 0: the policy's own distribution)
  --lr               learning_rate (optim adamw_torch, weight_decay 0, lr_scheduler_type constant)
  --seed             seed
  --max-new-tokens   max_completion_length
  --algo             loss_type "grpo" (salvage-ds, grpo) or "dapo" (dapo); scale_rewards "group";
                     salvage-ds's gates, salvage and brake are SalvageDSTrainer's, not TRL's
  --lora             peft_config = LoraConfig(r 16, lora_alpha 32, lora_dropout 0.05), merged on save
  --lora-layers N    LoraConfig layers_to_transform = the top N decoder layers (the backward pass
                     stops at the lowest of them)
  --vllm MODE        use_vllm True, vllm_mode colocate | server (needs a CUDA GPU and vllm)
  --device           use_cpu (cpu); otherwise the GPU accelerate picks
  --gradient-checkpointing  gradient_checkpointing True (rmsweb's default False, TRL's True: on a
                     CPU memory is plentiful and the second forward pass is not)
  --nproc            torchrun --nproc-per-node (DDP)
  --accelerate-config  accelerate launch --config_file FILE (its num_processes; --nproc overrides)
  --save-steps N     save_strategy "steps", save_steps N x updateEpochs, save_total_limit 1, in
                     OUT/checkpoints (default every step with --lora, every 5 without; 0: none):
                     the same command started again resumes there; removed when the run ends
Also: epsilon = clipEps (dapo: clipLow, epsilon_high clipHigh), beta = the k3 KL weight (dapo 0,
use_bias_correction_kl False), num_iterations = updateEpochs, prompts left-truncated to 4096 tokens.`;

/**
 * `rmsweb rl --backend torch`: trains a Hugging Face causal LM with the PyTorch trainer. Mined
 * critical states are first exported as text-only JSONL rows that carry the page (so the reward
 * resolves elements as the TS reward does); an `export rl` file (JSONL or verl parquet) is used as is.
 * Progress streams from the trainer's metrics JSONL; steps go to the run store with --log-run.
 */
export async function rlTorchCommand(o: RlTorchOptions): Promise<TrainerEvent[]> {
  if (!o.model)
    throw new InputError('--backend torch needs --model DIR (a Hugging Face folder or .gguf)', {
      field: '--model',
    });
  if (o.fullCorpus !== undefined)
    throw new InputError(
      '--full-corpus is a tfjs-backend option; export the corpus with `rmsweb export rl` and pass it as --data',
      { field: '--full-corpus' },
    );
  if (!o.data)
    throw new InputError('give --data: critical states (from rmsweb mine) or an `rmsweb export rl` file', {
      field: '--data',
    });
  if (!existsSync(o.data)) throw new InputError('file does not exist', { file: o.data, field: '--data' });
  if (o.format !== undefined && o.format !== 'jsonl' && o.format !== 'lm')
    throw new InputError(`expected jsonl or lm, got "${o.format}"`, { field: '--format' });
  if (o.promptTokens !== undefined && o.format !== 'lm')
    throw new InputError('--prompt-tokens applies to --format lm only', { field: '--prompt-tokens' });
  checkLoraLayers(o);
  const given = rlExportLayout(o.data);
  if (given !== null && o.format !== undefined && given !== o.format)
    throw new InputError(
      `--format ${o.format} exports mined states, but this is an \`export rl\` file in the ${given} layout`,
      { file: o.data, field: '--format' },
    );
  if (given !== null && o.promptTokens !== undefined)
    throw new InputError('--prompt-tokens applies to exporting mined states; this file is already exported', {
      file: o.data,
      field: '--prompt-tokens',
    });
  checkModelPath(o.model, '--model');
  for (const r of o.run ?? [])
    if (!existsSync(r)) throw new InputError('no such run folder', { file: r, field: '--run' });
  const env = requireTorchTrainer({ accelerateConfig: o.accelerateConfig });
  checkVllm(o.vllm, env, o.device);
  const dir = openOutDir(o.out);
  const out = dir.path;
  try {
    return await trainRl(o, env, out);
  } catch (e) {
    // the trainer refused its input (or the export did): leave no folder a refused run made
    if (InputError.isInstance(e)) dir.discard();
    throw e;
  }
}

async function trainRl(
  o: RlTorchOptions,
  env: ReturnType<typeof requireTorchTrainer>,
  out: string,
): Promise<TrainerEvent[]> {
  let data = resolve(o.data ?? '');
  const quiet = o.json || o.quiet;
  if (rlExportLayout(data) === null) {
    const rows = join(out, 'rl-data.jsonl');
    const lm = o.format === 'lm';
    const s = exportRl({
      runs: o.run ?? [],
      critical: data,
      format: lm ? 'lm' : 'jsonl',
      out: rows,
      withImages: false,
      withObservation: true,
      ...(lm && o.promptTokens !== undefined ? { promptTokens: Number(o.promptTokens) } : {}),
    });
    data = rows;
    if (!quiet)
      process.stderr.write(`exported ${s.rows} critical states${lm ? ' (lm layout)' : ''} to ${rows}\n`);
  }

  const args = [
    'rl',
    '--algo',
    o.algo,
    '--reward',
    o.reward,
    '--model',
    resolve(o.model ?? ''),
    '--data',
    data,
    '--out',
    out,
  ];
  const flag = (name: string, v: string | undefined) => {
    if (v !== undefined) args.push(name, v);
  };
  flag('--steps', o.steps);
  flag('--group-size', o.groupSize);
  flag('--batch', o.batch);
  flag('--lr', o.lr);
  flag('--seed', o.seed);
  flag('--temperature', o.temperature);
  flag('--device', o.device);
  flag('--max-new-tokens', o.maxNewTokens);
  flag('--micro-batch', o.microBatch);
  flag('--vllm', o.vllm);
  // A killed run (Ctrl-C, a machine restart) loses at most these steps: the same command resumes.
  flag('--save-steps', o.saveSteps ?? String(SAVE_STEPS.rl[o.lora ? 'lora' : 'full']));
  if (o.lora) args.push('--lora');
  flag('--lora-layers', o.loraLayers);
  if (o.gradientCheckpointing) args.push('--set', 'gradientCheckpointing=true');
  if (!o.salvage) args.push('--no-salvage');
  if (o.lr === undefined && o.lora && !quiet)
    process.stderr.write(
      'note: the default lr (1e-6, torch.rlLr in src/rl/options.json) is for full fine-tuning of a pretrained LM; LoRA adapters usually want a larger one, such as --lr 1e-5..1e-4\n',
    );

  const steps = Number(o.steps ?? 50);
  const bar = createProgress(`rl ${o.algo} (torch)`, steps, { force: o.progress, quiet });
  const store = o.logRun ? RunStore.open(o.logRun) : undefined;
  const series = `rl/${o.algo}/${o.out}`;
  let events: TrainerEvent[];
  try {
    events = await runTorchTrainer({
      args,
      metricsFile: join(out, 'rl-metrics.jsonl'),
      nproc: o.nproc ? Number(o.nproc) : undefined,
      accelerateConfig: o.accelerateConfig,
      verbose: o.verbose,
      onEvent: (e) => {
        if (e.event !== 'step' || typeof e.step !== 'number') return;
        const values = Object.fromEntries(
          Object.entries(e).filter(([k, v]) => k.includes('/') && typeof v === 'number'),
        ) as Record<string, number>;
        store?.appendMetric(series, e.step, values);
        bar?.update(e.step, { loss: values[METRICS.total] ?? 0 });
      },
    });
  } finally {
    bar?.stop();
    store?.close();
  }
  const metrics = events.filter((e) => e.event === 'step');
  const done = events.find((e) => e.event === 'done');
  const last = metrics.at(-1) as Record<string, number> | undefined;
  const summary = {
    backend: 'torch',
    algo: o.algo,
    reward: o.reward,
    model: o.model,
    data,
    out,
    python: env.python,
    torch: env.packages.torch,
    cuda: env.cuda ?? false,
    rolloutsSampled: last?.[METRICS.rolloutsTotal] ?? 0,
    seconds: done?.seconds ?? null,
    final: last ?? null,
  };
  writeFileAtomic(join(out, 'rl-metrics.json'), `${JSON.stringify({ ...summary, metrics }, null, 2)}\n`);
  if (o.quiet) return events;
  if (o.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    process.stdout.write(
      `${o.algo} (torch, ${o.reward}): ${metrics.length} steps, ${summary.rolloutsSampled} rollouts, ${summary.seconds}s\n`,
    );
    if (last)
      process.stdout.write(
        `last step: mean reward ${last[METRICS.meanReward].toFixed(3)}, contrast gate ${last[METRICS.contrastGatePass].toFixed(2)}, ` +
          `competence gate ${last[METRICS.competenceGatePass].toFixed(2)}, salvage share ${last[METRICS.salvageShare].toFixed(2)}, ` +
          `KL to start ${fixed(last[METRICS.klRef], 4)}\n`,
      );
    process.stdout.write(
      `saved the Hugging Face checkpoint and rl-metrics.json to ${out}; evaluate it with --agent ${isLmCheckpoint(out) ? 'lm:hf:' : 'hf:'}${o.out}\n`,
    );
  }
  return events;
}
