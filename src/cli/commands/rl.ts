import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { InputError } from '../../core/index.ts';
import { loadStudentPolicy } from '../../policy/student-policy.ts';
import type { StudentPolicy } from '../../policy/types.ts';
import {
  loadCriticalStates,
  loadFullCorpus,
  METRICS,
  REWARD_NAMES,
  RL_ALGOS,
  type RlAlgo,
  type RlExample,
  type RunRlResult,
  runRl,
} from '../../rl/index.ts';
import { RunStore, writeFileAtomic } from '../../store/index.ts';
import { rlTorchCommand } from './rl-torch.ts';

/** The file beside the checkpoint that holds the run's curves and cost. */
export const RL_METRICS_FILE = 'rl-metrics.json';

export interface RlCliOptions {
  algo: string;
  reward: string;
  data?: string;
  fullCorpus?: string;
  init?: string;
  out: string;
  backend?: string;
  model?: string;
  run?: string[];
  lora?: boolean;
  device?: string;
  maxNewTokens?: string;
  microBatch?: string;
  nproc?: string;
  verbose?: boolean;
  steps?: string;
  groupSize?: string;
  batch?: string;
  lr?: string;
  seed?: string;
  temperature?: string;
  salvage: boolean;
  logRun?: string;
  progress?: boolean;
  json?: boolean;
}

function numberOption(
  raw: string | undefined,
  field: string,
  min: number,
  max: number,
  int = false,
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max || (int && !Number.isInteger(n))) {
    throw new InputError(
      `${field} must be ${int ? 'an integer' : 'a number'} in [${min}, ${max}], got "${raw}"`,
      { field },
    );
  }
  return n;
}

function oneOf<T extends string>(raw: string, allowed: readonly T[], field: string): T {
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new InputError(`${field} must be one of ${allowed.join(', ')}, got "${raw}"`, { field });
  }
  return raw as T;
}

async function loadExamples(o: RlCliOptions): Promise<RlExample[]> {
  if ((o.data === undefined) === (o.fullCorpus === undefined)) {
    throw new InputError('give exactly one of --data <critical.jsonl> or --full-corpus <run dir>', {
      field: 'data',
    });
  }
  return o.data !== undefined ? loadCriticalStates(o.data) : loadFullCorpus(o.fullCorpus!);
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
  const algo = oneOf<RlAlgo>(o.algo, RL_ALGOS, 'algo');
  const reward = oneOf(o.reward, REWARD_NAMES, 'reward');
  const steps = numberOption(o.steps, 'steps', 1, 1e6, true);
  const groupSize = numberOption(o.groupSize, 'group-size', 2, 1024, true);
  const batchSize = numberOption(o.batch, 'batch', 1, 1e5, true);
  const lr = numberOption(o.lr, 'lr', 1e-9, 10);
  const seed = numberOption(o.seed, 'seed', 0, 2 ** 31 - 1, true);
  const temperature = numberOption(o.temperature, 'temperature', 1e-3, 100);
  if (!o.salvage && algo !== 'salvage-ds')
    throw new InputError(`--no-salvage applies to salvage-ds only, not ${algo}`, { field: 'salvage' });
  if (!o.init)
    throw new InputError('--init <dir> (the starting student checkpoint) is required', { field: 'init' });
  const examples = await loadExamples(o);
  const policy = await loadPolicy(o.init);
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
    bar?.start(steps ?? 50, 0, { reward: '-', salvage: '-' });
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
          `KL to start ${last[METRICS.klRef].toFixed(4)}\n`,
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
    .option('--lora', 'torch: train LoRA adapters (merged into the saved checkpoint)')
    .option('--device <name>', 'torch: auto (a GPU when there is one), cpu or cuda')
    .option('--max-new-tokens <n>', 'torch: longest sampled reply (default 256)')
    .option('--micro-batch <n>', 'torch: sequences per forward pass, gradients accumulated (default 16)')
    .option('--nproc <n>', 'torch: processes (GPUs) on this machine, launched with torchrun (DDP)')
    .option('--verbose', "torch: show the trainer's stderr")
    .option('--algo <name>', `algorithm: ${RL_ALGOS.join(' | ')}`, 'salvage-ds')
    .option('--reward <name>', `reward: ${REWARD_NAMES.join(' | ')}`, 'polarized')
    .option('--data <file>', 'critical states JSONL (from rmsweb mine)')
    .option(
      '--full-corpus <dir>',
      'instead of --data: every step of the verified successes in this run folder',
    )
    .option('--steps <n>', 'optimizer steps (default 50)')
    .option('--group-size <n>', 'actions sampled per state, G (default 8)')
    .option('--batch <n>', 'states per step (default 8)')
    .option('--lr <x>', 'Adam learning rate (default 0.001)')
    .option('--seed <n>', 'seed for state order and sampling (default 0)')
    .option('--temperature <x>', 'sampling temperature (default 1)')
    .option('--no-salvage', 'salvage-ds: drop gate-failing groups instead of salvaging them (ablation)')
    .option('--log-run <dir>', 'also log per-step metrics into this run folder (series rl/<algo>/<out>)')
    .option('--progress', 'show a progress bar even when stderr is not a terminal')
    .option('--json', 'print the summary as JSON on stdout')
    .action(async (o: RlCliOptions) => {
      if (o.backend === 'torch') {
        await rlTorchCommand({ ...o, out: o.out });
        return;
      }
      if (o.backend !== 'tfjs')
        throw new InputError(`--backend must be tfjs or torch, got "${o.backend}"`, { field: 'backend' });
      const r = await rlCommand(o);
      r.policy.dispose();
    });
}
