import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CriticalState, InputError } from '../../core/index.ts';
import { createStudentPolicy, loadStudentPolicy } from '../../policy/student-policy.ts';
import { syntheticTrajectories } from '../../policy/testing/synthetic.ts';
import { METRICS } from '../../rl/index.ts';
import { RunStore } from '../../store/index.ts';
import { RL_METRICS_FILE, registerRl } from './rl.ts';

let dir: string;

async function run(args: string[]): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerRl(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'rmsweb', 'rl', ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-rl-cli-'));
  const trajectories = syntheticTrajectories(8, 3);
  const store = RunStore.open(join(dir, 'run'));
  for (const t of trajectories) store.saveTrajectory(t);
  store.close();
  // critical states built from the synthetic successes (the failure side is a stand-in: RL reads only the success side)
  const lines = trajectories.flatMap((t) =>
    t.steps.map((s, i) =>
      JSON.stringify(
        CriticalState.parse({
          id: `cs_${t.id}_${i}`,
          task: t.task,
          success: {
            trajectoryId: t.id,
            stepIndex: i,
            observation: s.observation,
            action: s.action,
            history: t.steps.slice(0, i).map((p) => p.action),
          },
          failure: {
            trajectoryId: 'other',
            stepIndex: i,
            observation: s.observation,
            action: { type: 'go_back' },
          },
          comparability: { url: 1, elements: 1, memory: 1, progress: 1, total: 1 },
          label: 'other',
          labelSource: 'test',
        }),
      ),
    ),
  );
  writeFileSync(join(dir, 'critical.jsonl'), `${lines.join('\n')}\n`);
  const sft = await createStudentPolicy({ model: { seed: 1 } });
  await sft.save(join(dir, 'sft'));
  sft.dispose();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rmsweb rl', () => {
  it('trains from critical states, saves a loadable checkpoint and the curves', async () => {
    const out = join(dir, 'out-sds');
    const text = await run([
      '--data',
      join(dir, 'critical.jsonl'),
      '--init',
      join(dir, 'sft'),
      '--out',
      out,
      '--steps',
      '3',
      '--batch',
      '4',
      '--group-size',
      '4',
      '--seed',
      '2',
      '--json',
      '--log-run',
      join(dir, 'run'),
    ]);
    const summary = JSON.parse(text);
    expect(summary).toMatchObject({ algo: 'salvage-ds', reward: 'polarized', rolloutsSampled: 3 * 4 * 4 });
    const saved = JSON.parse(readFileSync(join(out, RL_METRICS_FILE), 'utf8'));
    expect(saved.metrics).toHaveLength(3);
    expect(saved.metrics[0][METRICS.klRef]).toBe(0);
    expect(saved.metrics[2][METRICS.rolloutsTotal]).toBe(48);
    const trained = await loadStudentPolicy(out);
    const start = await loadStudentPolicy(join(dir, 'sft'));
    const w = (p: typeof trained) => p.trainableVariables().map((v) => Array.from(v.dataSync()));
    expect(w(trained)).not.toEqual(w(start));
    trained.dispose();
    start.dispose();
    const store = RunStore.open(join(dir, 'run'), { create: false, readonly: true });
    expect(store.listMetrics(`rl/salvage-ds/${out}`).map((p) => p.step)).toEqual([1, 2, 3]);
    store.close();
  });

  it('runs DAPO on the full corpus with the text-similarity reward', async () => {
    const out = join(dir, 'out-dapo');
    const text = await run([
      '--algo',
      'dapo',
      '--reward',
      'textsim',
      '--full-corpus',
      join(dir, 'run'),
      '--init',
      join(dir, 'sft'),
      '--out',
      out,
      '--steps',
      '2',
      '--batch',
      '3',
      '--group-size',
      '4',
    ]);
    // 8 synthetic successes of 4, 2, 1 and 2 steps
    expect(text).toContain('dapo (textsim) on 18 states: 2 steps');
    expect(JSON.parse(readFileSync(join(out, RL_METRICS_FILE), 'utf8')).fullCorpus).toBe(join(dir, 'run'));
  });

  it('rejects bad usage with InputError', async () => {
    const base = ['--init', join(dir, 'sft'), '--out', join(dir, 'never')];
    await expect(run(base)).rejects.toThrow(/exactly one of --data/);
    await expect(run([...base, '--data', 'a', '--full-corpus', 'b'])).rejects.toThrow(
      /exactly one of --data/,
    );
    await expect(run([...base, '--data', join(dir, 'critical.jsonl'), '--algo', 'ppo'])).rejects.toThrow(
      /option --algo: .*expected one of/,
    );
    await expect(
      run([...base, '--data', join(dir, 'critical.jsonl'), '--algo', 'grpo', '--no-salvage']),
    ).rejects.toThrow(/salvage-ds only/);
    await expect(run([...base, '--data', join(dir, 'critical.jsonl'), '--steps', '0'])).rejects.toSatisfy(
      InputError.isInstance,
    );
    await expect(run([...base, '--data', join(dir, 'missing.jsonl')])).rejects.toThrow(
      /cannot read critical states/,
    );
  });
});
