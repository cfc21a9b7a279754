import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import type { RateOverRuns } from '../../eval/metrics.ts';
import { RunStore } from '../../store/run-store.ts';
import { runAblation } from './ablate.ts';
import { type AblationRowResult, ablationMarkdown, checkTargets, type RowId } from './ablation-table.ts';
import { PipelineContext } from './context.ts';
import { PRESETS, presetByName, rlSteps } from './presets.ts';
import { PipelineInterrupted, readStageRecord, StageRunner } from './stage.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-pipeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('presets', () => {
  it('budgets RL in passes over the states, clamped', () => {
    const rl = { epochs: 4, minSteps: 10, maxSteps: 400, batchSize: 8, groupSize: 8 };
    expect(rlSteps(rl, 40)).toBe(20);
    expect(rlSteps(rl, 2)).toBe(10);
    expect(rlSteps(rl, 5000)).toBe(400);
  });
  it('grows from tiny to full and rejects unknown names', () => {
    expect(PRESETS.tiny.trainTasks).toBeLessThan(PRESETS.quick.trainTasks);
    expect(PRESETS.quick.trainTasks).toBeLessThan(PRESETS.full.trainTasks);
    expect(PRESETS.full.eval.runs).toBe(3);
    expect(PRESETS.full.eval.testTasks).toBeGreaterThanOrEqual(120);
    expect(() => presetByName('huge')).toThrow(/unknown preset "huge"/);
    const p = presetByName('quick');
    p.workers = 9;
    expect(PRESETS.quick.workers).not.toBe(9);
  });
});

describe('PipelineContext tasks', () => {
  it("samples train and test tasks from the preset's sites only, disjoint and seeded", () => {
    const make = () =>
      new PipelineContext(
        {
          command: 'demo',
          out: join(dir, 'sites'),
          preset: presetByName('quick'),
          seed: 0,
          worldSeed: 1,
          quiet: true,
        },
        new AbortController().signal,
      );
    const a = make();
    const train = a.trainTasks();
    const test = a.testTasks();
    a.store.close();
    expect(train).toHaveLength(PRESETS.quick.trainTasks);
    expect(test).toHaveLength(PRESETS.quick.eval.testTasks);
    const sites = new Set([...train, ...test].map((t) => t.site));
    expect([...sites].sort()).toEqual(['mail', 'recipes']);
    const trainIds = new Set(train.map((t) => t.id));
    expect(test.some((t) => trainIds.has(t.id))).toBe(false);
    const b = make();
    expect(b.trainTasks().map((t) => t.id)).toEqual(train.map((t) => t.id));
    b.store.close();
  });
});

describe('StageRunner', () => {
  it('records a finished stage and skips it with its stored result on rerun', async () => {
    const store = RunStore.open(join(dir, 'a'));
    const ctl = new AbortController();
    let calls = 0;
    const result = { episodes: 4, successes: 3, errors: 0 };
    const body = async () => {
      calls++;
      return result;
    };
    const first = new StageRunner({ store, signal: ctl.signal, quiet: true });
    expect(await first.run('rollout', body)).toEqual(result);
    expect(first.ran).toEqual(['rollout']);
    const second = new StageRunner({ store, signal: ctl.signal, quiet: true });
    expect(await second.run('rollout', body)).toEqual(result);
    expect(calls).toBe(1);
    expect(second.skipped).toEqual(['rollout']);
    expect(second.timings.rollout).toBe(first.timings.rollout);
    store.close();
  });

  it('validates a stored result before reusing it: an invalid one is run again', async () => {
    const store = RunStore.open(join(dir, 'c'));
    const ctl = new AbortController();
    store.putRecord('stage', 'rollout', {
      stage: 'rollout',
      done: true,
      seconds: 1,
      finishedAt: '',
      result: { episodes: 'four' },
    });
    let why = '';
    expect(readStageRecord(store, 'rollout', (w) => (why = w))).toBeNull();
    expect(why).toMatch(/stage\/rollout: result\.episodes/);
    const runner = new StageRunner({ store, signal: ctl.signal, quiet: true });
    const fresh = { episodes: 2, successes: 1, errors: 0 };
    expect(await runner.run('rollout', async () => fresh)).toEqual(fresh);
    expect(runner.ran).toEqual(['rollout']);
    expect(readStageRecord(store, 'rollout')?.result).toEqual(fresh);
    await expect(runner.run('no-such-stage', async () => 1)).rejects.toThrow(/has no result schema/);
    store.close();
  });

  it('leaves an interrupted stage unrecorded so it resumes', async () => {
    const store = RunStore.open(join(dir, 'b'));
    const ctl = new AbortController();
    const runner = new StageRunner({ store, signal: ctl.signal, quiet: true });
    await expect(
      runner.run('eval-sft', async () => {
        ctl.abort();
        return 1;
      }),
    ).rejects.toBeInstanceOf(PipelineInterrupted);
    expect(runner.finished('eval-sft')).toBeNull();
    store.close();
  });
});

