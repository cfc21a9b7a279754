import type { LedgerUnit } from './ablation-ledger.ts';
import type { SeedRun } from './ablation-stats.ts';
import { REFERENCE_ROW, type RowId } from './ablation-table.ts';
import type { EvalStageResult } from './eval-stage.ts';
import type { RlRunResult, RlVariant } from './rl-stage.ts';
import type { StageScope } from './stage.ts';
import { STAGES } from './stage-results.ts';
import type { StepAccuracies } from './step-accuracy.ts';

/**
 * The ablation as data: every (row, seed) is a {@link Unit} that says what it needs (the base
 * student, an RL run from a student on some states, or a supervised student), and one function,
 * {@link resolveUnit}, finds its result in a stated order. Nothing here runs a browser: the work
 * itself comes in through {@link UnitIo}, so the order is tested with fakes.
 *
 * Resolution order, for each unit:
 * 1. the ledger: a (row, seed) it holds is taken as measured, and none of its stages runs;
 * 2. `--from`: a stage of the demo folder that stands for one of the unit's own (the demo's
 *    Salvage-DS run and evaluations), used only when made with this run's setup;
 * 3. the stage record: a stage this run folder finished earlier is skipped with its stored result;
 * 4. compute: the stage runs.
 * Steps 2-4 apply stage by stage ({@link resolveStage}); the unit then goes to the ledger.
 */

/** The RL rows of the ablation: each trains from the same SFT checkpoint with the preset's budget. */
export const ABLATION_RL: Array<RlVariant & { name: RowId }> = [
  { name: 'salvage-ds-mined', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'mined' },
  { name: 'salvage-ds-confirmed', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'confirmed' },
  { name: 'salvage-ds-full', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'full-corpus' },
  { name: 'salvage-ds-nosalvage', algo: 'salvage-ds', reward: 'polarized', salvage: false, data: 'mined' },
  { name: 'dapo-mined', algo: 'dapo', reward: 'polarized', data: 'mined' },
  { name: 'grpo-exact', algo: 'grpo', reward: 'exact', data: 'mined' },
];

/** The RL row whose states are the whole collection (its runs read the base's run stores). */
export const FULL_CORPUS_RL = ABLATION_RL.find((v) => v.data === 'full-corpus')!;
/** The reference row: Salvage-DS on the mined states. */
export const REFERENCE_RL = ABLATION_RL.find((v) => v.name === REFERENCE_ROW)!;

/** What a unit's model is. */
export type UnitWork =
  /** The base's starting student itself (the SFT row). */
  | { kind: 'student' }
  /** An RL run of `variant` from the starting student, or from the seed's plain SFT student. */
  | { kind: 'rl'; variant: RlVariant; init: 'student' | 'plain' }
  /** A supervised student: plain SFT on the base's collection, or on the note-free collection. */
  | { kind: 'sft'; data: 'plain' | 'noreflect' };

/** One (row, seed) of the table. */
export interface Unit {
  row: RowId;
  seed: number;
  /** Its ledger key and the stem of its stage names: the row id, `-seed<k>` after the first seed. */
  label: string;
  work: UnitWork;
  /**
   * Stages of the `--from` folder that may stand for this unit's (step 2 of the order): the RL
   * run and the evaluation it would otherwise make.
   */
  fromFolder?: { rl?: string; eval: string };
  /** Resolved before the stages that read the base's run stores (it reuses the base's evaluations). */
  early?: boolean;
}

/** A row of the table: its units, or why it is not run. */
export interface PlannedRow {
  row: RowId;
  units: Unit[];
  /** Set when the row is left out, with the reason the report gives. */
  skipped?: string;
}

/** What the plan depends on: the seeds and what the base holds. */
export interface PlanShape {
  seeds: number[];
  /** The seed of the base student (the `--from` demo's). */
  baseSeed: number;
  /** DAgger rounds of the starting student (0: plain SFT). */
  startRound: number;
  /** Critical states the base mined. */
  minedCount: number;
  /** States the causal verification confirmed; undefined before it ran. */
  confirmed?: number;
  /** The evaluation stage of the base's starting student in the `--from` folder. */
  studentEval: string;
}

/** The first seed keeps the single-seed names, so folders made before `--seeds` resume as they are. */
export function unitLabel(row: string, seed: number, firstSeed: number): string {
  return seed === firstSeed ? row : `${row}-seed${seed}`;
}

