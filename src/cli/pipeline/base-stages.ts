import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { solvingNotes } from '../../collect/solving-notes.ts';
import { InputError, RmswebError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import type { ExportSftSummary } from '../../data/index.ts';
import type { MineStats } from '../../mine/index.ts';
import { RunStore } from '../../store/run-store.ts';
import { sampleTasks, worldTasksOf } from '../tasks-arg.ts';
import { type PipelineContext, type PipelinePaths, pipelinePaths } from './context.ts';
import { type CollectResult, collectStage, exportStage } from './data-stages.ts';
import { evalStage } from './eval-stage.ts';
import type { PipelinePreset } from './presets.ts';
import { readStage, readStageRecord } from './stage.ts';
import { STAGES } from './stage-results.ts';
import {
  mineStage,
  type RolloutResult,
  rolloutStage,
  type SftStageResult,
  sftStage,
} from './student-stages.ts';

/**
 * The stages `demo` and `ablate` share (collection with reflection, the supervised student and its
 * DAgger rounds, the validation choice, rollouts, mining), and {@link Base}: what an experiment
 * built on them reads, whether this run made them or `ablate --from` found them in a demo folder.
 */

/** One DAgger round: the relabelled rollouts of the previous student and the student retrained on them. */
export interface DaggerRound {
  round: number;
  rollout: RolloutResult;
  sft: SftStageResult;
}

/** What the stages shared by `demo` and `ablate` produced; the student parts are null when the teacher solved nothing. */
export interface BaseResults {
  collect: CollectResult;
  /** SFT on the teacher's verified successes alone. */
  sft: SftStageResult | null;
  /** DAgger rounds after it (the preset's `dagger.rounds`; empty for 0). */
  dagger: DaggerRound[];
  /**
   * Checkpoint folder of the supervised student RL starts from: the validation split's choice when
   * the preset chooses (see {@link StudentSelection}), else the last DAgger round's, else SFT's.
   */
  student: string | null;
  /** DAgger rounds behind `student` (0: the SFT student). */
  startRound: number;
  /** How `student` was chosen, when the preset chooses on a validation split. */
  selection: StudentSelection | null;
  rollout: RolloutResult | null;
  mine: MineStats | null;
}

/** The choice of the supervised student RL starts from, on train tasks outside the collection pool. */
export interface StudentSelection {
  /** Validation tasks, one greedy run each, under run 0's world perturbation. */
  tasks: number;
  maxSteps: number;
  candidates: Array<{ round: number; label: string; pass1: number }>;
  /** DAgger rounds of the chosen student (0: SFT). */
  chosen: number;
}

/** The stage that records the choice of {@link StudentSelection}. */
export const SELECT_STAGE = STAGES.selectStudent.key();

/**
 * The candidate with the best validation pass@1; a tie goes to the fewer rounds (the simpler
 * student, and the one whose choice does not ride on noise).
 */
export function chooseStudent(candidates: StudentSelection['candidates']): number {
  let best = candidates[0]!;
  for (const c of candidates) if (c.pass1 > best.pass1 + 1e-9) best = c;
  return best.round;
}

/**
 * The supervised student of a collection: SFT on its verified successes, then the preset's DAgger
 * rounds (the latest student drives on the solved train tasks, the teacher with its solving note
 * labels each state, the student is retrained from scratch on the teacher data plus all relabelled
 * states so far). Stage names carry `suffix` so `ablate` can train a second student the same way.
 */
export async function trainStudentStages(
  ctx: PipelineContext,
  o: {
    collectDir: string;
    tasks: Task[];
    suffix?: string;
    /** Seed of the SFT runs and rollouts (default the pipeline's): `ablate --seeds` retrains with others. */
    seed?: number;
  },
): Promise<{
  sft: SftStageResult;
  dagger: DaggerRound[];
  student: string;
  startRound: number;
  selection: StudentSelection | null;
}> {
  const s = ctx.stages;
  const sfx = o.suffix ?? '';
  const sft = await s.run(`${STAGES.trainSft.key()}${sfx}`, (scope) =>
    sftStage(ctx, scope, {
      runDir: o.collectDir,
      dir: ctx.paths.model(`sft${sfx}`),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
    }),
  );
  const dagger: DaggerRound[] = [];
  let student = sft.dir;
  const rounds = ctx.preset.dagger.rounds;
  const warm = ctx.preset.dagger.warm;
  if (rounds > 0) {
    const notes = solvingNotes(o.collectDir);
    const relabeled: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const dir = ctx.paths.dagger(round, sfx);
      const prev = student;
      const rollout = await s.runStage(
        STAGES.daggerRollout,
        (scope) =>
          rolloutStage(ctx, scope, {
            tasks: o.tasks.slice(0, ctx.preset.dagger.tasks ?? o.tasks.length),
            checkpoint: prev,
            dir,
            maxSteps: ctx.preset.dagger.maxSteps,
            student: studentName(round - 1),
            expertNotes: notes,
            ...(o.seed !== undefined ? { seed: o.seed } : {}),
          }),
        `${round}${sfx}`,
      );
      relabeled.push(dir);
      const retrained = await s.runStage(
        STAGES.trainSftOf,
        (scope) =>
          sftStage(ctx, scope, {
            runDir: o.collectDir,
            relabeled: [...relabeled],
            dir: ctx.paths.sftDagger(round, sfx),
            ...(o.seed !== undefined ? { seed: o.seed } : {}),
            ...(warm ? { warm: { from: prev, epochs: warm.epochs, lr: warm.lr } } : {}),
          }),
        `dagger${round}${sfx}`,
      );
      dagger.push({ round, rollout, sft: retrained });
      student = retrained.dir;
    }
  }
  const select = ctx.preset.dagger.select;
  if (!dagger.length || !select) return { sft, dagger, student, startRound: dagger.length, selection: null };
  // Each candidate's validation run is its own stage, so an interrupted choice resumes.
  const val = ctx.valTasks(select.valTasks);
  const candidates: StudentSelection['candidates'] = [];
  for (const [round, dir] of [sft.dir, ...dagger.map((d) => d.sft.dir)].entries()) {
    const label = `val-${round ? `sft-dagger${round}` : 'sft'}${sfx}`;
    const e = await s.run(label, (scope) =>
      evalStage(ctx, scope, {
        label,
        agent: `policy:${dir}`,
        agentName: label,
        tasks: val,
        runs: 1,
        maxSteps: select.maxSteps,
      }),
    );
    candidates.push({ round, label, pass1: e.summary.pass1.mean });
  }
  const selection = await s.run(`${SELECT_STAGE}${sfx}`, async (scope) => {
    const chosen = chooseStudent(candidates);
    scope.log(
      `${candidates.map((c) => `${c.label} ${(100 * c.pass1).toFixed(1)}%`).join(', ')} on ${val.length} validation train tasks: RL starts from ${chosen ? `DAgger round ${chosen}` : 'SFT'}`,
    );
    return { tasks: val.length, maxSteps: select.maxSteps, candidates, chosen } satisfies StudentSelection;
  });
  const startRound = selection.chosen;
  return {
    sft,
    dagger,
    student: startRound ? dagger[startRound - 1]!.sft.dir : sft.dir,
    startRound,
    selection,
  };
}

