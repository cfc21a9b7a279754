import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/index.ts';
import { fixed } from '../../core/text.ts';
import { LocalStudentPolicy, loadStudentPolicy } from '../../policy/student-policy.ts';
import type { StudentPolicy } from '../../policy/types.ts';
import {
  labelRlExamples,
  loadCriticalStates,
  loadFullCorpus,
  METRICS,
  REWARD_NAMES,
  RL_ALGOS,
  RlCommonOptions,
  type RlExample,
  type RunRlResult,
  rlDefaults,
  runRl,
  SALVAGE_DS_DEFAULTS,
} from '../../rl/index.ts';
import { RunStore, writeFileAtomic } from '../../store/index.ts';
import { fileOption, intOption, numberOption, seedOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { RL_TORCH_HELP, rlTorchCommand } from './rl-torch.ts';

/** The file beside the checkpoint that holds the run's curves and cost. */
export const RL_METRICS_FILE = 'rl-metrics.json';

/** `rmsweb rl`'s options: the RL module's own (bounds declared there) plus the command's. */
export const RlCliOptions = RlCommonOptions.omit({ updateEpochs: true }).extend({
  reward: z.enum(REWARD_NAMES).default('polarized'),
  data: fileOption().optional(),
  /** Keep only states the causal check confirmed (`mine --verify`). */
  confirmedOnly: z.boolean().default(false),
  fullCorpus: z.string().min(1).optional(),
  init: z.string().min(1).optional(),
  out: z.string().min(1),
  backend: z.enum(['tfjs', 'torch']).default('tfjs'),
  salvage: z.boolean().default(true),
  logRun: z.string().min(1).optional(),
  progress: z.boolean().default(false),
  json: z.boolean().default(false),
});
export type RlCliOptions = z.output<typeof RlCliOptions>;

/**
 * `rl --backend torch`: the same names, checked here and handed to the Python trainer, which
 * validates the numbers again on its side (its options table is the TS one).
 */
const RlTorchCliOptions = z.object({
  algo: z.enum(['salvage-ds', 'grpo', 'dapo']),
  reward: z.enum(REWARD_NAMES).default('polarized'),
  out: z.string().min(1),
  model: z.string().min(1).optional(),
  data: fileOption().optional(),
  run: z.array(z.string().min(1)).optional(),
  format: z.enum(['jsonl', 'lm']).optional(),
  promptTokens: intOption(64, 32_768).optional(),
  steps: intOption(1, 1_000_000).optional(),
  groupSize: intOption(2, 1024).optional(),
  batch: intOption(1, 100_000).optional(),
  lr: numberOption(0, 1).optional(),
  seed: seedOption.optional(),
  temperature: numberOption(0, 10).optional(),
  maxNewTokens: intOption(1, 100_000).optional(),
  microBatch: intOption(1, 100_000).optional(),
  lora: z.boolean().optional(),
  loraLayers: intOption(0, 10_000).optional(),
  saveSteps: intOption(0, 1_000_000).optional(),
  gradientCheckpointing: z.boolean().optional(),
  nproc: intOption(1, 1024).optional(),
  device: z.string().min(1).optional(),
  vllm: z.enum(['colocate', 'server']).optional(),
  accelerateConfig: z.string().min(1).optional(),
});

async function loadExamples(o: RlCliOptions): Promise<RlExample[]> {
  if ((o.data === undefined) === (o.fullCorpus === undefined)) {
    throw new InputError('give exactly one of --data <critical.jsonl> or --full-corpus <run dir>', {
      field: '--data',
    });
  }
  if (o.confirmedOnly && o.data === undefined)
    throw new InputError('--confirmed-only filters --data <critical.jsonl>', { field: 'confirmed-only' });
  return o.data !== undefined
    ? loadCriticalStates(o.data, { confirmedOnly: o.confirmedOnly })
    : loadFullCorpus(o.fullCorpus!);
}

/**
 * `rmsweb rl`: loads the data and the starting checkpoint, runs the algorithm, saves the trained
 * checkpoint and `rl-metrics.json` (options, per-step metrics, rollouts sampled, wall time) in --out.
 * `loadPolicy` is the checkpoint loader (the local student's by default).
 */
export async function rlCommand(
  o: RlCliOptions,
  loadPolicy: (dir: string) => Promise<StudentPolicy> = loadStudentPolicy,
): Promise<RunRlResult<StudentPolicy>> {
  const { algo, reward, steps, groupSize, batchSize, lr, seed, temperature } = o;
  if (!o.salvage && algo !== 'salvage-ds')
    throw new InputError(`--no-salvage applies to salvage-ds only, not ${algo}`, { field: '--no-salvage' });
  if (!o.init)
    throw new InputError('--init <dir> (the starting student checkpoint) is required', { field: '--init' });
  const loaded = await loadExamples(o);
  const policy = await loadPolicy(o.init);
  // The local student labels the states as SFT does (labelRlExamples); other policies take them raw.
  const labels = policy instanceof LocalStudentPolicy ? labelRlExamples(loaded, policy.featurizer) : null;
  const examples = labels?.kept ?? loaded;
  if (labels && examples.length < loaded.length)
    process.stderr.write(
      `rl: ${loaded.length - examples.length} of ${loaded.length} states dropped (no label the policy can express: ${JSON.stringify(labels.skipped)})\n`,
    );
  const store = o.logRun ? RunStore.open(o.logRun) : undefined;

  const bar =
    o.progress || process.stderr.isTTY
      ? new cliProgress.SingleBar(
          {
            format: `rl ${algo} [{bar}] {value}/{total} steps | reward {reward} | salvage {salvage} | {eta_formatted} left`,
            stream: process.stderr,
            // --progress on a pipe: one line per redraw (training is synchronous, so redraws are driven below)
            noTTYOutput: !process.stderr.isTTY,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  let result: RunRlResult<StudentPolicy>;
  try {
    bar?.start(steps ?? rlDefaults(algo).steps, 0, { reward: '-', salvage: '-' });
    result = runRl({
      algo,
      reward,
      policy,
      examples,
      steps,
      groupSize,
      batchSize,
      lr,
      seed,
      temperature,
      salvage: algo === 'salvage-ds' ? o.salvage : undefined,
      metricsStore: store,
      metricsSeries: `rl/${algo}/${o.out}`,
      onMetrics: (m) => {
        bar?.update(m.step, {
          reward: m[METRICS.meanReward].toFixed(3),
          salvage: m[METRICS.salvageShare].toFixed(2),
        });
        if (bar && !process.stderr.isTTY) bar.render();
      },
    });
  } finally {
    bar?.stop();
    store?.close();
  }

  mkdirSync(o.out, { recursive: true });
  await result.policy.save(o.out);
  const last = result.metrics.at(-1);
  const summary = {
    algo,
    reward,
    init: o.init ?? null,
    data: o.data ?? null,
    confirmedOnly: o.confirmedOnly ?? false,
    fullCorpus: o.fullCorpus ?? null,
    out: o.out,
    options: {
      steps,
      groupSize,
      batchSize,
      lr,
      seed,
      temperature,
      salvage: algo === 'salvage-ds' ? o.salvage : null,
    },
    examples: result.examples,
    rolloutsSampled: result.rolloutsSampled,
    wallMs: result.wallMs,
    final: last ?? null,
  };
  writeFileAtomic(
    join(o.out, RL_METRICS_FILE),
    `${JSON.stringify({ ...summary, metrics: result.metrics }, null, 2)}\n`,
  );

  if (o.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${algo} (${reward}) on ${result.examples} states: ${result.metrics.length} steps, ${result.rolloutsSampled} rollouts sampled, ` +
        `${(result.wallMs / 1000).toFixed(1)}s\n`,
    );
    if (last) {
      process.stdout.write(
        `last step: mean reward ${last[METRICS.meanReward].toFixed(3)}, contrast gate ${last[METRICS.contrastGatePass].toFixed(2)}, ` +
          `competence gate ${last[METRICS.competenceGatePass].toFixed(2)}, salvage share ${last[METRICS.salvageShare].toFixed(2)}, ` +
          `KL to start ${fixed(last[METRICS.klRef], 4)}\n`,
      );
    }
    process.stdout.write(`saved checkpoint and ${RL_METRICS_FILE} to ${o.out}\n`);
  }
  return result;
}

/** Registers `rmsweb rl`. */
export function registerRl(program: Command): void {
  program
    .command('rl')
    .description('Offline RL: Salvage-DS, GRPO or DAPO on critical states')
    .option('--init <dir>', 'tfjs backend: starting checkpoint (the SFT student)')
    .requiredOption('--out <dir>', 'folder for the trained checkpoint and rl-metrics.json')
    .option(
      '--backend <name>',
      'tfjs (the local student, default) or torch (a Hugging Face causal LM, PyTorch)',
      'tfjs',
    )
    .option('--model <path>', 'torch: starting model, a Hugging Face folder or a .gguf file')
    .option(
      '--run <dir>',
      'torch: run folder(s) whose trajectories give the prompt history of mined states (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--format <name>',
      'torch: how mined --data states are exported, jsonl (chat messages, default) or lm (plain text for a base model without a chat template)',
    )
    .option(
      '--prompt-tokens <n>',
      "torch, --format lm: the compact observation budget (default 768; the SFT student's)",
    )
    .option('--lora', 'torch: train LoRA adapters (merged into the saved checkpoint)')
    .option(
      '--lora-layers <n>',
      'torch, --lora: adapt the top N decoder layers only (default 0: all); the backward pass stops at the lowest of them',
    )
    .option('--device <name>', 'torch: auto (a GPU when there is one), cpu or cuda')
    .option('--max-new-tokens <n>', 'torch: longest sampled reply (default 256)')
    .option('--micro-batch <n>', 'torch: sequences per forward pass, gradients accumulated (default 16)')
    .option(
      '--save-steps <n>',
      'torch: keep a resumable checkpoint every N steps in OUT/checkpoints (default 1 with --lora, else 5; 0: none); the same command started again resumes from it',
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
    .option(
      '--vllm <mode>',
      'torch: generate with vLLM, colocate (in the training processes) or server (`trl vllm-serve`); needs CUDA',
    )
    .option('--verbose', "torch: show the trainer's stderr")
    .option('--algo <name>', `algorithm: ${RL_ALGOS.join(' | ')}`, 'salvage-ds')
    .option('--reward <name>', `reward: ${REWARD_NAMES.join(' | ')}`, 'polarized')
    .option('--data <file>', 'critical states JSONL (from rmsweb mine)')
    .option(
      '--confirmed-only',
      'train only on states the causal check confirmed (`rmsweb mine --verify` labels them)',
    )
    .option(
      '--full-corpus <dir>',
      'instead of --data: every step of the verified successes in this run folder',
    )
    .option('--steps <n>', `optimizer steps (default ${SALVAGE_DS_DEFAULTS.steps})`)
    .option('--group-size <n>', `actions sampled per state, G (default ${SALVAGE_DS_DEFAULTS.groupSize})`)
    .option('--batch <n>', `states per step (default ${SALVAGE_DS_DEFAULTS.batchSize})`)
    .option('--lr <x>', `Adam learning rate (default ${SALVAGE_DS_DEFAULTS.lr} for salvage-ds)`)
    .option('--seed <n>', 'seed for state order and sampling (default 0)')
    .option('--temperature <x>', 'sampling temperature (default 1)')
    .option('--no-salvage', 'salvage-ds: drop gate-failing groups instead of salvaging them (ablation)')
    .option('--log-run <dir>', 'also log per-step metrics into this run folder (series rl/<algo>/<out>)')
    .option('--progress', 'show a progress bar even when stderr is not a terminal')
    .option('--json', 'print the summary as JSON on stdout')
    .addHelpText('after', RL_TORCH_HELP)
    .action(async (raw) => {
      const { batch, ...rest } = raw;
      if (raw.backend === 'torch') {
        // Checked here; the trainer takes the flags as given (it parses them again on its side).
        parseOptions(RlTorchCliOptions, raw, 'rl');
        await rlTorchCommand(raw);
        return;
      }
      if (raw.format !== undefined || raw.promptTokens !== undefined)
        throw new InputError('--format and --prompt-tokens apply to --backend torch (an LM student) only', {
          field: raw.format !== undefined ? '--format' : '--prompt-tokens',
        });
      for (const [set, flag] of [
        [raw.loraLayers, '--lora-layers'],
        [raw.saveSteps, '--save-steps'],
        [raw.gradientCheckpointing, '--gradient-checkpointing'],
      ] as const)
        if (set !== undefined)
          throw new InputError(`${flag} applies to --backend torch only (an LM student)`, { field: flag });
      const r = await rlCommand(
        parseOptions(RlCliOptions, { batchSize: batch, ...rest }, 'rl', { batchSize: '--batch' }),
      );
      r.policy.dispose();
    });
}
