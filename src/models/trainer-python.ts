import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../core/index.ts';

/**
 * Where rmsweb's PyTorch trainer (trainer/, a Python package) lives and which interpreter runs it.
 * The TypeScript side never needs Python for its own jobs; `--backend torch` and `--agent hf:DIR`
 * do, and say exactly what is missing when it is.
 */

/** The trainer package folder (holds rmsweb_trainer/, setup.sh and the default venv). */
export const TRAINER_DIR = fileURLToPath(new URL('../../trainer/', import.meta.url));

/** The Python that runs the trainer: $RMSWEB_PYTHON, else trainer/.venv (made by trainer/setup.sh). */
export function trainerPython(): string {
  return process.env.RMSWEB_PYTHON || `${TRAINER_DIR}.venv/bin/python`;
}

/** The environment a trainer process runs with (the package importable from the checkout). */
export function trainerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const path = process.env.PYTHONPATH ? `${TRAINER_DIR}:${process.env.PYTHONPATH}` : TRAINER_DIR;
  return { ...process.env, PYTHONPATH: path, PYTHONUNBUFFERED: '1', ...extra };
}

/** What `python -m rmsweb_trainer check` reports. */
export interface TrainerEnvReport {
  python: string;
  packages: Record<string, string>;
  missing: string[];
  cuda?: boolean;
  gpus?: number;
}

/**
 * Raised when the Python environment cannot run the trainer; the message says how to fix it. The
 * environment is the user's to set up, so it is an input error (the CLI exits 2).
 */
export class TrainerEnvError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'TrainerEnvError';
  }
}

const SETUP_HINT = `create it with: bash ${TRAINER_DIR}setup.sh (or point RMSWEB_PYTHON at a Python that has the packages of trainer/requirements.txt)`;

/**
 * The error line the trainer prints before exiting 2: `error: --OPTION: MESSAGE` when the error is
 * an option's (the option comes back as the field), else `error: MESSAGE`.
 */
export function parseTrainerError(stderr: string): { message: string; field?: string } {
  const last =
    stderr
      .trim()
      .split('\n')
      .at(-1)
      ?.replace(/^error: /, '') ?? '';
  const m = /^(--[a-z][a-z-]*): (.*)$/.exec(last);
  return m ? { field: m[1], message: m[2] ?? '' } : { message: last || 'bad input' };
}

/**
 * Checks that the trainer's Python and packages are there; throws TrainerEnvError naming what is
 * missing. `accelerateConfig` is checked too (the Python side parses it as YAML/JSON); a bad one is
 * an InputError about `--accelerate-config`.
 */
export function checkTrainerEnv(o: { accelerateConfig?: string } = {}): TrainerEnvReport {
  const python = trainerPython();
  if (!process.env.RMSWEB_PYTHON && !existsSync(python))
    throw new TrainerEnvError(
      `the PyTorch trainer's Python environment is missing (${python}); ${SETUP_HINT}`,
    );
  const extra = o.accelerateConfig ? ['--accelerate-config', o.accelerateConfig] : [];
  const r = spawnSync(python, ['-m', 'rmsweb_trainer', 'check', ...extra], {
    env: trainerEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error) throw new TrainerEnvError(`cannot run ${python}: ${r.error.message}; ${SETUP_HINT}`);
  if (r.status === 2) {
    const { message, field } = parseTrainerError(r.stderr);
    throw new InputError(message, { field: field ?? '--accelerate-config' });
  }
  let report: TrainerEnvReport | undefined;
  try {
    report = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as TrainerEnvReport;
  } catch {
    throw new TrainerEnvError(
      `${python} -m rmsweb_trainer check failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-600)}; ${SETUP_HINT}`,
    );
  }
  if (report.missing.length)
    throw new TrainerEnvError(
      `${python} lacks the Python packages ${report.missing.join(', ')}; ${SETUP_HINT}`,
    );
  return report;
}

/**
 * Checks a model path the trainer will load, before anything is written: a Hugging Face folder with
 * a config.json that is a JSON object naming its model_type, or a GGUF file (it starts with the
 * bytes `GGUF`). The same checks as the trainer's `check_model_path`, so a bad path is refused here
 * as `option`, in one line, not after a Python start and a traceback.
 */
export function checkModelPath(path: string, option = '--model'): void {
  if (!existsSync(path)) throw new InputError('no such file or folder', { file: path, field: option });
  if (statSync(path).isDirectory()) {
    const config = join(path, 'config.json');
    if (!existsSync(config))
      throw new InputError('not a Hugging Face model folder (no config.json) nor a .gguf file', {
        file: path,
        field: option,
      });
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(config, 'utf8'));
    } catch (e) {
      throw new InputError(`not valid JSON (${(e as Error).message.replace(/\s+/g, ' ')})`, {
        file: config,
        field: option,
      });
    }
    const type = (parsed as { model_type?: unknown } | null)?.model_type;
    if (typeof parsed !== 'object' || parsed === null || typeof type !== 'string')
      throw new InputError('model_type is missing (not a transformers model config)', {
        file: config,
        field: option,
      });
    return;
  }
  const fd = openSync(path, 'r');
  const magic = Buffer.alloc(4);
  try {
    readSync(fd, magic, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (magic.toString('latin1') !== 'GGUF')
    throw new InputError('not a GGUF file (it does not start with GGUF) nor a Hugging Face model folder', {
      file: path,
      field: option,
    });
}