/**
 * Rows x seeds, in the table's order: SFT; the RL rows; the plain SFT rows when the starting
 * student had relabelling rounds; SFT without reflection. A row that cannot run says why.
 */
export function planAblation(p: PlanShape): PlannedRow[] {
  const first = p.seeds[0]!;
  const unit = (row: RowId, seed: number, work: UnitWork, extra: Partial<Unit> = {}): Unit => ({
    row,
    seed,
    label: unitLabel(row, seed, first),
    work,
    ...extra,
  });
  const rows: PlannedRow[] = [
    {
      row: 'sft',
      units: [
        unit('sft', p.baseSeed, { kind: 'student' }, { label: 'sft', fromFolder: { eval: p.studentEval } }),
      ],
    },
  ];
  for (const v of ABLATION_RL) {
    const planned: PlannedRow = { row: v.name, units: [] };
    rows.push(planned);
    if (v.data !== 'full-corpus' && p.minedCount === 0) {
      planned.skipped = 'no critical states were mined';
      continue;
    }
    for (const seed of p.seeds) {
      // The demo's own Salvage-DS run is the reference row's first seed when it ran with this budget.
      const demoRun = v.name === REFERENCE_RL.name && seed === first;
      planned.units.push(
        unit(
          v.name,
          seed,
          { kind: 'rl', variant: v, init: 'student' },
          demoRun
            ? {
                fromFolder: { rl: STAGES.rl.key('salvage-ds'), eval: STAGES.eval.key('salvage-ds') },
                early: true,
              }
            : {},
        ),
      );
    }
  }
  if (p.startRound) {
    rows.push({
      row: 'sft-plain',
      units: p.seeds.map((seed) =>
        unit(
          'sft-plain',
          seed,
          { kind: 'sft', data: 'plain' },
          seed === p.baseSeed ? { fromFolder: { eval: STAGES.eval.key('sft') }, early: true } : {},
        ),
      ),
    });
    // The same Salvage-DS run from each plain SFT student: whether the gain over the starting
    // student holds without the relabelling rounds.
    if (p.minedCount > 0)
      rows.push({
        row: 'salvage-ds-plain',
        units: p.seeds.map((seed) =>
          unit('salvage-ds-plain', seed, { kind: 'rl', variant: REFERENCE_RL, init: 'plain' }),
        ),
      });
  }
  rows.push({
    row: 'sft-noreflect',
    units: p.seeds.map((seed) => unit('sft-noreflect', seed, { kind: 'sft', data: 'noreflect' })),
  });
  const confirmedRow = rows.find((r) => r.row === 'salvage-ds-confirmed');
  if (confirmedRow && !confirmedRow.skipped && p.confirmed === 0) {
    confirmedRow.skipped = 'none of the mined states was confirmed';
    confirmedRow.units = [];
  }
  return rows;
}

/** The plan's units, in order. */
export function planUnits(rows: readonly PlannedRow[]): Unit[] {
  return rows.flatMap((r) => r.units);
}

/** Where a stage's or a unit's result came from (the resolution order, first to last). */
export type Source = 'ledger' | 'from' | 'stage' | 'computed';

/** The stage runner as resolution reads it (StageRunner). */
export interface StageRunnerLike {
  run<R>(stage: string, body: (scope: StageScope) => Promise<R>): Promise<R>;
  readonly skipped: readonly string[];
  log(line: string): void;
}

/**
 * One stage of a unit: the `--from` folder's result when one stands for it (`fromFolder`, already
 * checked to match this run's setup), else the stage runner's (the stage's record, else `compute`).
 */
export async function resolveStage<R>(
  stages: StageRunnerLike,
  stage: string,
  fromFolder: { result: R; stage: string; dir: string } | null,
  compute: (scope: StageScope) => Promise<R>,
): Promise<{ result: R; source: Source }> {
  if (fromFolder) {
    stages.log(`[${stage}] reusing ${fromFolder.stage} of ${fromFolder.dir}`);
    return { result: fromFolder.result, source: 'from' };
  }
  const before = stages.skipped.length;
  const result = await stages.run(stage, compute);
  return { result, source: stages.skipped.length > before ? 'stage' : 'computed' };
}