function rate(mean: number): RateOverRuns {
  return { mean, std: 0, min: mean, max: mean, perRun: [mean, mean, mean], tasks: 40 };
}
function row(id: RowId, mean: number, rollouts = 0): AblationRowResult {
  return { id, row: id, pass1: rate(mean), meanStepsSolved: 5, rollouts, trainSeconds: 1, episodes: 120 };
}

describe('ablation targets', () => {
  it('checks gain, rollout share and the costly ablations on measured rows', () => {
    const rows = [
      row('sft', 0.3),
      row('salvage-ds-mined', 0.4, 640),
      row('salvage-ds-full', 0.38, 9600),
      row('salvage-ds-nosalvage', 0.41, 640),
      row('dapo-mined', 0.32, 900),
    ];
    const t = checkTargets(rows);
    expect(t.map((x) => x.met)).toEqual([true, true, false, true]);
    expect(t[0].detail).toBe('gain 10.0 pts');
    expect(t[1].detail).toContain('(6.7%)');
    const md = ablationMarkdown({ title: 'x', rows, targets: t, lines: [] });
    expect(md).toContain('| salvage-ds-mined | 40.0% ± 0.0 | 5.00 | 640 | 1.0 |');
    expect(md).toContain('NOT MET: Salvage-DS without salvage costs points');
  });
  it('does not claim a target whose rows are missing', () => {
    expect(checkTargets([row('sft', 0.3)])).toEqual([]);
  });
});

describe('ablate --from', () => {
  it('refuses a folder whose base stages have not finished, naming the stage', async () => {
    const from = join(dir, 'half-demo');
    const store = RunStore.open(from);
    store.putRecord('pipeline', 'settings', {
      command: 'demo',
      preset: presetByName('quick'),
      seed: 0,
      worldSeed: 1,
    });
    const collect = (into: RunStore, result: unknown) =>
      into.putRecord('stage', 'collect', {
        stage: 'collect',
        done: true,
        seconds: 1,
        finishedAt: '',
        result,
      });
    collect(store, {});
    store.close();
    const ctx = new PipelineContext(
      {
        command: 'ablate',
        out: join(dir, 'abl'),
        preset: presetByName('quick'),
        seed: 0,
        worldSeed: 1,
        quiet: true,
      },
      new AbortController().signal,
    );
    try {
      await expect(runAblation(ctx, { from })).rejects.toThrow(
        /its collect stage result does not validate \(record stage\/collect: result\.episodes/,
      );
      const again = RunStore.open(from);
      collect(again, {
        episodes: 3,
        errors: 0,
        stats: { overall: { tasks: 2, tasksSolved: 1, successfulAttempts: 1 } },
      });
      again.close();
      await expect(runAblation(ctx, { from })).rejects.toThrow(/its train-sft stage has not finished/);
      await expect(runAblation(ctx, { from: join(dir, 'nowhere') })).rejects.toBeInstanceOf(InputError);
    } finally {
      await ctx.close();
    }
  });

  it('refuses to resume a folder made with other settings', () => {
    const out = join(dir, 'settings');
    const make = (preset: string) =>
      new PipelineContext(
        { command: 'demo', out, preset: presetByName(preset), seed: 0, worldSeed: 1, quiet: true },
        new AbortController().signal,
      );
    const a = make('tiny');
    a.checkSettings();
    a.store.close();
    const b = make('tiny');
    expect(() => b.checkSettings()).not.toThrow();
    b.store.close();
    const c = make('quick');
    expect(() => c.checkSettings()).toThrow(/preset tiny/);
    c.store.close();
  });
});
