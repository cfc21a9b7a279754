import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

/** Raised when the Python environment cannot run the trainer; the message says how to fix it. */
export class TrainerEnvError extends Error {
  override readonly name = 'TrainerEnvError';
}

const SETUP_HINT = `create it with: bash ${TRAINER_DIR}setup.sh (or point RMSWEB_PYTHON at a Python that has the packages of trainer/requirements.txt)`;

/** Checks that the trainer's Python and packages are there; throws TrainerEnvError naming what is missing. */
export function checkTrainerEnv(): TrainerEnvReport {
  const python = trainerPython();
  if (!process.env.RMSWEB_PYTHON && !existsSync(python))
    throw new TrainerEnvError(
      `the PyTorch trainer's Python environment is missing (${python}); ${SETUP_HINT}`,
    );
  const r = spawnSync(python, ['-m', 'rmsweb_trainer', 'check'], {
    env: trainerEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error) throw new TrainerEnvError(`cannot run ${python}: ${r.error.message}; ${SETUP_HINT}`);
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
