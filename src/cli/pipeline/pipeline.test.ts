import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../core/errors.ts';
import type { RateOverRuns } from '../../eval/metrics.ts';
import { RunStore } from '../../store/run-store.ts';
import { runAblation } from './ablate.ts';
import { aggregateSeeds, type SeedRun } from './ablation-stats.ts';
import {
  type AblationRowResult,
  ablationMarkdown,
  addPairedDeltas,
  checkTargets,
  type RowId,
  startLines,
} from './ablation-table.ts';
import { chooseStudent } from './base-stages.ts';
import { PipelineContext } from './context.ts';
import { type PipelinePreset, PRESETS, presetByName, rlSteps } from './presets.ts';
import { commandLine, nameFoldersByRole } from './provenance.ts';
import { PipelineInterrupted, readStageRecord, STAGE_PARTIAL, StageRunner } from './stage.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-pipeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('presets', () => {
  it('budgets RL in passes over the states, clamped', () => {
    const rl = { epochs: 4, minSteps: 10, maxSteps: 400, batchSize: 8, groupSize: 8 };
    expect(rlSteps(rl, 40)).toBe(20);
    expect(rlSteps(rl, 2)).toBe(10);
    expect(rlSteps(rl, 5000)).toBe(400);
  });
  it("gives a preset's full corpus the same passes as its mined states (the cap does not bind)", () => {
    // The full preset's collection holds about 9,000 success steps, the quick one's about 1,000.
    expect(rlSteps(PRESETS.full.rl, 12_000)).toBe((PRESETS.full.rl.epochs * 12_000) / 8);
    expect(rlSteps(PRESETS.quick.rl, 1_500)).toBe((PRESETS.quick.rl.epochs * 1_500) / 8);
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

describe('choosing the student RL starts from', () => {
  it('draws the validation split from train tasks outside the collection pool, seeded', () => {
    const make = (seed: number) =>
      new PipelineContext(
        {
          command: 'demo',
          out: join(dir, `val-${seed}`),
          preset: presetByName('full'),
          seed,
          worldSeed: 1,
          quiet: true,
        },
        new AbortController().signal,
      );
    const a = make(0);
    const pool = new Set(a.trainTasks().map((t) => t.id));
    const val = a.valTasks(120);
    const test = new Set(a.testTasks().map((t) => t.id));
    a.store.close();
    expect(val).toHaveLength(120);
    expect(val.every((t) => t.split === 'train' && !pool.has(t.id) && !test.has(t.id))).toBe(true);
    expect(new Set(val.map((t) => t.site)).size).toBe(6);
    const again = make(0);
    expect(again.valTasks(120).map((t) => t.id)).toEqual(val.map((t) => t.id));
    again.store.close();
    const other = make(1);
    expect(other.valTasks(120).map((t) => t.id)).not.toEqual(val.map((t) => t.id));
    other.store.close();
  });

  it('takes the best validation pass@1, and the fewer rounds on a tie', () => {
    const c = (round: number, pass1: number) => ({ round, label: `r${round}`, pass1 });
    expect(chooseStudent([c(0, 0.4), c(1, 0.5), c(2, 0.45)])).toBe(1);
    expect(chooseStudent([c(0, 0.4), c(1, 0.5), c(2, 0.5)])).toBe(1);
    expect(chooseStudent([c(0, 0.5), c(1, 0.5)])).toBe(0);
    expect(chooseStudent([c(0, 0.3), c(1, 0.31), c(2, 0.6)])).toBe(2);
  });

  it('chooses on the full preset, not on quick (its one round was chosen on a validation split by hand)', () => {
    expect(PRESETS.full.dagger.select?.valTasks).toBeGreaterThanOrEqual(100);
    expect(PRESETS.quick.dagger.select).toBeUndefined();
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

  it('counts the wall time of every invocation that worked on a stage, a killed one included', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const store = RunStore.open(join(dir, 'd'));
      const partial = () => store.getRecord<{ seconds: number }>(STAGE_PARTIAL, 'rollout')?.seconds;
      let ms = 0; // the stage clock, moved by hand
      const now = () => ms;
      const pass = async (s: number) => {
        ms += s * 1000;
        await vi.advanceTimersByTimeAsync(s * 1000);
      };
      // a process killed mid-stage runs no finally: what the saves every 30 s kept is what it leaves
      const killed = new StageRunner({ store, signal: new AbortController().signal, quiet: true, now });
      const dead = new Promise<void>((died) => {
        void killed.run('rollout', async (scope) => {
          expect(scope.seconds()).toBe(0); // nothing run yet in this invocation
          expect(partial()).toBe(0); // recorded at once: the stage has begun
          await pass(29);
          expect(partial()).toBe(0);
          await pass(36);
          died();
          return new Promise<number>(() => {}); // never returns: the process "dies" here
        });
      });
      await dead;
      expect(partial()).toBe(65); // saved by the tick at 60 s, when the hand-moved clock read 65
      // Ctrl-C: the time up to the interruption is kept
      const ctl = new AbortController();
      const stopped = new StageRunner({ store, signal: ctl.signal, quiet: true, now });
      await expect(
        stopped.run('rollout', async (scope) => {
          expect(scope.seconds()).toBe(65); // nothing run yet in this invocation
          await pass(10);
          ctl.abort();
          return 1;
        }),
      ).rejects.toBeInstanceOf(PipelineInterrupted);
      expect(partial()).toBe(75);
      // the run that finishes it records the sum, and the partial account goes
      const last = new StageRunner({ store, signal: new AbortController().signal, quiet: true, now });
      const result = { episodes: 2, successes: 1, errors: 0 };
      expect(
        await last.run('rollout', async (scope) => {
          expect(scope.seconds()).toBe(75); // nothing run yet in this invocation
          await pass(5);
          expect(scope.seconds()).toBe(80);
          return result;
        }),
      ).toEqual(result);
      expect(last.timings.rollout).toBe(80);
      expect(readStageRecord(store, 'rollout')?.seconds).toBe(80);
      expect(partial()).toBeUndefined();
      store.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

function rate(mean: number): RateOverRuns {
  return { mean, std: 0, min: mean, max: mean, perRun: [mean, mean, mean], tasks: 40 };
}
/** A row of `k` seeds whose per-task successes are `tasks` (the same on every seed). */
function row(id: RowId, tasks: number[], rollouts = 0, k = 2): AblationRowResult {
  const perTask = Object.fromEntries(
    tasks.map((s, i) => [`t${i}`, { success: s, solved: s > 0 ? 1 : 0, solvedSteps: s > 0 ? 5 : 0 }]),
  );
  const mean = tasks.reduce((a, b) => a + b, 0) / tasks.length;
  const seeds: SeedRun[] = Array.from({ length: k }, (_, seed) => ({
    seed,
    label: id,
    pass1: rate(mean),
    meanStepsSolved: 5,
    perTask,
    rollouts,
    rlSeconds: rollouts ? 2 : 0,
    trainSeconds: 1,
  }));
  const agg = aggregateSeeds(seeds);
  return {
    id,
    row: id,
    pass1: agg.pass1,
    meanStepsSolved: agg.meanStepsSolved,
    rollouts: agg.rollouts,
    trainSeconds: agg.trainSeconds,
    rlSeconds: agg.rlSeconds,
    episodes: tasks.length * 3 * k,
    seeds,
    perTask: agg.perTask,
  };
}
/** `n` tasks of which the first `solved` succeed. */
const tasks = (n: number, solved: number) => Array.from({ length: n }, (_, i) => (i < solved ? 1 : 0));

describe('ablation targets', () => {
  it('checks every target on measured rows, with the paired CI for the gain over SFT', () => {
    const rows = [
      row('sft', tasks(40, 12)),
      row('salvage-ds-mined', tasks(40, 20), 640),
      row('salvage-ds-full', tasks(40, 18), 9600),
      row('salvage-ds-nosalvage', tasks(40, 21), 640),
      row('dapo-mined', tasks(40, 13), 900),
      row('grpo-exact', tasks(40, 10), 640),
      row('sft-noreflect', tasks(40, 11)),
    ];
    addPairedDeltas(rows, { seed: 0, resamples: 2000 });
    const t = checkTargets(rows);
    expect(t.map((x) => x.met)).toEqual([true, true, false, true, true, true, true]);
    expect(t[0].detail).toMatch(
      /^gain \+20\.0 pts, 95% CI \[\+\d+\.\d pts, \+\d+\.\d pts\] over 40 test tasks$/,
    );
    expect(t[5].detail).toContain('(6.7%)');
    const md = ablationMarkdown({ title: 'x', rows, targets: t, lines: [] });
    expect(md).toMatch(
      /\| salvage-ds-mined \| 0, 1 \| 50\.0% ± 0\.0 \| reference \| 5\.00 \| 640 \| 2\.0 \| 1\.0 \|/,
    );
    expect(md).toContain('NOT MET: Salvage-DS without salvage falls below Salvage-DS');
    expect(md).toMatch(/\| sft \| 0, 1 \| 30\.0% ± 0\.0 \| -20\.0 pts \[-\d/);
  });
  it('a gain whose paired CI includes 0 does not meet the first target', () => {
    // +5 points on average, but from tasks that go both ways.
    const sft = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0];
    const sds = [0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0];
    const rows = [row('sft', sft), row('salvage-ds-mined', sds, 10)];
    addPairedDeltas(rows, { seed: 0, resamples: 2000 });
    const [gain] = checkTargets(rows);
    expect(gain.met).toBe(false);
    expect(gain.detail).toMatch(/^gain \+5\.0 pts, 95% CI \[-/);
  });
  it('compares the student without reflection with the plain SFT row when there is one, with a paired CI', () => {
    const rows = [
      row('sft', tasks(40, 30)),
      row('salvage-ds-mined', tasks(40, 31), 640),
      row('sft-plain', tasks(40, 20)),
      row('sft-noreflect', tasks(40, 14)),
    ];
    addPairedDeltas(rows, { seed: 0, resamples: 2000 });
    const refl = checkTargets(rows).at(-1)!;
    expect(refl.target).toContain('the same recipe with it');
    expect(refl.met).toBe(true);
    // 35.0% vs 50.0%, not vs the relabelled student's 75.0%.
    expect(refl.detail).toMatch(/^35\.0% vs 50\.0% \(-15\.0 pts, paired 95% CI \[-\d/);
    expect(rows.at(-1)!.reflectionDelta?.n).toBe(40);
  });
  it('measures Salvage-DS from the plain SFT student against that student, paired, outside the targets', () => {
    const rows = [
      row('sft', tasks(40, 20)),
      row('salvage-ds-mined', tasks(40, 24), 640),
      row('sft-plain', tasks(40, 23)),
      row('salvage-ds-plain', tasks(40, 24), 640),
      row('sft-noreflect', tasks(40, 18)),
    ];
    addPairedDeltas(rows, { seed: 0, resamples: 2000 });
    const plain = rows.find((r) => r.id === 'salvage-ds-plain')!;
    expect(plain.startDelta?.n).toBe(40);
    expect(plain.startDelta?.diff).toBeCloseTo(0.025, 6);
    // Only the row that starts elsewhere gets one; the mined row's start is the SFT row itself.
    expect(rows.filter((r) => r.startDelta).map((r) => r.id)).toEqual(['salvage-ds-plain']);
    const lines = startLines(rows);
    expect(lines[0]).toMatch(
      /^- salvage-ds-plain: 60\.0% vs its starting student sft-plain 57\.5% \(\+2\.5 pts, paired 95% CI \[[-+]\d/,
    );
    expect(lines[1]).toContain('60.0% vs 50.0% (+10.0 pts)');
    expect(checkTargets(rows)).toHaveLength(7);
    const md = ablationMarkdown({ title: 'x', rows, targets: checkTargets(rows), lines: [] });
    expect(md).toContain('## The gain from another starting student');
  });
  it('lists a target whose rows are missing as not measured, never claimed', () => {
    const t = checkTargets([row('sft', tasks(4, 1))]);
    expect(t).toHaveLength(7);
    expect(t.every((x) => x.met === null)).toBe(true);
    expect(t[0].detail).toContain('no + Salvage-DS on mined states row');
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

  it('writes the table from a ledger that holds every unit when the base is gone, running nothing', async () => {
    const make = (out: string) =>
      new PipelineContext(
        {
          command: 'ablate',
          out: join(dir, out),
          preset: presetByName('tiny'),
          seed: 0,
          worldSeed: 1,
          quiet: true,
        },
        new AbortController().signal,
      );
    const ctx = make('abl-ledger-only');
    const test = ctx.testTasks().map((t) => t.id);
    const unit = (label: string, success: number) => ({
      run: {
        seed: 0,
        label,
        pass1: rate(success),
        meanStepsSolved: null,
        perTask: Object.fromEntries(test.map((id) => [id, { success, solved: 0, solvedSteps: 0 }])),
        rollouts: 0,
        rlSeconds: 0,
        trainSeconds: 1,
      },
      acc: { heldOut: 0.5, critical: null },
      seconds: { [`eval-${label}`]: 3 },
      commit: null,
      finishedAt: '',
    });
    const labels = [
      'sft',
      'salvage-ds-mined',
      'salvage-ds-full',
      'salvage-ds-nosalvage',
      'dapo-mined',
      'grpo-exact',
      'sft-noreflect',
    ];
    const stage = (result: unknown) => ({ seconds: 2, result, commit: null, finishedAt: '' });
    const teacher = {
      label: 'teacher',
      agent: 'heuristic',
      summary: {
        agentId: 'teacher',
        runs: 1,
        tasks: test.length,
        episodes: test.length,
        pass1: rate(0.5),
        meanStepsSolved: 4,
      },
      complete: true,
      setup: { taskIds: test, runs: 1, maxSteps: 10 },
    };
    const ledger = {
      format: 'rmsweb-ablation-ledger',
      version: 1,
      preset: 'tiny',
      seed: 0,
      worldSeed: 1,
      base: { hash: 'b'.repeat(64), parts: { student: 's' } },
      units: Object.fromEntries(labels.map((l) => [l, unit(l, 0)])),
      stages: {
        'verify-critical': stage({
          file: 'v',
          states: 6,
          confirmed: 0,
          notCausal: 6,
          replayFailed: 0,
          episodes: 1,
          wallSeconds: 1,
        }),
        'base-summary': stage({
          view: {
            daggerRounds: 1,
            startRound: 0,
            seed: 0,
            minedCount: 6,
            from: { dir: '/gone', preset: 'tiny' },
          },
          teacher,
          teacherReused: true,
        }),
      },
    };
    const file = join(dir, 'ledger-only.ledger.json');
    writeFileSync(file, JSON.stringify(ledger));
    const from = join(dir, 'gone-demo');
    try {
      const r = await runAblation(ctx, { from, seeds: 1, ledger: file });
      expect(ctx.stages.ran).toEqual([]);
      expect(r.rows.map((x) => x.id)).toEqual(labels);
      expect(r.markdown).toContain(
        'not run, so absent from the table: Salvage-DS on confirmed states (none of the 6 mined states was confirmed)',
      );
      expect(existsSync(r.files.markdown)).toBe(true);
      expect(existsSync(from)).toBe(false);
    } finally {
      await ctx.close();
    }
    // A ledger that lacks a unit the table needs cannot stand in for the base: refused, saying which.
    delete (ledger.units as Record<string, unknown>)['dapo-mined'];
    writeFileSync(file, JSON.stringify(ledger));
    const again = make('abl-ledger-short');
    try {
      await expect(runAblation(again, { from, seeds: 1, ledger: file })).rejects.toThrow(
        /holds 6 finished \(row, seed\)s of base bbbbbbbbbbbb, but it lacks 1 that the table needs \(dapo-mined\)/,
      );
      expect(again.stages.ran).toEqual([]);
    } finally {
      await again.close();
    }
    expect(JSON.parse(readFileSync(file, 'utf8')).units['dapo-mined']).toBeUndefined();
  });

  it('refuses a seed count below 1 before running anything', async () => {
    const ctx = new PipelineContext(
      {
        command: 'ablate',
        out: join(dir, 'abl-seeds'),
        preset: presetByName('tiny'),
        seed: 0,
        worldSeed: 1,
        quiet: true,
      },
      new AbortController().signal,
    );
    try {
      await expect(runAblation(ctx, { seeds: 0 })).rejects.toThrow(/--seeds must be a positive integer/);
      expect(ctx.stages.ran).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it('records the command line as typed, quoting what a shell would split', () => {
    expect(commandLine(['node', 'rmsweb', 'ablate', '--preset', 'tiny', '--out', '/tmp/a b'])).toBe(
      "rmsweb ablate --preset tiny --out '/tmp/a b'",
    );
  });

  it('names run folders by role in a results file, by repo path when inside the repo', () => {
    const repo = '/home/u/rmsweb';
    const command = 'rmsweb ablate --from /data/demo --out runs/abl --results results/';
    const text = [
      `- command: \`${command}\``,
      '- base: /data/demo (preset full); model /data/demo/models/sft',
      '- another run: /data/demo2 and /data/demo.old',
      '- out: /home/u/rmsweb/runs/abl/ablation.md',
    ].join('\n');
    const folders = [
      { dir: '/home/u/rmsweb/runs/abl', role: "the ablation's data folder" },
      { dir: '/data/demo', role: "the demo's data folder" },
    ];
    const r = nameFoldersByRole(text, command, folders, repo);
    expect(r.command).toBe("rmsweb ablate --from <the demo's data folder> --out runs/abl --results results/");
    expect(r.text.split('\n')).toEqual([
      `- command: \`${r.command}\``,
      "- base: <the demo's data folder> (preset full); model <the demo's data folder>/models/sft",
      '- another run: /data/demo2 and /data/demo.old',
      '- out: runs/abl/ablation.md',
    ]);
    // Outside git every folder is named by its role.
    expect(nameFoldersByRole('/home/u/rmsweb/runs/abl', '', folders, null).text).toBe(
      "<the ablation's data folder>",
    );
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

  it('takes changed RL settings on resume until an RL stage has begun, then refuses them', () => {
    const out = join(dir, 'late');
    const make = (rlSteps: number, sftEpochs = 1) => {
      const preset = presetByName('lm-tiny');
      preset.lm = {
        ...preset.lm!,
        rl: { ...preset.lm!.rl, steps: rlSteps },
        sft: { ...preset.lm!.sft, epochs: sftEpochs },
      };
      return new PipelineContext(
        { command: 'demo', out, preset, seed: 0, worldSeed: 1, quiet: true },
        new AbortController().signal,
      );
    };
    const stored = (ctx: PipelineContext) =>
      ctx.store.getRecord<{ preset: PipelinePreset }>('pipeline', 'settings')?.preset.lm?.rl.steps;
    const a = make(2);
    a.checkSettings();
    a.store.putRecord('stage', 'lm-sft', { done: true }); // an earlier stage finished
    a.store.close();
    // no lm-rl stage yet: another RL budget is taken, and recorded as the folder's
    const b = make(3);
    expect(() => b.checkSettings()).not.toThrow();
    expect(stored(b)).toBe(3);
    b.store.close();
    // a setting an earlier stage read is still refused
    const c = make(3, 2);
    expect(() => c.checkSettings()).toThrow(/other settings/);
    c.store.close();
    // once an RL stage has begun (its time recorded), the RL settings must match again
    const d = make(3);
    d.store.putRecord(STAGE_PARTIAL, 'lm-rl-salvage-ds', { seconds: 0 });
    d.store.close();
    const e = make(4);
    expect(() => e.checkSettings()).toThrow(/other settings/);
    e.store.close();
    const f = make(3);
    expect(() => f.checkSettings()).not.toThrow();
    f.store.close();
  });

  it('resumes a folder made before the lm DAgger rounds with them, until a round has begun', () => {
    const out = join(dir, 'late-dagger');
    const make = (dagger?: number) => {
      const preset = presetByName('lm-tiny');
      const lm = preset.lm!;
      if (dagger === undefined) {
        // the settings an older version recorded: no dagger field at all
        const { dagger: _d, ...older } = lm;
        preset.lm = older as typeof lm;
      } else preset.lm = { ...lm, dagger: { ...lm.dagger, rounds: dagger } };
      return new PipelineContext(
        { command: 'demo', out, preset, seed: 0, worldSeed: 1, quiet: true },
        new AbortController().signal,
      );
    };
    const a = make();
    a.checkSettings();
    a.store.putRecord('stage', 'lm-rollout', { done: true });
    a.store.close();
    const b = make(2);
    expect(() => b.checkSettings()).not.toThrow();
    b.store.putRecord(STAGE_PARTIAL, 'lm-dagger-sft1', { seconds: 1 });
    b.store.close();
    const c = make(3);
    expect(() => c.checkSettings()).toThrow(/other settings/);
    c.store.close();
  });
});
