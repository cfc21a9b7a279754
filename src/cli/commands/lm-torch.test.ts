import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmAgent } from '../../agent/lm-agent.ts';
import { lmReplyText } from '../../agent/lm-prompt.ts';
import { exportSft, readJsonl } from '../../data/export-sft.ts';
import { buildCollection, buildRelabeledRollout, criticalFrom, EXPERT_ACTION } from '../../data/fixtures.ts';
import type { HfCompletionModel } from '../../models/hf-completion-model.ts';
import { trainerEnv, trainerPython } from '../../models/trainer-python.ts';
import { RunStore } from '../../store/index.ts';
import { resolveAgent } from '../runtime.ts';
import { rlTorchCommand } from './rl-torch.ts';
import { sftTorchCommand } from './train-torch.ts';

/**
 * The LM student's recipe in-process, as a pipeline calls it (no CLI subprocess): a run's verified
 * successes as lm SFT rows -> sftTorchCommand -> mined states exported as lm RL rows by
 * rlTorchCommand -> `--agent lm:hf:DIR` acting through the result. A tiny random causal LM (no
 * download); quality is not the point. Skipped without the trainer's venv, as the pytest suite is.
 */
const python = trainerPython();
const present = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);

describe.skipIf(!present && !process.env.CI)('lm student through sftTorchCommand and rlTorchCommand', () => {
  let root: string;
  let run: string;
  let tiny: string;
  let critical: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'rmsweb-lm-torch-'));
    run = join(root, 'run');
    await buildCollection(run);
    const store = RunStore.open(run, { readonly: true });
    critical = join(root, 'critical.jsonl');
    const states = [criticalFrom(store, 'tA_r1', 'tA_r0', 1), criticalFrom(store, 'tB_r0', 'tA_r0', 1)];
    store.close();
    writeFileSync(critical, `${states.map((s) => JSON.stringify(s)).join('\n')}\n`);
    // the tiny model's tokenizer learns the lm rows' text
    const sft = exportSft({ runs: [run], format: 'lm', out: join(root, 'sft-lm'), promptTokens: 300 });
    tiny = join(root, 'tiny');
    const r = spawnSync(python, ['-m', 'rmsweb_trainer', 'tiny', '--out', tiny, '--data', sft.out], {
      encoding: 'utf8',
      env: trainerEnv({ OMP_NUM_THREADS: '1' }),
    });
    expect(r.status, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('refuses --format with --data, and --prompt-tokens without --format lm, before creating --out', async () => {
    const base = { run: [], model: tiny, epochs: 1, batch: 4, lr: 1e-3, seed: 0, valFrac: 0 };
    const flags = { lora: false, progress: false, quiet: true, json: false, verbose: false };
    const out = join(root, 'refused');
    await expect(
      sftTorchCommand({ ...base, ...flags, out, data: join(root, 'sft-lm'), format: 'lm' }),
    ).rejects.toThrow(/--format says how to export --run/);
    await expect(
      sftTorchCommand({ ...base, ...flags, out, run: [run], format: 'trl', promptTokens: 300 }),
    ).rejects.toThrow(/--prompt-tokens applies to --format lm only/);
    await expect(
      rlTorchCommand({
        algo: 'grpo',
        reward: 'polarized',
        salvage: true,
        model: tiny,
        data: critical,
        out,
        promptTokens: '300',
      }),
    ).rejects.toThrow(/--prompt-tokens applies to --format lm only/);
    expect(existsSync(out)).toBe(false);
  });

  it('DAgger: --relabeled adds the expert-labelled steps of rollouts to the lm rows, with or without --run', async () => {
    const rollDir = join(root, 'rollout-relabel');
    buildRelabeledRollout(rollDir, run);
    const base = { model: tiny, epochs: 1, batch: 4, lr: 1e-3, seed: 0, valFrac: 0, promptTokens: 300 };
    const flags = { lora: false, progress: false, quiet: true, json: false, verbose: false };
    const refused = join(root, 'refused-relabel');
    await expect(
      sftTorchCommand({ ...base, ...flags, out: refused, run: [run], relabeled: [rollDir], format: 'trl' }),
    ).rejects.toThrow(/--relabeled with --format lm only/);
    await expect(
      sftTorchCommand({
        ...base,
        ...flags,
        out: refused,
        run: [],
        data: join(root, 'sft-lm'),
        relabeled: [rollDir],
      }),
    ).rejects.toThrow(/--relabeled is exported with --run/);
    expect(existsSync(refused)).toBe(false);

    const both = await sftTorchCommand({
      ...base,
      ...flags,
      out: join(root, 'sft-dagger'),
      run: [run],
      relabeled: [rollDir],
      format: 'lm',
    });
    const successes = readJsonl(join(root, 'sft-dagger', 'lm', 'train.jsonl'));
    const rows = readJsonl(both.data) as Array<{ id: string; completion: string }>;
    expect(both.data).toBe(join(root, 'sft-dagger', 'lm-train.jsonl'));
    expect(rows).toHaveLength(successes.length + 1);
    expect(rows.at(-1)).toMatchObject({ id: 'roll_A0:1', completion: lmReplyText(EXPERT_ACTION) });
    expect(both.epochs).toHaveLength(1);

    const only = await sftTorchCommand({
      ...base,
      ...flags,
      out: join(root, 'sft-dagger-only'),
      run: [],
      relabeled: [rollDir],
      format: 'lm',
    });
    expect(readJsonl(only.data)).toHaveLength(1);
  }, 120_000);

  it('trains SFT on lm rows, then Salvage-DS on mined states exported as lm rows, and acts through lm:hf:DIR', async () => {
    const sftOut = join(root, 'sft');
    const sft = await sftTorchCommand({
      run: [run],
      format: 'lm',
      promptTokens: 300,
      model: tiny,
      out: sftOut,
      epochs: 1,
      batch: 4,
      lr: 1e-3,
      seed: 0,
      valFrac: 0,
      lora: false,
      gradientCheckpointing: true,
      progress: false,
      quiet: true,
      json: false,
      verbose: false,
    });
    expect(sft.out).toBe(sftOut);
    expect(sft.data).toBe(join(sftOut, 'lm', 'train.jsonl'));
    expect(sft.epochs).toHaveLength(1);
    expect(Number(sft.epochs[0]['losses/train'])).toBeGreaterThan(0);
    const meta = JSON.parse(readFileSync(join(sftOut, 'rmsweb-trainer.json'), 'utf8'));
    expect(meta).toMatchObject({ layout: 'lm', promptTokens: 300 });
    expect(meta.options.gradientCheckpointing).toBe(true); // the flag reached TRL's config

    const rlOut = join(root, 'rl');
    const events = await rlTorchCommand({
      algo: 'salvage-ds',
      reward: 'polarized',
      salvage: true,
      model: sftOut,
      data: critical,
      run: [run],
      format: 'lm',
      promptTokens: '300',
      out: rlOut,
      steps: '1',
      batch: '2',
      groupSize: '2',
      maxNewTokens: '8',
      lr: '1e-4',
      gradientCheckpointing: true,
      // LoRA on the top layer only: the flag reaches the trainer's LoraConfig (peft refuses it
      // beside target_modules "all-linear", which RL used to pass)
      lora: true,
      loraLayers: '1',
      quiet: true,
    });
    expect(events.filter((e) => e.event === 'step')).toHaveLength(1);
    // a finished run leaves no resume points behind (trainer/tests check they are kept and resumed)
    expect(existsSync(join(sftOut, 'checkpoints'))).toBe(false);
    expect(existsSync(join(rlOut, 'checkpoints'))).toBe(false);
    const rows = readJsonl(join(rlOut, 'rl-data.jsonl')) as Array<{ prompt: unknown; extra_info: any }>;
    expect(rows).toHaveLength(2);
    expect(typeof rows[0].prompt).toBe('string');
    expect(rows[0].extra_info).toMatchObject({ layout: 'lm', promptTokens: 300 });
    expect(JSON.parse(readFileSync(join(rlOut, 'rmsweb-trainer.json'), 'utf8'))).toMatchObject({
      layout: 'lm',
      promptTokens: 300,
      algo: 'salvage-ds',
      options: { gradientCheckpointing: true, lora: true, loraLayers: 1 },
    });

    const agent = await resolveAgent(`lm:hf:${rlOut}`);
    expect(agent).toBeInstanceOf(LmAgent);
    const store = RunStore.open(run, { readonly: true });
    const t = store.getTrajectory('tA_r1');
    store.close();
    if (!t) throw new Error('fixture trajectory tA_r1 is missing');
    try {
      const d = await agent.act({ task: t.task, observation: t.steps[0].observation, history: [] });
      expect(d.actions).toHaveLength(1);
      // the checkpoint's budget (300) is the one LmAgent renders with
      expect((agent as unknown as { promptTokens: number }).promptTokens).toBe(300);
    } finally {
      (agent as unknown as { opts: { model: HfCompletionModel } }).opts.model.close();
    }
  }, 400_000);
});
