import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../store/run-store.ts';
import type { LedgerUnit } from './ablation-ledger.ts';
import {
  type PlanShape,
  planAblation,
  planUnits,
  resolveStage,
  resolveUnit,
  type Unit,
  type UnitIo,
  type UnitModel,
} from './ablation-plan.ts';
import type { SeedRun } from './ablation-stats.ts';
import type { EvalStageResult } from './eval-stage.ts';
import type { RlRunResult } from './rl-stage.ts';
import { StageRunner } from './stage.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shape = (o: Partial<PlanShape> = {}): PlanShape => ({
  seeds: [0, 1],
  baseSeed: 0,
  startRound: 0,
  minedCount: 6,
  studentEval: 'eval-sft',
  ...o,
});

describe('the ablation plan', () => {
  it('declares rows x seeds in the table order, the first seed under the single-seed names', () => {
    const rows = planAblation(shape({ startRound: 1 }));
    expect(rows.map((r) => r.row)).toEqual([
      'sft',
      'salvage-ds-mined',
      'salvage-ds-confirmed',
      'salvage-ds-full',
      'salvage-ds-nosalvage',
      'dapo-mined',
      'grpo-exact',
      'sft-plain',
      'salvage-ds-plain',
      'sft-noreflect',
    ]);
    expect(rows.find((r) => r.row === 'dapo-mined')?.units.map((u) => u.label)).toEqual([
      'dapo-mined',
      'dapo-mined-seed1',
    ]);
    // One base student, evaluated once (or its demo evaluation reused).
    expect(rows[0]!.units).toEqual([
      { row: 'sft', seed: 0, label: 'sft', work: { kind: 'student' }, fromFolder: { eval: 'eval-sft' } },
    ]);
    const plain = rows.find((r) => r.row === 'salvage-ds-plain')!.units[1]!;
    expect(plain.work).toMatchObject({ kind: 'rl', init: 'plain', variant: { name: 'salvage-ds-mined' } });
    // What may stand in for the demo's own runs, resolved before the stages that read the base's stores.
    expect(
      planUnits(rows)
        .filter((u) => u.early)
        .map((u) => [u.label, u.fromFolder]),
    ).toEqual([
      ['salvage-ds-mined', { rl: 'rl-salvage-ds', eval: 'eval-salvage-ds' }],
      ['sft-plain', { eval: 'eval-sft' }],
    ]);
  });

  it('leaves out, with the reason, the rows the base cannot feed', () => {
    const none = planAblation(shape({ minedCount: 0 }));
    const skipped = none.filter((r) => r.skipped).map((r) => r.row);
    expect(skipped).toEqual([
      'salvage-ds-mined',
      'salvage-ds-confirmed',
      'salvage-ds-nosalvage',
      'dapo-mined',
      'grpo-exact',
    ]);
    expect(none.find((r) => r.row === 'salvage-ds-full')?.units).toHaveLength(2);
    // Without relabelling rounds the SFT row is plain SFT already: no plain rows.
    expect(none.some((r) => r.row === 'sft-plain')).toBe(false);
    const unconfirmed = planAblation(shape({ confirmed: 0 })).find((r) => r.row === 'salvage-ds-confirmed')!;
    expect(unconfirmed).toMatchObject({ units: [], skipped: 'none of the mined states was confirmed' });
    expect(
      planAblation(shape({ confirmed: 3 })).find((r) => r.row === 'salvage-ds-confirmed')?.units,
    ).toHaveLength(2);
  });
});

const evalResult = (label: string, pass1: number): EvalStageResult =>
  ({
    label,
    agent: `policy:${label}`,
    summary: {
      agentId: label,
      runs: 1,
      tasks: 2,
      episodes: 2,
      pass1: { mean: pass1 },
      meanStepsSolved: null,
    },
    complete: true,
    setup: { taskIds: ['a', 'b'], runs: 1, maxSteps: 5 },
  }) as unknown as EvalStageResult;

const rlResult = (name: string): RlRunResult =>
  ({
    name,
    dir: `/models/${name}`,
    rolloutsSampled: 12,
    wallSeconds: 2,
    options: { seed: 0 },
  }) as unknown as RlRunResult;

/** Fake work: records every call, runs no browser and trains nothing. */
function fakeIo(
  name: string,
  o: { ledger?: Record<string, LedgerUnit>; fromModel?: boolean; fromEval?: boolean },
) {
  const store = RunStore.open(join(dir, name));
  const stages = new StageRunner({ store, signal: new AbortController().signal, quiet: true });
  const calls: string[] = [];
  const ledger: Record<string, LedgerUnit> = { ...o.ledger };
  const io: UnitIo = {
    ledger: {
      unit: (l) => ledger[l] ?? null,
      putUnit: (l, u) => {
        ledger[l] = u;
      },
    },
    stages,
    commit: 'abc',
    async model(unit): Promise<UnitModel> {
      calls.push(`model ${unit.label}`);
      return unit.work.kind === 'rl'
        ? {
            dir: `/models/${unit.label}`,
            rl: rlResult(unit.label),
            trainSeconds: 2,
            stages: [`rl-${unit.label}`],
            fromFolder: !!o.fromModel,
          }
        : { dir: '/models/sft', trainSeconds: 1, stages: [], fromFolder: !!o.fromModel };
    },
    fromFolderEval: (stage) => {
      calls.push(`from ${stage}`);
      return o.fromEval ? { result: evalResult('demo', 0.5), stage, dir: '/demo' } : null;
    },
    async evaluate(unit) {
      calls.push(`evaluate ${unit.label}`);
      return evalResult(unit.label, 0.25);
    },
    seedRun: (unit, e, inFrom, cost): SeedRun => ({
      seed: unit.seed,
      label: `${e.label}${inFrom ? ' (from)' : ''}`,
      pass1: { mean: e.summary.pass1.mean, perRun: [e.summary.pass1.mean] } as SeedRun['pass1'],
      meanStepsSolved: null,
      perTask: {},
      ...cost,
    }),
    async accuracy() {
      calls.push('accuracy');
      return { heldOut: 0.5, critical: null };
    },
    curve: () => [{ step: 1, values: { r: 1 } }],
  };
  return { io, calls, ledger, store, stages };
}

