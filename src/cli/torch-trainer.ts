import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError, RmswebError } from '../core/index.ts';
import {
  checkTrainerEnv,
  parseTrainerError,
  type TrainerEnvReport,
  trainerEnv,
  trainerPython,
} from '../models/trainer-python.ts';

/**
 * Runs the PyTorch trainer (`python -m rmsweb_trainer rl|sft ...`) for `--backend torch`: checks
 * the Python environment first (saying what is missing), streams the trainer's metrics JSONL back
 * as it grows, and maps the trainer's exit codes onto rmsweb's (2 bad input, 1 anything else).
 */

/**
 * Default steps between the resumable checkpoints of a trainer run (`--save-steps`), for the CLI's
 * torch commands and the lm pipeline alike. SFT: 20 optimizer steps, about four minutes of Gemma
 * LoRA training here, so a killed hour-long run loses minutes, not the hour. RL: a Gemma step takes
 * ~3 min here and a LoRA checkpoint (adapter and its Adam state) is small, so every step; a full
 * fine-tuning checkpoint holds the model and Adam's state (~3 GB for Gemma 3 270M in fp32), so every 5.
 */
export const SAVE_STEPS = { sft: 20, rl: { lora: 1, full: 5 } } as const;

/** One line of the trainer's metrics JSONL. */
export type TrainerEvent = { event: string; step?: number; epoch?: number } & Record<string, unknown>;

export interface TorchRunOptions {
  /** `rl` or `sft`, then the trainer's own flags. */
  args: string[];
  /** The metrics JSONL the trainer appends to (truncated first). */
  metricsFile: string;
  onEvent?: (e: TrainerEvent) => void;
  /** Show the trainer's stderr (warnings, tracebacks) as it comes; otherwise only its tail on failure. */
  verbose?: boolean;
  /** Launch under torchrun with this many processes (several GPUs on one machine). */
  nproc?: number;
  /**
   * Launch with `accelerate launch --config_file FILE` (DDP, FSDP, DeepSpeed ZeRO-2/3 as the file
   * says); `nproc`, when given too, overrides its num_processes.
   */
  accelerateConfig?: string;
  /**
   * Stops the trainer when aborted (SIGTERM; a pipeline reruns an interrupted stage on resume) and
   * resolves with the events so far instead of failing. A pipeline's child Node gets the launcher's
   * Ctrl-C but the trainer, in that child's process group, would not: without this an interrupted
   * LM stage kept training for the rest of its 40 minutes before the pipeline could stop.
   */
  signal?: AbortSignal;
}

/**
 * Checks the Python side (and `--accelerate-config`, parsed there); a missing environment is the
 * user's to fix, so it is an input error.
 */
export function requireTorchTrainer(o: { accelerateConfig?: string } = {}): TrainerEnvReport {
  if (o.accelerateConfig !== undefined && !existsSync(o.accelerateConfig))
    throw new InputError('no such file', { file: o.accelerateConfig, field: '--accelerate-config' });
  try {
    return checkTrainerEnv({ accelerateConfig: o.accelerateConfig && resolve(o.accelerateConfig) });
  } catch (e) {
    if (InputError.isInstance(e)) throw e;
    throw new InputError(`--backend torch: ${(e as Error).message}`, { field: 'backend' });
  }
}

/**
 * `--vllm colocate|server` generates with vLLM, which needs a CUDA GPU: refused on a machine
 * without one before anything is written (the trainer refuses it too).
 */
export function checkVllm(vllm: string | undefined, env: TrainerEnvReport, device?: string): void {
  if (vllm === undefined) return;
  if (vllm !== 'colocate' && vllm !== 'server')
    throw new InputError(`expected colocate or server, got "${vllm}"`, { field: '--vllm' });
  if (!env.cuda)
    throw new InputError(
      `vLLM generation needs a CUDA GPU and ${env.python} sees none (torch.cuda.is_available() is false); drop --vllm to generate with transformers`,
      { field: '--vllm' },
    );
  if (device === 'cpu')
    throw new InputError('vLLM generation runs on the GPU; drop --device cpu or --vllm', {
      field: '--vllm',
    });
}

