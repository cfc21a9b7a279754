import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { loadStudentPolicy } from '../../policy/student-policy.ts';
import { syntheticTrajectories } from '../../policy/testing/synthetic.ts';
import { RunStore } from '../../store/index.ts';
import { registerTrain } from './train.ts';

let dir: string;

async function run(args: string[]): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerTrain(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'rmsweb', 'train', 'sft', ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-train-cli-'));
  const store = RunStore.open(join(dir, 'run'));
  for (const t of syntheticTrajectories(12, 8)) store.saveTrajectory(t);
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rmsweb train sft', () => {
  it('trains, prints per-epoch accuracy lines, writes a checkpoint, and resumes', async () => {
    const out = join(dir, 'models', 'sft');
    const text = await run([
      '--run',
      join(dir, 'run'),
      '--out',
      out,
      '--epochs',
      '1',
      '--batch',
      '8',
      '--val-frac',
      '0.25',
      '--quiet',
    ]);
    expect(text).toBe('');
    const json = JSON.parse(
      await run([
        '--run',
        join(dir, 'run'),
        '--out',
        out,
        '--epochs',
        '2',
        '--batch',
        '8',
        '--val-frac',
        '0.25',
        '--resume',
        '--json',
      ]),
    );
    expect(json.epochs.map((e: { epoch: number }) => e.epoch)).toEqual([1, 2]);
    expect(json.data.valTasks).toBe(3);
    expect(json.final.valStepAccuracy).toBeGreaterThanOrEqual(0);
    for (const f of ['config.json', 'weights.json', 'weights.bin', 'metrics.json'])
      expect(existsSync(join(out, f))).toBe(true);
    const metrics = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
    expect(metrics.epochs).toHaveLength(2);
    const policy = await loadStudentPolicy(out);
    expect(policy.actionTypes).toContain('click');
    policy.dispose();
    const lines = await run([
      '--run',
      join(dir, 'run'),
      '--out',
      join(dir, 'models', 'b'),
      '--epochs',
      '1',
      '--batch',
      '8',
    ]);
    expect(lines).toMatch(/epoch 1\/1 .*train acc \d+\.\d%.*val acc \d+\.\d%/);
  });

  it('rejects a bad run folder and an existing checkpoint without --resume', async () => {
    await expect(
      run(['--run', join(dir, 'nope'), '--out', join(dir, 'm2'), '--quiet']),
    ).rejects.toBeInstanceOf(InputError);
    await expect(
      run(['--run', join(dir, 'run'), '--out', join(dir, 'models', 'sft'), '--quiet']),
    ).rejects.toThrow(/--resume/);
    await expect(run(['--out', join(dir, 'm3')])).rejects.toThrow(/--run/);
  });

  it('--resume with changed hyperparameters is refused, naming them, and metrics.json is untouched', async () => {
    const out = join(dir, 'models', 'sft');
    const before = readFileSync(join(out, 'metrics.json'), 'utf8');
    const args = ['--run', join(dir, 'run'), '--out', out, '--epochs', '3', '--val-frac', '0.25', '--resume'];
    await expect(run([...args, '--batch', '8', '--lr', '0.01', '--quiet'])).rejects.toThrow(
      /changed: --lr 0\.01 \(was 0\.004\)\. Drop those options/,
    );
    await expect(run([...args, '--batch', '16', '--seed', '3', '--quiet'])).rejects.toThrow(
      /changed: --batch 16 \(was 8\), --seed 3 \(was 0\)/,
    );
    expect(readFileSync(join(out, 'metrics.json'), 'utf8')).toBe(before);
  });

  it('adds relabelled rollouts with --relabeled and refuses a folder that has none', async () => {
    const dag = join(dir, 'dagger');
    const store = RunStore.open(dag);
    for (const t of syntheticTrajectories(6, 9))
      store.saveTrajectory({
        ...t,
        verdict: { ...t.verdict!, success: false },
        steps: t.steps.map((s) => ({ ...s, expertAction: s.action })),
      });
    store.close();
    const common = ['--run', join(dir, 'run'), '--epochs', '1', '--batch', '8', '--val-frac', '0.25'];
    const json = JSON.parse(await run([...common, '--relabeled', dag, '--out', join(dir, 'm4'), '--json']));
    expect(json.data.expertExamples).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(dir, 'm4', 'metrics.json'), 'utf8')).data.expertExamples).toBe(
      json.data.expertExamples,
    );
    await expect(
      run([...common, '--relabeled', join(dir, 'run'), '--out', join(dir, 'm5'), '--quiet']),
    ).rejects.toThrow(/no relabelled rollouts/);
  });
});