const rlUnit: Unit = {
  row: 'salvage-ds-mined',
  seed: 0,
  label: 'salvage-ds-mined',
  work: {
    kind: 'rl',
    variant: { name: 'salvage-ds-mined', algo: 'salvage-ds', reward: 'polarized', data: 'mined' },
    init: 'student',
  },
  fromFolder: { rl: 'rl-salvage-ds', eval: 'eval-salvage-ds' },
};

describe('resolving a unit: ledger, then --from, then the stage record, then compute', () => {
  it('1. takes a unit the ledger holds and runs nothing', async () => {
    const held = {
      run: { pass1: { mean: 0.75 } },
      seconds: { 'rl-salvage-ds-mined': 9 },
    } as unknown as LedgerUnit;
    const f = fakeIo('ledger', { ledger: { 'salvage-ds-mined': held }, fromModel: true, fromEval: true });
    const r = await resolveUnit(rlUnit, f.io);
    expect(r).toEqual({ unit: held, source: 'ledger' });
    expect(f.calls).toEqual([]);
    expect(f.stages.ran).toEqual([]);
    expect(f.stages.timings['rl-salvage-ds-mined']).toBe(9);
    f.store.close();
  });

  it("2. takes the --from folder's evaluation for its own checkpoint over a stage record", async () => {
    const f = fakeIo('from', { fromModel: true, fromEval: true });
    // A record of this run's own evaluation exists too: --from comes first.
    await f.stages.run('eval-salvage-ds-mined', async () => evalResult('own', 0.1));
    const r = await resolveUnit(rlUnit, f.io);
    expect(r.source).toBe('from');
    expect(r.unit.run.label).toBe('demo (from)');
    expect(f.calls).toEqual(['model salvage-ds-mined', 'from eval-salvage-ds', 'accuracy']);
    expect(f.ledger['salvage-ds-mined']).toBe(r.unit);
    f.store.close();
  });

  it("never takes the --from folder's evaluation for an RL checkpoint trained here", async () => {
    const f = fakeIo('trained-here', { fromModel: false, fromEval: true });
    const r = await resolveUnit(rlUnit, f.io);
    expect(r.source).toBe('computed');
    expect(f.calls).toEqual(['model salvage-ds-mined', 'evaluate salvage-ds-mined', 'accuracy']);
    f.store.close();
  });

  it('3. resumes a stage this run folder finished, and 4. computes the rest', async () => {
    const f = fakeIo('record', {});
    await f.stages.run('eval-salvage-ds-mined', async () => evalResult('own', 0.1));
    const resumed = await resolveUnit(rlUnit, f.io);
    expect(resumed.source).toBe('stage');
    expect(resumed.unit.run.label).toBe('own');
    expect(f.calls).toEqual(['model salvage-ds-mined', 'accuracy']);
    // The second seed has no record: its evaluation runs, and the unit goes to the ledger with its stage times.
    const second = { ...rlUnit, seed: 1, label: 'salvage-ds-mined-seed1', fromFolder: undefined };
    const computed = await resolveUnit(second, f.io);
    expect(computed.source).toBe('computed');
    expect(f.calls.slice(2)).toEqual([
      'model salvage-ds-mined-seed1',
      'evaluate salvage-ds-mined-seed1',
      'accuracy',
    ]);
    expect(Object.keys(f.ledger['salvage-ds-mined-seed1']!.seconds).sort()).toEqual([
      'eval-salvage-ds-mined-seed1',
      'step-accuracy-salvage-ds-mined-seed1',
    ]);
    expect(f.ledger['salvage-ds-mined-seed1']!.rl?.name).toBe('salvage-ds-mined-seed1');
    // Resolved again, the unit comes from the ledger.
    expect((await resolveUnit(second, f.io)).source).toBe('ledger');
    f.store.close();
  });

  it('resolves one stage from --from, else its record, else by computing it', async () => {
    const f = fakeIo('stage', {});
    let computed = 0;
    const compute = async () => {
      computed++;
      return evalResult('computed', 0);
    };
    const demo = { result: evalResult('demo', 1), stage: 'eval-sft', dir: '/demo' };
    expect((await resolveStage(f.stages, 'eval-x', demo, compute)).source).toBe('from');
    expect(computed).toBe(0);
    expect((await resolveStage(f.stages, 'eval-x', null, compute)).source).toBe('computed');
    expect((await resolveStage(f.stages, 'eval-x', null, compute)).source).toBe('stage');
    expect(computed).toBe(1);
    f.store.close();
  });
});
