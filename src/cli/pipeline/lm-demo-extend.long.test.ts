import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lmTinyDemo, makeTinyLm } from './testing/lm-tiny-demo.ts';

/**
 * `demo --preset lm-tiny --lm-finetune auto`: the LoRA-or-full choice on the validation split runs
 * end to end; then the finished folder is raised to two training seeds and the RL ablation rows:
 * only their stages run, and results/lm-student.md gains their rows and paired CIs. In the long
 * suite (`npm run test:long`): it is eight more model stages after the first run's twelve, more than
 * CI's budget holds beside the rest; lm-demo.test.ts checks a first run and its resume in CI.
 */
const dir = mkdtempSync(join(tmpdir(), 'rmsweb-lm-extend-'));
const out = join(dir, 'demo');
let model = '';
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const demo = (...extra: string[]) => lmTinyDemo(model, out, '--lm-finetune', 'auto', ...extra);

describe('rmsweb demo --preset lm-tiny, extended on a finished folder', () => {
  beforeAll(() => {
    model = makeTinyLm(dir);
    const first = demo();
    expect(first.status, first.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report', 'report.json'), 'utf8')) as {
      timings: Record<string, number>;
      sections: Array<{ title: string; lines: string[] }>;
    };
    expect(report.timings['lm-choose-finetune']).toBeGreaterThanOrEqual(0);
    // both modes trained and scored on the held-out train task's steps
    const lines = report.sections.find((s) => s.title === 'LM student')?.lines.join('\n') ?? '';
    expect(lines).toMatch(
      /LoRA or full \(a small-budget proxy of the SFT run\): both trained on the same \d+ rows/,
    );
    expect(lines).toMatch(/lora \(lr [\d.e-]+\) equivalent/);
    expect(lines).toMatch(/full \(lr [\d.e-]+\) equivalent/);
  }, 600_000);

  it('adds a training seed and the RL ablation rows to the finished folder, running only their stages', () => {
    const results = join(dir, 'results');
    const more = demo('--lm-seeds', '2', '--lm-ablation', '--results', results);
    expect(more.status, more.stderr.slice(-3000)).toBe(0);
    const ran = [...more.stderr.matchAll(/^\[([\w-]+)\] running$/gm)].map((m) => m[1]);
    const mined = (
      JSON.parse(readFileSync(join(out, 'report', 'report.json'), 'utf8')) as {
        mining: { criticalStates: number };
      }
    ).mining.criticalStates;
    expect(ran).toEqual(
      mined > 0
        ? [
            'lm-rl-nosalvage',
            'eval-lm-nosalvage',
            'lm-rl-grpo-exact',
            'eval-lm-grpo-exact',
            'lm-sft-seed1',
            'lm-rl-salvage-ds-seed1',
            'eval-lm-sft-seed1',
            'eval-lm-salvage-ds-seed1',
          ]
        : ['lm-sft-seed1', 'eval-lm-sft-seed1'],
    );
    const md = readFileSync(join(results, 'lm-student.md'), 'utf8');
    expect(md).toMatch(/\| SFT \| 0, 1 \| [\d.]+% ± [\d.]+ \|/);
    // both invocations are recorded; the stages of the first finished before the list existed
    expect(md).toContain('`rmsweb demo --preset lm-tiny');
    expect(md).toMatch(/\| lm-sft-seed1 \| \d+ \| [\d.]+ \| [0-9a-f]{7} \|/);
    expect(md).not.toContain(dir);
    if (mined > 0) {
      expect(md).toMatch(/\| SFT \+ Salvage-DS \(mined states\) \| 0, 1 \| .* \| reference \|/);
      expect(md).toMatch(/\| SFT \+ GRPO, exact-match reward \(mined states\) \| 0 \| .* pts \[.* pts\] \|/);
      expect(md).toContain('Salvage-DS without salvage (seed 0)');
    }
    expect(more.stdout).toContain('paired by test task against Salvage-DS');
    // lowering the seeds again is a resume of the same folder, not another experiment
    const back = demo();
    expect(back.status, back.stderr.slice(-3000)).toBe(0);
    expect(back.stderr).not.toMatch(/\] running/);
  }, 900_000);
});
