import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainerEnv, trainerPython } from '../../models/trainer-python.ts';
import { threadsPerWorker } from '../runtime.ts';
import { lmStageResults } from './lm-demo.ts';
import { chooseMode, lmRoute, sftRates } from './lm-stages.ts';
import { PRESETS, presetByName } from './presets.ts';

/**
 * `rmsweb demo --preset lm-tiny --model <tiny random LM>`: every stage of the lm preset end to end
 * (collection, lm export, the LoRA-or-full choice, torch SFT, lm:hf rollouts, mining, export rl
 * --format lm, torch Salvage-DS, the three evaluations, the report) in a real browser against the
 * offline world, then a rerun that must skip every finished stage.
 */

const python = trainerPython();
const hasPython = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);
const mustRun = Boolean(process.env.CI);

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-lm-demo-'));
const out = join(dir, 'demo');
const model = join(dir, 'tiny');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function demo(...extra: string[]) {
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    ['bin/rmsweb.js', 'demo', '--preset', 'lm-tiny', '--model', model, '--out', out, ...extra],
    { encoding: 'utf8', timeout: 560_000, env: { ...process.env, FORCE_COLOR: '0' } },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (performance.now() - t0) / 1000 };
}

describe('the lm presets', () => {
  it('size the lm preset inside the issue budget and keep quick collection', () => {
    const lm = PRESETS.lm;
    const quick = PRESETS.quick;
    expect(lm.trainTasks).toBe(quick.trainTasks);
    expect(lm.sites).toEqual(quick.sites);
    expect({ ...lm.collect, screenshots: true }).toEqual(quick.collect);
    expect(lm.eval.testTasks).toBe(quick.eval.testTasks);
    expect(lm.lm?.finetune).toBe('lora');
    expect(presetByName('lm-tiny').lm?.seeds).toBe(1);
  });

  it('gives each model process of the lm stages a fair share of the cores, at least one', () => {
    expect(threadsPerWorker(1)).toBe(availableParallelism());
    expect(threadsPerWorker(availableParallelism())).toBe(1);
    expect(threadsPerWorker(10_000)).toBe(1);
  });

  it('counts only the steps a resumed SFT run trained in its rates', () => {
    const step = (n: number) => ({ event: 'step', step: n, tokens: 100 });
    // 8 rows x 2 epochs, batch 2: 8 steps in one go, or steps 6-8 after a checkpoint at step 5
    const whole = sftRates([1, 2, 3, 4, 5, 6, 7, 8].map(step), 8, 2, 2, 16);
    expect(whole).toEqual({ rowsPerSecond: 1, tokensPerSecond: 50 });
    const resumed = sftRates([6, 7, 8].map(step), 8, 2, 2, 6);
    expect(resumed).toEqual({ rowsPerSecond: 1, tokensPerSecond: 50, resumedFromStep: 5 });
  });

  it('chooses full fine-tuning only when it scores better on the validation steps', () => {
    const t = (mode: 'lora' | 'full', equivalent: number, exact = equivalent) => ({
      mode,
      equivalent,
      exact,
    });
    expect(chooseMode([t('lora', 0.5), t('full', 0.5)])).toBe('lora');
    expect(chooseMode([t('lora', 0.5), t('full', 0.6)])).toBe('full');
    expect(chooseMode([t('lora', 0.5, 0.4), t('full', 0.5, 0.5)])).toBe('full');
    expect(chooseMode([t('lora', 0.6), t('full', 0.5, 0.9)])).toBe('lora');
  });

  it('runs a model through llama.cpp only when one adapter over the GGUF base makes it', () => {
    const lm = { ...PRESETS.lm.lm!, model: '/m/base.gguf', inference: 'llama' as const };
    expect(lmRoute(lm, { dir: '/m/base.gguf', adapters: [] }).route).toBe('llama');
    expect(lmRoute(lm, { dir: '/r/lm-sft', adapters: ['/r/lm-sft'] }).route).toBe('llama');
    expect(lmRoute(lm, { dir: '/r/lm-sft', adapters: [] })).toEqual({
      route: 'hf',
      why: 'a fully fine-tuned student has no LoRA adapter for llama.cpp',
    });
    expect(lmRoute(lm, { dir: '/r/rl', adapters: ['/r/lm-sft', '/r/rl'] }).why).toMatch(/stacks 2/);
    expect(lmRoute({ ...lm, inference: 'hf' }, { dir: '/r/lm-sft', adapters: ['/r/lm-sft'] }).route).toBe(
      'hf',
    );
  });

  it('names the rows of the table by what each evaluated', () => {
    const e = (label: string) =>
      ({ label, summary: { pass1: { mean: 0 } } }) as unknown as Parameters<typeof lmStageResults>[0][number];
    const rows = lmStageResults(
      [e('lm-base'), e('lm-sft'), e('lm-sft-seed1'), e('lm-salvage-ds')],
      { chosen: 'lora', how: 'fixed', valTasks: [], trainRows: 0, valSteps: 0, trials: [] },
      { overall: { taskSuccessRate: 0.9 } } as never,
    );
    expect(rows.map((r) => r.stage)).toEqual([
      'base LM (no fine-tuning)',
      'SFT',
      'SFT (training seed +1)',
      'SFT + Salvage-DS',
    ]);
  });
});