/** A unit's model once resolved: its checkpoint, its RL run, what it cost, and where it came from. */
export interface UnitModel {
  dir: string;
  rl?: RlRunResult;
  trainSeconds: number;
  /** The stages this ablation ran or resumed for it (their wall times go to the ledger). */
  stages: string[];
  note?: string;
  /** Whether the model is the `--from` folder's (its evaluation there may then stand for this one). */
  fromFolder: boolean;
}

/** What resolution needs of the world: the ledger, the stage runner and the work itself. */
export interface UnitIo {
  ledger: { unit(label: string): LedgerUnit | null; putUnit(label: string, u: LedgerUnit): void };
  stages: StageRunnerLike & { readonly timings: Record<string, number> };
  /** The unit's model: `--from`, then stage records, then training (each through {@link resolveStage}). */
  model(unit: Unit): Promise<UnitModel>;
  /** The `--from` folder's evaluation stage `stage`, when it was made on this run's test tasks and runs (else null). */
  fromFolderEval(stage: string): { result: EvalStageResult; stage: string; dir: string } | null;
  /** Evaluates a checkpoint as one seed of a row (the body of the `eval-<label>` stage). */
  evaluate(unit: Unit, dir: string, scope: StageScope): Promise<EvalStageResult>;
  /** The seed run of an evaluation, from the episodes of the store that holds them (the `--from` folder's or this run's). */
  seedRun(unit: Unit, e: EvalStageResult, inFromFolder: boolean, cost: SeedCost): SeedRun;
  /** Greedy step accuracies of a checkpoint (the body of `step-accuracy-<label>`). */
  accuracy(dir: string, scope: StageScope): Promise<StepAccuracies>;
  /** The thinned RL curve of a run, for the report. */
  curve(rl: RlRunResult): LedgerUnit['curve'];
  commit: string | null;
}

/** What a seed cost, as the table reports it. */
export interface SeedCost {
  rollouts: number;
  rlSeconds: number;
  trainSeconds: number;
}

/**
 * Resolves one unit in the documented order (ledger, `--from`, stage record, compute) and records
 * a newly measured one in the ledger. Returns the unit and where its result came from: `ledger`
 * when the ledger held it, else the source of its evaluation.
 */
export async function resolveUnit(unit: Unit, io: UnitIo): Promise<{ unit: LedgerUnit; source: Source }> {
  const s = io.stages;
  const held = io.ledger.unit(unit.label);
  if (held) {
    for (const [k, v] of Object.entries(held.seconds)) s.timings[k] ??= v;
    s.log(`[${unit.label}] in the ledger (pass@1 ${(100 * held.run.pass1.mean).toFixed(1)}%); skipped`);
    return { unit: held, source: 'ledger' };
  }
  const model = await io.model(unit);
  const cost: SeedCost = model.rl
    ? {
        rollouts: model.rl.rolloutsSampled,
        rlSeconds: model.rl.wallSeconds,
        trainSeconds: model.rl.wallSeconds,
      }
    : { rollouts: 0, rlSeconds: 0, trainSeconds: model.trainSeconds };
  // The demo's evaluation stands for this one only for the demo's own checkpoint.
  const evalStage = STAGES.eval.key(unit.label);
  const from =
    unit.fromFolder && (model.fromFolder || unit.work.kind !== 'rl')
      ? io.fromFolderEval(unit.fromFolder.eval)
      : null;
  const ev = await resolveStage(s, evalStage, from, (scope) => io.evaluate(unit, model.dir, scope));
  const accStage = STAGES.stepAccuracyOf.key(unit.label);
  const acc = await s.run(accStage, (scope) => io.accuracy(model.dir, scope));
  const note =
    model.note ??
    (ev.source === 'from' && unit.work.kind === 'student'
      ? `evaluation reused from ${from?.dir}`
      : undefined);
  const u: LedgerUnit = {
    run: io.seedRun(unit, ev.result, ev.source === 'from', cost),
    acc,
    ...(model.rl ? { rl: model.rl, curve: io.curve(model.rl) } : {}),
    seconds: Object.fromEntries(
      [...model.stages, evalStage, accStage]
        .filter((st) => st in s.timings)
        .map((st) => [st, s.timings[st]!]),
    ),
    ...(note ? { note } : {}),
    commit: io.commit,
    finishedAt: new Date().toISOString(),
  };
  io.ledger.putUnit(unit.label, u);
  return { unit: u, source: ev.source };
}