/** `--lora-layers` narrows which layers the LoRA adapters sit on: refused for a run without `--lora`. */
export function checkLoraLayers(o: { lora?: boolean; loraLayers?: unknown }): void {
  if (o.loraLayers !== undefined && !o.lora)
    throw new InputError('--lora-layers applies to --lora runs (full fine-tuning trains every layer)', {
      field: '--lora-layers',
    });
}

/**
 * The --out folder of a torch run: created now (after every check), and removed again by
 * `discard` when this run created it and the trainer refused its input, so a refused run
 * leaves no folder behind.
 */
export function openOutDir(out: string): { path: string; discard: () => void } {
  const path = resolve(out);
  if (existsSync(path) && !statSync(path).isDirectory())
    throw new InputError('exists and is not a folder', { file: out, field: '--out' });
  const created = !existsSync(path);
  mkdirSync(path, { recursive: true });
  return {
    path,
    discard: () => {
      if (created) rmSync(path, { recursive: true, force: true });
    },
  };
}

/** The interpreter arguments that start the trainer: plain, under torchrun, or under accelerate. */
export function launchArgs(args: string[], o: { nproc?: number; accelerateConfig?: string }): string[] {
  if (o.accelerateConfig) {
    const n = o.nproc ? ['--num_processes', String(o.nproc)] : [];
    return [
      '-m',
      'accelerate.commands.launch',
      '--config_file',
      resolve(o.accelerateConfig),
      ...n,
      '-m',
      'rmsweb_trainer',
      ...args,
    ];
  }
  if (o.nproc && o.nproc > 1)
    return [
      '-m',
      'torch.distributed.run',
      '--standalone',
      `--nproc-per-node=${o.nproc}`,
      '-m',
      'rmsweb_trainer',
      ...args,
    ];
  return ['-m', 'rmsweb_trainer', ...args];
}

class JsonlTail {
  private pos = 0;
  private rest = '';
  constructor(private readonly path: string) {}
  read(): TrainerEvent[] {
    if (!existsSync(this.path)) return [];
    const size = statSync(this.path).size;
    if (size <= this.pos) return [];
    const fd = openSync(this.path, 'r');
    try {
      const buf = Buffer.alloc(size - this.pos);
      readSync(fd, buf, 0, buf.length, this.pos);
      this.pos = size;
      const text = this.rest + buf.toString('utf8');
      const lines = text.split('\n');
      this.rest = lines.pop() ?? '';
      return lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as TrainerEvent);
    } finally {
      closeSync(fd);
    }
  }
}

/** Runs the trainer to completion (or until `signal` aborts); resolves with every event it logged. */
export async function runTorchTrainer(o: TorchRunOptions): Promise<TrainerEvent[]> {
  if (o.signal?.aborted) return [];
  rmSync(o.metricsFile, { force: true });
  const python = trainerPython();
  const argv = launchArgs([...o.args, '--metrics', o.metricsFile], o);
  const tail = new JsonlTail(o.metricsFile);
  const events: TrainerEvent[] = [];
  const drain = () => {
    for (const e of tail.read()) {
      events.push(e);
      o.onEvent?.(e);
    }
  };
  let stderr = '';
  const code = await new Promise<number>((resolve, reject) => {
    const proc = spawn(python, argv, { env: trainerEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    const stop = () => proc.kill('SIGTERM');
    o.signal?.addEventListener('abort', stop, { once: true });
    const timer = setInterval(drain, 500);
    proc.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-8000);
      if (o.verbose) process.stderr.write(d);
    });
    proc.on('error', (e) => {
      clearInterval(timer);
      o.signal?.removeEventListener('abort', stop);
      reject(e);
    });
    proc.on('exit', (c, signal) => {
      clearInterval(timer);
      o.signal?.removeEventListener('abort', stop);
      resolve(c ?? (signal ? 128 : 1));
    });
  });
  drain();
  if (o.signal?.aborted) return events;
  if (code === 2) {
    // the trainer's one-line error: about an option (--model, --vllm, ...) or the data file's rows
    const { message, field } = parseTrainerError(stderr);
    throw new InputError(field ? message : `torch trainer: ${message}`, field ? { field } : {});
  }
  if (code !== 0)
    throw new RmswebError(`torch trainer exited with ${code}:\n${stderr.trim().slice(-3000)}`, {
      code: 'TORCH_TRAINER',
    });
  return events;
}
