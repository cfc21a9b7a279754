import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLmAction } from '../../agent/lm-prompt.ts';
import type { Task } from '../../core/task.ts';
import { trainerPython } from '../../models/trainer-python.ts';
import { threadsPerWorker } from '../runtime.ts';
import { lmStageResults } from './lm-demo.ts';
import { chooseMode, daggerTasks, lmRoute, sftRates } from './lm-stages.ts';
import { PRESETS, presetByName } from './presets.ts';
import { lmTinyDemo, makeTinyLm } from './testing/lm-tiny-demo.ts';

/**
 * `rmsweb demo --preset lm-tiny --model <tiny random LM>`: every stage of the lm preset end to end
 * (collection, lm export, the LoRA-or-full choice, torch SFT, lm:hf rollouts, mining, export rl
 * --format lm, torch Salvage-DS, the three evaluations, the report) in a real browser against the
 * offline world, then a rerun that must skip every finished stage. Adding training seeds and the
 * RL ablation rows to a finished folder is checked in lm-demo-extend.long.test.ts (npm run test:long).
 */

const python = trainerPython();
const hasPython = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);
const mustRun = Boolean(process.env.CI);

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-lm-demo-'));
const out = join(dir, 'demo');
const model = join(dir, 'tiny');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const demo = (...extra: string[]) => lmTinyDemo(model, out, ...extra);

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
    expect(presetByName('lm-tiny').lm?.finetune).toBe('lora');
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

  it("gives each DAgger round the next train tasks after the earlier rounds', wrapping around", () => {
    const train = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }) as unknown as Task);
    const ids = (r: number, n: number) => daggerTasks(train, r, n).map((t) => t.id);
    expect(ids(1, 2)).toEqual(['a', 'b']); // the rollout stage's tasks
    expect(ids(2, 2)).toEqual(['c', 'd']);
    expect(ids(3, 2)).toEqual(['e', 'a']);
    expect(ids(2, 9)).toEqual(['e', 'a', 'b', 'c', 'd']); // more than there are: each task once
    expect(PRESETS.lm.lm?.dagger.rounds).toBe(3);
  });

  it('names the rows of the table by what each evaluated', () => {
    const e = (label: string) =>
      ({ label, summary: { pass1: { mean: 0 } } }) as unknown as Parameters<typeof lmStageResults>[0][number];
    const rows = lmStageResults(
      [e('lm-base'), e('lm-sft'), e('lm-sft-seed1'), e('lm-dagger'), e('lm-salvage-ds')],
      { chosen: 'lora', how: 'fixed', valTasks: [], trainRows: 0, valSteps: 0, trials: [] },
      { overall: { taskSuccessRate: 0.9 } } as never,
    );
    expect(rows.map((r) => r.stage)).toEqual([
      'base LM (no fine-tuning)',
      'SFT',
      'SFT (training seed +1)',
      'SFT + relabelling (DAgger)',
      'SFT + Salvage-DS',
    ]);
  });
});

describe.skipIf(!hasPython && !mustRun)('rmsweb demo --preset lm-tiny (tiny random LM)', () => {
  let first: ReturnType<typeof demo>;

  beforeAll(() => {
    makeTinyLm(dir);
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
      'lm-sft',
      'lm-rollout',
      'lm-dagger-sft1',
      'lm-dagger-rollout2',
      'lm-dagger-sft2',
      'eval-lm-dagger',
      'mine',
      'eval-lm-base',
      'eval-lm-sft',
    ])
      expect(report.timings[stage], stage).toBeGreaterThanOrEqual(0);
    expect(report.lead).toMatch(/went from [\d.]+% \(base\) to [\d.]+% after SFT/);
    const lines = report.sections.find((s) => s.title === 'LM student')?.lines.join('\n') ?? '';
    // lm-tiny fixes LoRA, as lm does (the choice runs in lm-demo-extend.long.test.ts).
    expect(lines).toContain('- fine-tuning mode fixed: lora (no validation choice run)');
    // lm-tiny's loraLayers 1: LoRA on the top layer of two, the one below cached per row
    const adapter = JSON.parse(
      readFileSync(join(out, 'models', 'lm-sft', 'adapter', 'adapter_config.json'), 'utf8'),
    ) as { layers_to_transform?: number[] };
    expect(adapter.layers_to_transform).toEqual([1]);
    expect(first.stdout).toContain('| base LM (no fine-tuning) |');
    // DAgger: round 2's rows hold round 1's labelled states and those of round 1's student's own
    // rollouts (each row the teacher's action: export-sft.test.ts), plus the sampled SFT rows
    expect(names).toContain('SFT + relabelling (DAgger)');
    type Row = { id: string; prompt: string; completion: string };
    const rowsOf = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);
    const [one, two] = [1, 2].map((r) => rowsOf(join(out, 'exports', `lm-dagger${r}`, 'train.jsonl')));
    expect(one!.length).toBeGreaterThan(0);
    expect(two!.length).toBeGreaterThan(one!.length);
    expect(two!.slice(0, one!.length).map((r) => r.id)).toEqual(one!.map((r) => r.id));
    // The export leaves out the teacher's give-ups (export-sft.test.ts); repeats are one row.
    const givesUp = (r: Row) => {
      const a = parseLmAction(r.completion);
      return a.type === 'done' && !a.success;
    };
    expect(two!.filter(givesUp)).toEqual([]);
    const unique = new Set(two!.map((r) => `${r.prompt}\u0000${r.completion}`)).size;
    const trained = rowsOf(join(out, 'lm', 'dagger2-data.jsonl'));
    expect(trained).toHaveLength(unique + PRESETS['lm-tiny'].lm!.dagger.collectionRows);
    expect(lines).toMatch(
      /- DAgger round 1: the SFT student solved \d+\/2 train tasks \(the rollouts above\); the teacher labelled \d+ states/,
    );
    expect(lines).toMatch(
      /- DAgger round 2: round 1's student solved \d+\/2 train tasks new to the rounds; the teacher labelled \d+ states/,
    );
    // the diagnosis beside the table: how each evaluation's episodes ended
    const md = readFileSync(join(out, 'lm-student.md'), 'utf8');
    expect(md).toContain('## How the episodes ended');
    expect(md).toMatch(/\| lm-sft \| 2 \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| [\d.]+ \| [\d.]+ \|/);
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
});