/** The name rollouts and reports give the supervised student after `round` DAgger rounds. */
export function studentName(round: number): string {
  return round ? `student-sft-dagger${round}` : 'student-sft';
}

/**
 * The stages every experiment starts from: teacher collection with reflection, SFT of the student,
 * greedy student rollouts on the collection's tasks, critical-state mining (teacher failures and
 * student rollouts, each against the teacher's verified successes). Without a single verified
 * success there is nothing to train on: the student stages are skipped and say so.
 */
export async function runBaseStages(
  ctx: PipelineContext,
  opts: { export?: boolean } = {},
): Promise<BaseResults & { export?: ExportSftSummary }> {
  const s = ctx.stages;
  const p = ctx.preset;
  const train = ctx.trainTasks();
  const collect = await s.runStage(STAGES.collect, (scope) =>
    collectStage(ctx, scope, {
      dir: ctx.paths.collect,
      tasks: train,
      maxRounds: p.collect.maxRounds,
      stopAfter: p.collect.stopAfter,
    }),
  );
  const exported = opts.export
    ? await s.runStage(STAGES.exportSft, (scope) => exportStage(ctx, scope))
    : undefined;
  const extra = exported ? { export: exported } : {};
  if (collect.stats.overall.successfulAttempts === 0) {
    s.log(
      '[train-sft] the teacher solved none of the collection tasks: no SFT data, so the student stages are skipped',
    );
    return {
      collect,
      sft: null,
      dagger: [],
      student: null,
      startRound: 0,
      selection: null,
      rollout: null,
      mine: null,
      ...extra,
    };
  }
  const { sft, dagger, student, startRound, selection } = await trainStudentStages(ctx, {
    collectDir: ctx.paths.collect,
    tasks: train,
  });
  // With DAgger rounds a preset may skip this rollout (`rollout.tasks` 0): the relabelled rollouts
  // are already the students' own runs on the same train tasks.
  const rollout =
    p.rollout.tasks > 0 || dagger.length === 0
      ? await s.runStage(STAGES.rollout, (scope) =>
          rolloutStage(ctx, scope, {
            tasks: train.slice(0, Math.max(1, p.rollout.tasks)),
            checkpoint: student,
            student: studentName(startRound),
          }),
        )
      : null;
  // Every student's failures are real failures on train tasks: the relabelled DAgger rollouts are
  // mined too (the miner reads the executed actions, never the expert's labels).
  const mine = await s.runStage(STAGES.mine, (scope) =>
    mineStage(ctx, scope, {
      runs: [
        ctx.paths.collect,
        ...(rollout ? [ctx.paths.rollout] : []),
        ...dagger.map((d) => ctx.paths.dagger(d.round)),
      ],
      out: ctx.paths.critical,
      statsOut: ctx.paths.criticalStats,
    }),
  );
  return { collect, sft, dagger, student, startRound, selection, rollout, mine, ...extra };
}

