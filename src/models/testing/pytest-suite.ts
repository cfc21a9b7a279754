import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRAINER_DIR, trainerEnv, trainerPython } from '../trainer-python.ts';

/**
 * A vitest test that runs part of the PyTorch trainer's pytest suite (trainer/tests), `select`
 * being pytest's arguments after the common ones (a `-k` expression, files). CI (.ci/run) creates
 * the venv first (trainer/setup.sh); elsewhere, without the venv, the part is skipped with a visible
 * reason rather than passed silently. The suite is split in parts so that vitest can run its slow
 * real-model part beside the rest.
 */
export function pytestSuite(title: string, select: string[]): void {
  const python = trainerPython();
  const present = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);
  describe(title, () => {
    if (!present && !process.env.CI) {
      it.skip(`SKIPPED: no trainer venv at ${python}; run bash trainer/setup.sh to include the Python tests`, () => {});
      return;
    }
    it(
      'passes',
      () => {
        expect(present, `CI must set up ${python} (bash trainer/setup.sh) before npm test`).toBe(true);
        const r = spawnSync(
          python,
          ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--durations=8', ...select],
          {
            cwd: TRAINER_DIR,
            env: trainerEnv({ OMP_NUM_THREADS: '1' }),
            encoding: 'utf8',
            timeout: 20 * 60_000,
          },
        );
        const out = `${r.stdout}\n${r.stderr}`;
        const summary = out.trim().split('\n').at(-1) ?? '';
        // The slowest tests, so a CI log shows where the suite's minutes go.
        const slowest = out.match(/=+ slowest[^\n]*\n([\s\S]*?)\n(?:=|\n)/)?.[1] ?? '';
        process.stdout.write(`pytest ${select.join(' ')}: ${summary}\n${slowest}\n`);
        expect(r.status, out.slice(-6000)).toBe(0);
        expect(summary).toMatch(/\d+ passed/);
      },
      25 * 60_000,
    );
  });
}