describe.skipIf(!hasPython && !mustRun)('rmsweb demo --preset lm-tiny (tiny random LM)', () => {
  let first: ReturnType<typeof demo>;

  beforeAll(() => {
    // A tiny random Llama whose byte-level tokenizer is trained on lm-layout text (no download).
    const rows = [
      '{"click":{"index":12}}',
      '{"input":{"index":3,"text":"pasta"}}',
      '{"done":{"text":"42"}}',
    ].map((a, i) =>
      JSON.stringify({
        messages: [
          {
            role: 'user',
            content: `Task: find recipe ${i}\nURL: http://127.0.0.1/mail\nElements:\n[${i}] <button> Compose\nAction: `,
          },
          { role: 'assistant', content: a },
        ],
      }),
    );
    writeFileSync(join(dir, 'tok.jsonl'), `${rows.join('\n')}\n`);
    const r = spawnSync(
      python,
      ['-m', 'rmsweb_trainer', 'tiny', '--out', model, '--data', join(dir, 'tok.jsonl')],
      {
        encoding: 'utf8',
        env: trainerEnv(),
      },
    );
    expect(r.status, r.stderr).toBe(0);
    first = demo();
  }, 600_000);

  it('runs every stage and writes the report with the three rows', () => {
    expect(first.status, first.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report', 'report.json'), 'utf8')) as {
      stages: Array<{ stage: string }>;
      timings: Record<string, number>;
      lead: string;
      sections: Array<{ title: string; lines: string[] }>;
      mining: { criticalStates: number };
    };
    const names = report.stages.map((s) => s.stage);
    expect(names.slice(0, 2)).toEqual(['base LM (no fine-tuning)', 'SFT']);
    if (report.mining.criticalStates > 0) expect(names).toContain('SFT + Salvage-DS');
    for (const stage of [
      'collect',
      'lm-export-sft',
      'lm-choose-finetune',
      'lm-sft',
      'lm-rollout',
      'mine',
      'eval-lm-base',
      'eval-lm-sft',
    ])
      expect(report.timings[stage], stage).toBeGreaterThanOrEqual(0);
    expect(report.lead).toMatch(/went from [\d.]+% \(base\) to [\d.]+% after SFT/);
    const lines = report.sections.find((s) => s.title === 'LM student')?.lines.join('\n') ?? '';
    // lm-tiny chooses: both modes trained and scored on the held-out train task's steps.
    expect(lines).toMatch(
      /LoRA or full \(a small-budget proxy of the SFT run\): both trained on the same \d+ rows/,
    );
    expect(lines).toMatch(/lora \(lr [\d.e-]+\) equivalent/);
    expect(lines).toMatch(/full \(lr [\d.e-]+\) equivalent/);
    expect(first.stdout).toContain('| base LM (no fine-tuning) |');
  });

  it('skips every finished stage on a rerun, and refuses other lm settings for the folder', () => {
    const again = demo();
    expect(again.status, again.stderr.slice(-3000)).toBe(0);
    expect(again.stderr).not.toMatch(/\] running/);
    expect(again.stdout).toMatch(/resumed: \d+ stage\(s\) finished earlier were skipped/);
    const other = demo('--lm-finetune', 'full');
    expect(other.status).toBe(2);
    expect(other.stderr).toContain('made with other settings');
    // A folder whose lm rows are in an older compact layout is refused, not prompted in this one.
    const manifest = join(out, 'exports', 'lm', 'export.json');
    const written = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(written), lmPromptVersion: 1 }));
    try {
      const older = demo();
      expect(older.status).toBe(2);
      expect(older.stderr).toMatch(/lm rows are in layout version 1, this code's is \d+/);
    } finally {
      writeFileSync(manifest, written);
    }
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