/**
 * The base an experiment starts from: the run folder holding its collection, students and mined
 * states, and what it was made with. `runBaseStages` makes one in the run folder ({@link baseOfRun});
 * `ablate --from` opens a demo's ({@link openBaseFolder}).
 */
export interface Base {
  paths: PipelinePaths;
  trainTasks: Task[];
  /** DAgger rounds the base ran (their rollouts are mined). */
  daggerRounds: number;
  /**
   * DAgger rounds of the student RL starts from (0: the SFT student): the base's validation
   * choice when it made one, else its last round.
   */
  startRound: number;
  /** Seed the base student was trained with. */
  seed: number;
  /** The demo folder it was read from (`ablate --from`), its store (read-only) and preset name. */
  from?: { dir: string; store: RunStore; preset: string };
}

/** The supervised student RL starts from: its checkpoint folder and the stage that trained it. */
export function startStudent(base: Base): { dir: string; stage: string } {
  return base.startRound
    ? {
        dir: base.paths.sftDagger(base.startRound),
        stage: STAGES.trainSftOf.key(`dagger${base.startRound}`),
      }
    : { dir: base.paths.sft, stage: STAGES.trainSft.key() };
}

/** The base's run folders the states were mined from (collection, rollouts, DAgger rounds). */
export function baseRunFolders(base: Base): string[] {
  return [
    base.paths.collect,
    base.paths.rollout,
    ...Array.from({ length: base.daggerRounds }, (_, i) => base.paths.dagger(i + 1)),
  ];
}

/** The base this run folder's own base stages made; refuses one without an SFT student. */
export function baseOfRun(ctx: PipelineContext, r: BaseResults): Base {
  if (!r.sft)
    throw new RmswebError(
      'the teacher solved none of the collection tasks: there is no SFT student to ablate',
      {
        code: 'NO_DATA',
      },
    );
  return {
    paths: ctx.paths,
    trainTasks: ctx.trainTasks(),
    daggerRounds: r.dagger.length,
    startRound: r.startRound,
    seed: ctx.settings.seed,
  };
}

/** The pipeline settings a demo folder records. */
interface FolderSettings {
  preset: PipelinePreset;
  seed: number;
  worldSeed: number;
}

/**
 * The base stages a demo folder must have finished to serve as a base (`ablate --from`), by
 * definition: collection, SFT, the last DAgger round, the validation choice, mining.
 */
export function requiredBaseStages(preset: PipelinePreset): string[] {
  const rounds = preset.dagger?.rounds ?? 0;
  const chooses = rounds > 0 && !!preset.dagger?.select;
  return [
    STAGES.collect.key(),
    STAGES.trainSft.key(),
    ...(rounds ? [STAGES.trainSftOf.key(`dagger${rounds}`)] : []),
    ...(chooses ? [STAGES.selectStudent.key()] : []),
    STAGES.mine.key(),
  ];
}

/**
 * Opens a demo folder as a base, read-only, after checking it is one: a pipeline folder with its
 * settings, every required base stage finished with a result that validates, and the world seed of
 * this run. Every refusal is an input error naming the folder (and the stage).
 */
export function openBaseFolder(dir: string, worldSeed: number): Base {
  const paths = pipelinePaths(dir);
  if (!existsSync(join(paths.root, 'store.sqlite')))
    throw new InputError(`--from ${dir}: not a pipeline run folder (no store.sqlite)`, { field: '--from' });
  const store = RunStore.open(paths.root, { create: false, readonly: true });
  try {
    const settings = store.getRecord<FolderSettings>('pipeline', 'settings');
    if (!settings) throw new InputError(`--from ${dir}: no pipeline settings recorded`, { field: '--from' });
    for (const stage of requiredBaseStages(settings.preset)) {
      let invalid = '';
      if (!readStageRecord(store, stage, (why) => (invalid = why)))
        throw new InputError(
          invalid
            ? `--from ${dir}: its ${stage} stage result does not validate (${invalid}); rerun \`rmsweb demo --out ${dir}\``
            : `--from ${dir}: its ${stage} stage has not finished; run \`rmsweb demo --out ${dir}\` to the end first`,
          { field: '--from' },
        );
    }
    if (settings.worldSeed !== worldSeed)
      throw new InputError(`--from ${dir} was made with world seed ${settings.worldSeed}, not ${worldSeed}`, {
        field: '--world-seed',
      });
    const rounds = settings.preset.dagger?.rounds ?? 0;
    const chooses = rounds > 0 && !!settings.preset.dagger?.select;
    // A demo made before the choice existed started RL after its last round.
    const startRound = chooses ? (readStage(store, STAGES.selectStudent)?.result.chosen ?? rounds) : rounds;
    return {
      paths,
      trainTasks: sampleTasks(
        worldTasksOf('train', settings.worldSeed, settings.preset.sites),
        settings.preset.trainTasks,
        settings.seed,
      ),
      daggerRounds: rounds,
      startRound,
      seed: settings.seed,
      from: { dir: paths.root, store, preset: settings.preset.name },
    };
  } catch (e) {
    store.close();
    throw e;
  }
}
