import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { InputError, RmswebError } from '../core/index.ts';
import {
  checkTrainerEnv,
  type TrainerEnvReport,
  trainerEnv,
  trainerPython,
} from '../models/trainer-python.ts';

/**
 * Runs the PyTorch trainer (`python -m rmsweb_trainer rl|sft ...`) for `--backend torch`: checks
 * the Python environment first (saying what is missing), streams the trainer's metrics JSONL back
 * as it grows, and maps the trainer's exit codes onto rmsweb's (2 bad input, 1 anything else).
 */

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
}

/** Checks the Python side; a missing environment is the user's to fix, so it is an input error. */
export function requireTorchTrainer(): TrainerEnvReport {
  try {
    return checkTrainerEnv();
  } catch (e) {
    throw new InputError(`--backend torch: ${(e as Error).message}`, { field: 'backend' });
  }
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

/** Runs the trainer to completion; resolves with every event it logged. */
export async function runTorchTrainer(o: TorchRunOptions): Promise<TrainerEvent[]> {
  rmSync(o.metricsFile, { force: true });
  const python = trainerPython();
  const base = [...o.args, '--metrics', o.metricsFile];
  const argv =
    o.nproc && o.nproc > 1
      ? [
          '-m',
          'torch.distributed.run',
          '--standalone',
          `--nproc-per-node=${o.nproc}`,
          '-m',
          'rmsweb_trainer',
          ...base,
        ]
      : ['-m', 'rmsweb_trainer', ...base];
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
    const timer = setInterval(drain, 500);
    proc.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-8000);
      if (o.verbose) process.stderr.write(d);
    });
    proc.on('error', (e) => {
      clearInterval(timer);
      reject(e);
    });
    proc.on('exit', (c, signal) => {
      clearInterval(timer);
      resolve(c ?? (signal ? 128 : 1));
    });
  });
  drain();
  if (code === 2) {
    const msg =
      stderr
        .trim()
        .split('\n')
        .at(-1)
        ?.replace(/^error: /, '') ?? 'bad input';
    throw new InputError(`torch trainer: ${msg}`, { field: 'data' });
  }
  if (code !== 0)
    throw new RmswebError(`torch trainer exited with ${code}:\n${stderr.trim().slice(-3000)}`, {
      code: 'TORCH_TRAINER',
    });
  return events;
}
