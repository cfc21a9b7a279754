import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RunStats } from '../../collect/stats.ts';
import { InputError, RmswebError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { type ReportData, writeReport } from '../../eval/report.ts';
import { evalTag } from '../../eval/run-eval.ts';
import { loadCriticalStates, loadFullCorpus, type RlExample } from '../../rl/index.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { RunStore } from '../../store/run-store.ts';
import type { TrajectorySummary } from '../../store/trajectory-query.ts';
import { sampleTasks, worldTasksOf } from '../tasks-arg.ts';
import {
  AblationLedger,
  checkpointDigest,
  criticalDigest,
  fingerprint,
  type LedgerUnit,
  thinCurve,
} from './ablation-ledger.ts';
import {
  aggregateSeeds,
  type MiningBySource,
  type MiningSource,
  miningBySource,
  pairedSolvedSteps,
  type SeedRun,
  taskOutcomes,
  teacherReflection,
} from './ablation-stats.ts';
import {
  type AblationRowResult,
  ablationMarkdown,
  addPairedDeltas,
  checkTargets,
  miningLines,
  REFERENCE_ROW,
  ROW_TITLES,
  type RowId,
  reflectionLines,
  reflectionReference,
  seedsTable,
  type TargetCheck,
  targetVerdict,
} from './ablation-table.ts';
import { hasSnapshot, readSnapshot, restoreSnapshot, stagePattern, writeSnapshot } from './base-snapshot.ts';
import { type PipelineContext, type PipelinePaths, pipelinePaths } from './context.ts';
import { collectStage } from './data-stages.ts';
import { runBaseStages, SELECT_STAGE, type StudentSelection } from './demo.ts';
import { type EvalStageResult, evalStage } from './eval-stage.ts';
import { type PipelinePreset, rlSteps } from './presets.ts';
import { commandLine, gitState, nameFoldersByRole, repoRoot } from './provenance.ts';
import { type RlRunResult, type RlVariant, rlStage } from './rl-stage.ts';
import { readStageRecord, type StageScope } from './stage.ts';
import { type StepProbes, stepAccuracies, stepProbes } from './step-accuracy.ts';
import { sftStage } from './student-stages.ts';
import { type VerifyStageResult, verifyCriticalStage } from './verify-stage.ts';

/** Training seeds per ablation row unless `--seeds` says otherwise. */
export const DEFAULT_SEEDS = 3;

/** The RL rows of the ablation: each trains from the same SFT checkpoint with the preset's budget. */
export const ABLATION_RL: Array<RlVariant & { name: RowId }> = [
  { name: 'salvage-ds-mined', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'mined' },
  { name: 'salvage-ds-confirmed', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'confirmed' },
  { name: 'salvage-ds-full', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'full-corpus' },
  { name: 'salvage-ds-nosalvage', algo: 'salvage-ds', reward: 'polarized', salvage: false, data: 'mined' },
  { name: 'dapo-mined', algo: 'dapo', reward: 'polarized', data: 'mined' },
  { name: 'grpo-exact', algo: 'grpo', reward: 'exact', data: 'mined' },
];

/** Where the ablation's shared inputs (collection, SFT checkpoint, mined states) come from. */
interface Base {
  paths: PipelinePaths;
  trainTasks: Task[];
  /** DAgger rounds the base ran (their rollouts are mined). */
  daggerRounds: number;
  /**
   * DAgger rounds of the student the RL rows start from (0: the SFT student): the base's
   * validation choice when it made one, else its last round.
   */
  startRound: number;
  /** Seed the base student was trained with. */
  seed: number;
  /** The folder's finished stage records, when taken from `--from`. */
  from?: { dir: string; store: RunStore; preset: string };
}

export interface AblationResult {
  rows: AblationRowResult[];
  targets: TargetCheck[];
  markdown: string;
  /** The seeds table (markdown). */
  table: string;
  mining: MiningBySource | null;
  reflection: string[];
  files: { markdown: string; json: string; report: string; results?: { markdown: string; json: string } };
  timings: Record<string, number>;
  skipped: string[];
  /** Wall seconds of this invocation (small when it resumed finished stages). */
  invocationSeconds: number;
}

/** How the ablation runs: training seeds, where to copy the results, and the command line to record. */
export interface AblationOptions {
  /** Reuse a demo run folder's collection, student and mined states. */
  from?: string;
  /** Training seeds per row (default 3): seeds seed, seed+1, ... of the RL runs and the no-reflection student. */
  seeds?: number;
  /** Also write ablation-<preset>.md and .json here (e.g. the repo's results/). */
  resultsDir?: string;
  /** The command line recorded in the results (default: this process's argv). */
  command?: string;
  /**
   * The ledger of finished seeds (default: ablation-<preset>.ledger.json in `resultsDir`, else
   * ablation.ledger.json in the run folder). Commit it with the results: a rerun on a rebuilt base
   * that matches it skips every seed it holds.
   */
  ledger?: string;
}

function openFrom(ctx: PipelineContext, dir: string): Base {
  const paths = pipelinePaths(dir);
  if (!existsSync(join(paths.root, 'store.sqlite')))
    throw new InputError(`--from ${dir}: not a pipeline run folder (no store.sqlite)`, { field: '--from' });
  const store = RunStore.open(paths.root, { create: false, readonly: true });
  const settings = store.getRecord<{ preset: PipelinePreset; seed: number; worldSeed: number }>(
    'pipeline',
    'settings',
  );
  if (!settings) {
    store.close();
    throw new InputError(`--from ${dir}: no pipeline settings recorded`, { field: '--from' });
  }
  const rounds = settings.preset.dagger?.rounds ?? 0;
  const chooses = rounds > 0 && !!settings.preset.dagger?.select;
  const needed = [
    'collect',
    'train-sft',
    ...(rounds ? [`train-sft-dagger${rounds}`] : []),
    ...(chooses ? [SELECT_STAGE] : []),
    'mine',
  ];
  for (const stage of needed) {
    let invalid = '';
    if (!readStageRecord(store, stage, (why) => (invalid = why))) {
      store.close();
      throw new InputError(
        invalid
          ? `--from ${dir}: its ${stage} stage result does not validate (${invalid}); rerun \`rmsweb demo --out ${dir}\``
          : `--from ${dir}: its ${stage} stage has not finished; run \`rmsweb demo --out ${dir}\` to the end first`,
        { field: '--from' },
      );
    }
  }
  if (settings.worldSeed !== ctx.settings.worldSeed) {
    store.close();
    throw new InputError(
      `--from ${dir} was made with world seed ${settings.worldSeed}, not ${ctx.settings.worldSeed}`,
      { field: '--world-seed' },
    );
  }
  const trainTasks = sampleTasks(
    worldTasksOf('train', settings.worldSeed, settings.preset.sites),
    settings.preset.trainTasks,
    settings.seed,
  );
  // A demo made before the choice existed started RL after its last round.
  const startRound = chooses
    ? (readStageRecord<StudentSelection>(store, SELECT_STAGE)?.result.chosen ?? rounds)
    : rounds;
  return {
    paths,
    trainTasks,
    daggerRounds: rounds,
    startRound,
    seed: settings.seed,
    from: { dir: paths.root, store, preset: settings.preset.name },
  };
}

/** A stage result of the `--from` folder when it was made with exactly the setup this run would use. */
function reusable<R>(base: Base, stage: string, same: (r: R) => boolean): R | null {
  const rec = base.from ? readStageRecord<R>(base.from.store, stage) : null;
  return rec && same(rec.result) ? rec.result : null;
}

/** Reads the label and failing trajectory of each mined state (critical.jsonl as `mine` wrote it). */
function minedLabels(file: string): Array<{ label: string; failure: { trajectoryId: string } }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { label: string; failure: { trajectoryId: string } });
}

function summaries(dir: string, tag?: string): TrajectorySummary[] {
  if (!existsSync(join(dir, 'store.sqlite'))) return [];
  const store = RunStore.open(dir, { create: false, readonly: true });
  try {
    return store.listTrajectorySummaries(tag ? { tag } : {});
  } finally {
    store.close();
  }
}

/**
 * The mined states by source: the miner paired the teacher's own failures (the collection) and the
 * student's failed rollouts (its rollouts and DAgger rounds) with the teacher's verified successes.
 */
function miningOfBase(base: Base, successSteps: number): MiningBySource {
  const sourceOf = new Map<string, MiningSource>();
  const failed: Record<MiningSource, number> = { teacher: 0, student: 0 };
  const runs: Array<[string, MiningSource]> = [
    [base.paths.collect, 'teacher'],
    [base.paths.rollout, 'student'],
    ...Array.from(
      { length: base.daggerRounds },
      (_, i) => [base.paths.dagger(i + 1), 'student'] as [string, MiningSource],
    ),
  ];
  for (const [dir, src] of runs)
    for (const t of summaries(dir)) {
      sourceOf.set(t.id, src);
      if (t.success === false) failed[src]++;
    }
  return miningBySource(minedLabels(base.paths.critical), sourceOf, failed, successSteps);
}

/**
 * `rmsweb ablate`: the paper's table on the offline world. Every row is evaluated on the same
 * held-out test tasks with the same runs; RL rows start from the same supervised student with the
 * same pass budget, once per training seed; the no-reflection row collects the same train tasks in
 * one round without notes and trains its SFT student once per seed, beside the SFT student on the
 * data with reflection (retrained per seed when the base student had DAgger rounds). Each (row, seed)
 * is its own stage, so an interrupted or extended (`--seeds` raised) run resumes.
 */
export async function runAblation(ctx: PipelineContext, opts: AblationOptions = {}): Promise<AblationResult> {
  const t0 = performance.now();
  // The code that runs is the code at start: record its commit before anything can change it.
  const git = gitState();
  const s = ctx.stages;
  const nSeeds = opts.seeds ?? DEFAULT_SEEDS;
  if (!Number.isInteger(nSeeds) || nSeeds < 1)
    throw new InputError(`--seeds must be a positive integer, not ${nSeeds}`, { field: '--seeds' });
  const seeds = Array.from({ length: nSeeds }, (_, k) => ctx.settings.seed + k);
  // The first seed keeps the single-seed names, so folders made before --seeds resume as they are.
  const seedName = (name: string, seed: number) =>
    seed === ctx.settings.seed ? name : `${name}-seed${seed}`;
  // The ledger of finished seeds, and beside it the snapshot of what its unfinished seeds read of the base.
  const ledgerFile =
    opts.ledger ??
    (opts.resultsDir
      ? join(opts.resultsDir, `ablation-${ctx.preset.name}.ledger.json`)
      : join(ctx.paths.root, 'ablation.ledger.json'));
  const snapshotDir = `${ledgerFile.replace(/\.ledger\.json$|\.json$/, '')}.base`;
  let base: Base;
  if (opts.from && !existsSync(join(opts.from, 'store.sqlite')) && hasSnapshot(snapshotDir)) {
    // The demo folder is gone (with its machine): lay out what the unfinished seeds read of it.
    const paths = pipelinePaths(opts.from);
    mkdirSync(paths.root, { recursive: true });
    const bs = RunStore.open(paths.root);
    try {
      const r = restoreSnapshot(
        snapshotDir,
        { base: paths.root, ablate: ctx.paths.root },
        { base: bs, ablate: ctx.store },
      );
      ctx.stages.log(
        `[snapshot] --from ${opts.from} was missing: restored ${r.files} files, ${r.records} records and ${r.trajectories} teacher episodes from ${snapshotDir}`,
      );
    } finally {
      bs.close();
    }
  }
  if (opts.from) base = openFrom(ctx, opts.from);
  else {
    const b = await runBaseStages(ctx);
    if (!b.sft)
      throw new RmswebError(
        'the teacher solved none of the collection tasks: there is no SFT student to ablate',
        { code: 'NO_DATA' },
      );
    base = {
      paths: ctx.paths,
      trainTasks: ctx.trainTasks(),
      daggerRounds: b.dagger.length,
      startRound: b.startRound,
      seed: ctx.settings.seed,
    };
  }
  const baseStore = base.from?.store ?? ctx.store;
  // The supervised student every RL row starts from (see Base.startRound).
  const studentDir = base.startRound ? base.paths.sftDagger(base.startRound) : base.paths.sft;
  const studentStage = base.startRound ? `train-sft-dagger${base.startRound}` : 'train-sft';
  try {
    const test = ctx.testTasks();
    const sameEval = (r: EvalStageResult) =>
      r.setup.runs === ctx.preset.eval.runs &&
      r.setup.maxSteps === ctx.preset.eval.maxSteps &&
      r.setup.taskIds.join() === test.map((t) => t.id).join();
    /** Evaluates one checkpoint (or reuses the `--from` folder's evaluation) as one seed of a row. */
    const evalSeed = async (
      label: string,
      agentDir: string,
      seed: number,
      cost: { rollouts: number; rlSeconds: number; trainSeconds: number },
      reuseStage?: string,
    ): Promise<{ run: SeedRun; reused: boolean }> => {
      const prior = reuseStage ? reusable<EvalStageResult>(base, reuseStage, sameEval) : null;
      if (prior) s.log(`[eval-${label}] reusing ${reuseStage} of ${base.from?.dir}`);
      const e =
        prior ??
        (await s.run(`eval-${label}`, (scope) =>
          evalStage(ctx, scope, { label, agent: `policy:${agentDir}`, agentName: label, tasks: test }),
        ));
      const store = prior && base.from ? base.from.store : ctx.store;
      const episodes = store
        .listTrajectorySummaries({ tag: evalTag(e.label) })
        .filter((t) => t.round < e.summary.runs);
      return {
        run: {
          seed,
          label: e.label,
          pass1: e.summary.pass1,
          meanStepsSolved: e.summary.meanStepsSolved,
          perTask: taskOutcomes(
            episodes,
            test.map((t) => t.id),
          ),
          ...cost,
        },
        reused: !!prior,
      };
    };

    const ledger = AblationLedger.open(ledgerFile, {
      preset: ctx.preset.name,
      seed: ctx.settings.seed,
      worldSeed: ctx.settings.worldSeed,
      base: fingerprint({
        student: checkpointDigest(studentDir),
        'plain-sft': checkpointDigest(base.paths.sft),
        'mined-states': criticalDigest(base.paths.critical),
      }),
    });
    if (ledger.size) s.log(`[ledger] ${ledger.file}: ${ledger.size} seed(s) measured earlier on this base`);

    const rows: AblationRowResult[] = [];
    /** Each RL seed's curve, as the units hold it (thinned), for the report. */
    const rlCurves: Array<{ name: string; points: Array<{ step: number; values: Record<string, number> }> }> =
      [];
    const meanOf = (xs: Array<number | null>) => {
      const v = xs.filter((x): x is number => x !== null);
      return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
    };
    const row = (id: RowId, units: LedgerUnit[], extra: { note?: string } = {}) => {
      const runs = units.map((u) => u.run);
      const rlRuns = units.flatMap((u) => (u.rl ? [u.rl] : []));
      const accs = units.flatMap((u) => (u.acc ? [u.acc] : []));
      const agg = aggregateSeeds(runs);
      const r: AblationRowResult = {
        id,
        row:
          base.startRound && id === 'sft'
            ? `SFT + relabelling${base.daggerRounds > 1 ? ` (round ${base.startRound})` : ''}`
            : ROW_TITLES[id],
        pass1: agg.pass1,
        meanStepsSolved: agg.meanStepsSolved,
        rollouts: agg.rollouts,
        trainSeconds: agg.trainSeconds,
        rlSeconds: agg.rlSeconds,
        episodes: runs.reduce((a, x) => a + Object.keys(x.perTask).length * x.pass1.perRun.length, 0),
        seeds: runs,
        perTask: agg.perTask,
        ...(extra.note ? { note: extra.note } : {}),
        ...(rlRuns.length ? { rlRuns, rl: rlRuns[0] } : {}),
        ...(accs.length
          ? {
              heldOutStepAccuracy: meanOf(accs.map((x) => x.heldOut)),
              criticalStepAccuracy: meanOf(accs.map((x) => x.critical)),
            }
          : {}),
      };
      for (const u of units)
        if (u.rl && u.curve)
          rlCurves.push({ name: `${r.row} (seed ${u.rl.options?.seed ?? u.run.seed})`, points: u.curve });
      rows.push(r);
      writePartial();
      return r;
    };
    /**
     * The rows measured so far, rewritten after each row: a full-preset ablation spans sittings,
     * and the seeds of a row are worth reading before the last row is in.
     */
    const writePartial = () => {
      // The deltas are seeded per row, so the final pass sets the same values again.
      addPairedDeltas(rows, { seed: ctx.settings.seed });
      writeFileAtomic(
        join(ctx.paths.root, 'ablation.partial.md'),
        [
          `# ${ctx.preset.name} ablation: the ${rows.length} ${rows.length === 1 ? 'row' : 'rows'} measured so far (${new Date().toISOString()})`,
          '',
          seedsTable(rows),
          '',
          `Rerun the same \`rmsweb ablate\` command to resume (the ledger ${ledger.file} holds every finished seed); ablation.md is written when every row is in.`,
          '',
        ].join('\n'),
      );
    };

    /** Keeps a result in the ledger under `name`, with the wall time it cost (0 for what is only read off a store). */
    const keep = (name: string, result: unknown, seconds = 0) =>
      ledger.putStage(name, { seconds, result, commit: git.commit, finishedAt: new Date().toISOString() });
    /**
     * A stage several units share, run only when a unit that is not in the ledger needs it; the
     * ledger keeps its result (and wall time) for the units and the report that need no rerun.
     */
    const shared = async <R>(name: string, needed: boolean, body: (scope: StageScope) => Promise<R>) => {
      const held = ledger.stage<R>(name);
      if (held && !needed) {
        s.timings[name] ??= held.seconds;
        return held.result;
      }
      const r = await s.run(name, body);
      if (!held) keep(name, r, s.timings[name] ?? 0);
      return r;
    };

    // The teacher on the same test tasks: its verified steps are the held-out step-level probe.
    const teacherPrior = reusable<EvalStageResult>(base, 'eval-teacher', sameEval);
    const teacherEval = async (needed: boolean): Promise<EvalStageResult> =>
      teacherPrior ??
      (await shared('eval-teacher', needed, (scope) =>
        evalStage(ctx, scope, { label: 'teacher', agent: 'heuristic', tasks: test }),
      ));
    const mineRec = readStageRecord<{ criticalStates: number; successSteps?: number }>(
      baseStore,
      'mine',
    )?.result;
    const minedCount = mineRec?.criticalStates ?? 0;
    let probes: StepProbes | null = null;
    const probesOf = async (): Promise<StepProbes> => {
      if (probes) return probes;
      await teacherEval(true);
      probes = await stepProbes({
        store: teacherPrior && base.from ? base.from.store : ctx.store,
        teacherLabel: 'teacher',
        taskIds: test.map((t) => t.id),
        critical: minedCount ? base.paths.critical : null,
      });
      return probes;
    };

    /**
     * One (row, seed): taken from the ledger when it holds it, else `compute` runs its stages (each
     * resumable on its own), then its step accuracies, and the ledger records it.
     */
    const unit = async (
      label: string,
      compute: () => Promise<{
        run: SeedRun;
        dir: string;
        rl?: RlRunResult;
        note?: string;
        stages: string[];
      }>,
    ): Promise<LedgerUnit> => {
      const held = ledger.unit(label);
      if (held) {
        for (const [k, v] of Object.entries(held.seconds)) s.timings[k] ??= v;
        s.log(`[${label}] in the ledger (pass@1 ${(100 * held.run.pass1.mean).toFixed(1)}%); skipped`);
        return held;
      }
      const c = await compute();
      const accStage = `step-accuracy-${label}`;
      const acc = await s.run(accStage, async (scope) => {
        const p = await probesOf();
        scope.log(`${p.heldOut.length} held-out teacher steps, ${p.critical.length} critical states`);
        return stepAccuracies(c.dir, p);
      });
      const u: LedgerUnit = {
        run: c.run,
        acc,
        ...(c.rl
          ? {
              rl: c.rl,
              curve: thinCurve(
                (c.rl.dir.startsWith(ctx.paths.root) ? ctx.store : baseStore).listMetrics(`rl/${c.rl.name}`),
              ),
            }
          : {}),
        seconds: Object.fromEntries(
          [...c.stages, accStage].filter((st) => st in s.timings).map((st) => [st, s.timings[st]]),
        ),
        ...(c.note ? { note: c.note } : {}),
        commit: git.commit,
        finishedAt: new Date().toISOString(),
      };
      ledger.putUnit(label, u);
      return u;
    };

    // SFT: the one base student (its data does not change between seeds).
    const sftUnit = await unit('sft', async () => {
      const sftRec = readStageRecord<{ trainSeconds: number }>(baseStore, studentStage);
      const ev = await evalSeed(
        'sft',
        studentDir,
        base.seed,
        { rollouts: 0, rlSeconds: 0, trainSeconds: sftRec?.result.trainSeconds ?? 0 },
        base.startRound ? `eval-sft-dagger${base.startRound}` : 'eval-sft',
      );
      return {
        run: ev.run,
        dir: studentDir,
        stages: ['eval-sft'],
        note: ev.reused ? `evaluation reused from ${base.from?.dir}` : undefined,
      };
    });
    row('sft', [sftUnit], { note: sftUnit.note });

    // RL rows, once per seed, each from the same supervised student.
    let mined: RlExample[] | null = null;
    let full: RlExample[] | null = null;
    // The confirmed row's states: the mined ones that causal verification confirmed (one stage).
    let verified: VerifyStageResult | null = null;
    const examples = async (v: RlVariant) => {
      if (v.data === 'full-corpus') {
        full ??= loadFullCorpus(base.paths.collect);
        return full;
      }
      if (v.data === 'confirmed') return loadCriticalStates(verified!.file, { confirmedOnly: true });
      mined ??= await loadCriticalStates(base.paths.critical);
      return mined;
    };
    /** The RL stage of one seed of a row, from the checkpoint `init` resolves to. */
    const rlRun = (id: RowId, v: RlVariant, seed: number, init: () => Promise<string>) => {
      const name = seedName(id, seed);
      return s.run(`rl-${name}`, async (scope) =>
        rlStage(ctx, scope, {
          variant: { ...v, name },
          examples: await examples(v),
          init: await init(),
          seed,
        }),
      );
    };
    /**
     * One seed of an RL row: its RL stage from `init` (or a reused run and its evaluation stage)
     * and its evaluation.
     */
    const rlSeed = (
      id: RowId,
      v: RlVariant,
      seed: number,
      init: () => Promise<string>,
      prior?: () => { rl: RlRunResult; evalStage: string; note: string } | undefined,
    ) => {
      const name = seedName(id, seed);
      return unit(name, async () => {
        const reuse = prior?.();
        const rl = reuse?.rl ?? (await rlRun(id, v, seed, init));
        const cost = {
          rollouts: rl.rolloutsSampled,
          rlSeconds: rl.wallSeconds,
          trainSeconds: rl.wallSeconds,
        };
        const ev = await evalSeed(name, rl.dir, seed, cost, reuse?.evalStage);
        return { run: ev.run, dir: rl.dir, rl, note: reuse?.note, stages: [`rl-${name}`, `eval-${name}`] };
      });
    };
    const noReflectDir = join(ctx.paths.root, 'collect-noreflect');
    /** SFT of one seed on a collection (the stage and model names `demo` gives its own). */
    const trainSft = (suffix: string, collectDir: string, seed: number) =>
      s.run(`train-sft${suffix}`, (scope) =>
        sftStage(ctx, scope, { runDir: collectDir, dir: ctx.paths.model(`sft${suffix}`), seed }),
      );
    /** Evaluates a supervised student as one seed of a row. */
    const sftSeed = async (
      id: RowId,
      seed: number,
      train: () => Promise<{ dir: string; trainSeconds: number; note?: string; stage?: string }>,
      reuseStage?: string,
    ) => {
      const label = seedName(id, seed);
      return unit(label, async () => {
        const sft = await train();
        const cost = { rollouts: 0, rlSeconds: 0, trainSeconds: sft.trainSeconds };
        const ev = await evalSeed(label, sft.dir, seed, cost, reuseStage);
        return {
          run: ev.run,
          dir: sft.dir,
          note: sft.note,
          stages: [...(sft.stage ? [sft.stage] : []), `eval-${label}`],
        };
      });
    };
    /** The plain SFT student of a seed: the base's own for its seed, else retrained (once) here. */
    const plain = async (seed: number) => {
      if (seed === base.seed) {
        const rec = readStageRecord<{ trainSeconds: number }>(baseStore, 'train-sft');
        return { dir: base.paths.sft, trainSeconds: rec?.result.trainSeconds ?? 0 };
      }
      const sft = await trainSft(`-seed${seed}`, base.paths.collect, seed);
      return { dir: sft.dir, trainSeconds: sft.trainSeconds, stage: `train-sft-seed${seed}` };
    };
    /** The demo's Salvage-DS run, as the mined row's first seed when it ran with the same budget (with its evaluation). */
    const minedPrior = (seed: number) =>
      seed !== ctx.settings.seed
        ? undefined
        : () => {
            const rl = reusable<RlRunResult>(base, 'rl-salvage-ds', (r) => {
              const rlp = ctx.preset.rl;
              return (
                r.options?.batchSize === rlp.batchSize &&
                r.options.groupSize === rlp.groupSize &&
                r.options.seed === seed &&
                (r.options.lr ?? undefined) === rlp.lr &&
                r.options.steps === rlSteps(rlp, r.states)
              );
            });
            return rl && existsSync(join(rl.dir, 'config.json'))
              ? {
                  rl,
                  evalStage: 'eval-salvage-ds',
                  note: `seed ${seed}: RL run and evaluation reused from ${base.from?.dir}`,
                }
              : undefined;
          };
    const confirmedV = ABLATION_RL.find((x) => x.data === 'confirmed')!;
    /** The base's run folders the states were mined from (verification replays them; the first snapshot keeps them). */
    const baseRuns = [
      base.paths.collect,
      base.paths.rollout,
      ...Array.from({ length: base.daggerRounds }, (_, i) => base.paths.dagger(i + 1)),
    ];
    /** Causal verification of the mined states (the confirmed row's data), once. */
    const verify = () =>
      shared(
        'verify-critical',
        // A verification that confirmed no state leaves the confirmed row without units for good.
        ledger.stage<{ confirmed: number }>('verify-critical')?.result.confirmed !== 0 &&
          seeds.some((seed) => !ledger.unit(seedName(confirmedV.name, seed))),
        (scope) =>
          verifyCriticalStage(ctx, scope, {
            runs: baseRuns,
            critical: base.paths.critical,
            out: join(ctx.paths.root, 'verified', 'critical.jsonl'),
            seed: base.seed,
          }),
      );
    // The stages that read the base's run stores (its collection, rollouts and DAgger rounds) go
    // first: verification, the plain SFT retrains and the full-corpus RL runs. What is left after
    // them reads only checkpoints and mined states, so a sitting that ends later loses less.
    // The seeds that reuse the base's own evaluations go first, while its store is certain to be there.
    const fullV = ABLATION_RL.find((x) => x.data === 'full-corpus')!;
    /**
     * Writes the base snapshot beside the ledger. `stores` (before the stages that read the base's
     * run stores) also keeps those stores; `complete` (after them) keeps what they made instead.
     */
    const takeSnapshot = (phase: 'stores' | 'complete') => {
      const runStores = baseRuns.filter((d) => existsSync(join(d, 'store.sqlite')));
      if (phase === 'stores')
        for (const d of runStores) {
          // The write-ahead log of a store left open by a killed run must be in the file copied.
          const st = RunStore.open(d, { create: false });
          try {
            st.checkpoint();
          } finally {
            st.close();
          }
        }
      const complete = phase === 'complete';
      const m = writeSnapshot(snapshotDir, {
        base: ledger.baseHash,
        phase,
        roots: { base: base.paths.root, ablate: ctx.paths.root },
        stores: { base: baseStore, ablate: ctx.store },
        records: {
          base: [
            'pipeline/settings',
            ...['collect', 'train-sft', 'train-sft-dagger*', SELECT_STAGE, 'mine', 'eval-teacher'].map(
              stagePattern,
            ),
          ],
          ablate: complete
            ? ['verify-critical', 'train-sft-seed*', `rl-${fullV.name}*`].map(stagePattern)
            : [],
        },
        metrics: {
          base: [],
          ablate: complete ? seeds.map((x) => `rl/${seedName(fullV.name, x)}`) : [],
        },
        files: {
          // The start student is the plain SFT one when the validation split chose it: once is enough.
          base: [
            ...new Set([relative(base.paths.root, studentDir), relative(base.paths.root, base.paths.sft)]),
            'mined/critical.jsonl',
            ...(complete ? [] : runStores.map((d) => relative(base.paths.root, join(d, 'store.sqlite')))),
          ],
          ablate: complete
            ? [
                'verified/critical.jsonl',
                ...seeds.filter((x) => x !== base.seed).map((x) => `models/sft-seed${x}`),
                ...seeds.map((x) => `models/${seedName(fullV.name, x)}`),
              ]
            : [],
        },
        trajectories: {
          root: 'base',
          tag: evalTag('teacher'),
          filter: (t) => t.round === 0 && t.verdict?.success === true,
        },
        commit: git.commit,
      });
      const mb = m.files.reduce((a, f) => a + f.bytes, 0) / 1e6;
      s.log(
        complete
          ? `[snapshot] ${snapshotDir}: ${m.files.length} files (${mb.toFixed(1)} MB before gzip), ${m.records.length} records, ${m.trajectories.count} teacher episodes; commit it with the ledger`
          : `[snapshot] ${snapshotDir}: the base with its ${runStores.length} run stores (${mb.toFixed(1)} MB before gzip), kept until the stages that read them have run; commit it with the ledger`,
      );
    };
    const minedV = ABLATION_RL.find((x) => x.name === REFERENCE_ROW)!;
    if (minedCount > 0)
      await rlSeed(
        minedV.name,
        minedV,
        ctx.settings.seed,
        async () => studentDir,
        minedPrior(ctx.settings.seed),
      );
    if (base.startRound) await sftSeed('sft-plain', base.seed, () => plain(base.seed), 'eval-sft');
    // What the report reads of the base's run stores, kept in the ledger while they exist.
    if (!ledger.stage('base-mining') && mineRec)
      keep('base-mining', miningOfBase(base, mineRec.successSteps ?? 0));
    if (!ledger.stage('base-collect-episodes'))
      keep(
        'base-collect-episodes',
        summaries(base.paths.collect, 'collect').map((t) => ({
          taskId: t.taskId,
          success: t.success,
          round: t.round,
          notes: t.notes,
        })),
      );
    if (base.from && !hasSnapshot(snapshotDir)) takeSnapshot('stores');
    if (minedCount > 0) verified = await verify();
    if (base.startRound)
      for (const seed of seeds) {
        const needed =
          !ledger.unit(seedName('sft-plain', seed)) ||
          (minedCount > 0 && !ledger.unit(seedName('salvage-ds-plain', seed)));
        if (seed !== base.seed && needed) await trainSft(`-seed${seed}`, base.paths.collect, seed);
      }
    for (const seed of seeds)
      if (!ledger.unit(seedName(fullV.name, seed)))
        await rlRun(fullV.name, fullV, seed, async () => studentDir);
    full = null; // the corpus is large; the row's units reload it only if they must
    if (base.from && (!hasSnapshot(snapshotDir) || readSnapshot(snapshotDir).phase === 'stores'))
      takeSnapshot('complete');

    const notRun: string[] = [];
    for (const v of ABLATION_RL) {
      if (v.data !== 'full-corpus' && minedCount === 0) {
        s.log(`[rl-${v.name}] no critical states were mined: row skipped`);
        notRun.push(`${ROW_TITLES[v.name]} (no critical states were mined)`);
        continue;
      }
      if (v.data === 'confirmed') {
        verified ??= await verify();
        if (verified.confirmed === 0) {
          s.log(`[rl-${v.name}] none of the ${verified.states} mined states was confirmed: row skipped`);
          notRun.push(`${ROW_TITLES[v.name]} (none of the ${verified.states} mined states was confirmed)`);
          continue;
        }
      }
      const units: LedgerUnit[] = [];
      for (const seed of seeds) {
        const prior = v.name === 'salvage-ds-mined' ? minedPrior(seed) : undefined;
        units.push(await rlSeed(v.name, v, seed, async () => studentDir, prior));
      }
      const notes = units.flatMap((u) => (u.note ? [u.note] : []));
      row(v.name, units, { note: notes.join('; ') || undefined });
    }

    // Reflection, paired: students trained by one recipe on data collected with and without
    // reflection, each over the training seeds. When the base student had DAgger rounds, the
    // comparison is made at plain SFT: relabelling asks the teacher at the student's own states,
    // which blurs the difference the row measures, and costs about an hour a seed on the full preset.
    // When the validation split chose plain SFT as the start, the SFT row is that student already.
    if (base.startRound) {
      const plainUnits: LedgerUnit[] = [];
      for (const seed of seeds)
        plainUnits.push(
          await sftSeed('sft-plain', seed, () => plain(seed), seed === base.seed ? 'eval-sft' : undefined),
        );
      row('sft-plain', plainUnits, {
        note: `the base student before its ${base.startRound} relabelling round(s), retrained once per seed on the same collection`,
      });
      // The same Salvage-DS run from each plain SFT student: whether the gain over the starting
      // student holds without the relabelling rounds (on the full preset the rounds lowered the
      // student, and RL from it partly repairs them).
      if (minedCount > 0) {
        const v = ABLATION_RL.find((x) => x.name === REFERENCE_ROW)!;
        const units: LedgerUnit[] = [];
        for (const seed of seeds)
          units.push(await rlSeed('salvage-ds-plain', v, seed, async () => (await plain(seed)).dir));
        row('salvage-ds-plain', units, {
          note: "the Salvage-DS row's RL (same mined states, settings and seeds), started from each seed's plain SFT student",
        });
      }
    }
    // SFT on data collected without reflection: the same train tasks, one round, no notes.
    let nr: { stats: RunStats } | null = null;
    const nrCollect = async () =>
      (nr ??= await s.run('collect-noreflect', (scope) =>
        collectStage(ctx, scope, {
          dir: noReflectDir,
          tasks: base.trainTasks,
          maxRounds: 1,
          stopAfter: 1,
          screenshots: false,
        }),
      ));
    const nrUnits: LedgerUnit[] = [];
    for (const seed of seeds)
      nrUnits.push(
        await sftSeed('sft-noreflect', seed, async () => {
          const c = await nrCollect();
          const suffix = seedName('-noreflect', seed);
          const sft = await trainSft(suffix, noReflectDir, seed);
          return {
            dir: sft.dir,
            trainSeconds: sft.trainSeconds,
            stage: `train-sft${suffix}`,
            note: `one-round collection solved ${c.stats.overall.tasksSolved}/${c.stats.overall.tasks} train tasks (${sft.data.trajectories} trajectories, ${sft.data.examples} examples)`,
          };
        }),
      );
    // The note-free collection's outcomes (what the teacher's reflection comparison reads) outlive its folder in the ledger.
    const nrHeld = ledger.stage<Array<{ taskId: string; success: boolean | null }>>(
      'collect-noreflect-episodes',
    );
    const nrLive = summaries(noReflectDir, 'collect').map((t) => ({ taskId: t.taskId, success: t.success }));
    if (nrLive.length && !nrHeld)
      keep(
        'collect-noreflect-episodes',
        nrLive,
        s.timings['collect-noreflect'] ?? s.finished('collect-noreflect')?.seconds ?? 0,
      );
    const nrEpisodes = nrLive.length ? nrLive : (nrHeld?.result ?? []);
    if (nrHeld && !('collect-noreflect' in s.timings)) s.timings['collect-noreflect'] = nrHeld.seconds;
    const nrRow = row('sft-noreflect', nrUnits, { note: nrUnits[0]?.note });

    const teacher = await teacherEval(false);
    await ctx.closeWorld();

    addPairedDeltas(rows, { seed: ctx.settings.seed });
    const targets = checkTargets(rows);
    // Read while the base's stores existed (prep), so a base restored from its snapshot reports the same.
    const mining =
      ledger.stage<MiningBySource>('base-mining')?.result ??
      (mineRec ? miningOfBase(base, mineRec.successSteps ?? 0) : null);
    const collectRec = readStageRecord<{ stats: RunStats }>(baseStore, 'collect')?.result;
    const teacherRefl = teacherReflection(
      ledger.stage<Array<Pick<TrajectorySummary, 'taskId' | 'success' | 'round' | 'notes'>>>(
        'base-collect-episodes',
      )?.result ?? summaries(base.paths.collect, 'collect'),
      nrEpisodes,
      collectRec?.stats,
    );
    const reflRef = reflectionReference(rows);
    const reflection = reflectionLines(
      teacherRefl,
      reflRef ? pairedSolvedSteps(reflRef.perTask, nrRow.perTask) : null,
    );

    const setup = [
      `- preset ${ctx.preset.name}; ${test.length} world test tasks x ${ctx.preset.eval.runs} runs (max ${ctx.preset.eval.maxSteps} steps), each run under its own world perturbation seed; seed ${ctx.settings.seed}; training seeds ${seeds.join(', ')}`,
      `- teacher (heuristic, no notes) on the same test tasks: pass@1 ${(100 * teacher.summary.pass1.mean).toFixed(1)}%${teacherPrior ? ' (reused)' : ''}`,
      `- base (collection with reflection, SFT${base.daggerRounds ? ` + ${base.daggerRounds} DAgger round(s)${base.startRound !== base.daggerRounds ? `, RL rows starting after round ${base.startRound} (the validation split's choice)` : ''}` : ''}, mined states): ${base.from ? `${base.from.dir} (preset ${base.from.preset})` : 'this folder'}; ${minedCount} critical states`,
      ...(notRun.length ? [`- not run, so absent from the table: ${notRun.join('; ')}`] : []),
      `- RL budget: ${ctx.preset.rl.epochs} passes over the states (steps clamped to [${ctx.preset.rl.minSteps}, ${ctx.preset.rl.maxSteps}]), batch ${ctx.preset.rl.batchSize} states, group ${ctx.preset.rl.groupSize}`,
    ];
    const invocationSeconds = (performance.now() - t0) / 1000;
    const stagesSeconds = Object.values(s.timings).reduce((a, b) => a + b, 0);
    const command = opts.command ?? commandLine();
    const createdAt = new Date().toISOString();
    const provenance = [
      `- command: \`${command}\``,
      `- commit: ${git.commit ?? 'unknown'}${git.dirty ? ' (with uncommitted changes)' : ''}`,
      `- seeds measured at: ${Object.entries(ledger.commits())
        .map(([c, n]) => `${c.slice(0, 7)} (${n})`)
        .join(', ')}; the ledger ${ledger.file} holds them`,
      `- seeds: ${seeds.join(', ')} (base seed ${base.seed}, world seed ${ctx.settings.worldSeed})`,
      `- wall time: ${stagesSeconds.toFixed(0)} s over all stages (as measured by the runs that finished them); this invocation ${invocationSeconds.toFixed(0)} s`,
      `- written ${createdAt}`,
    ];
    const title = `rmsweb ablate (preset ${ctx.preset.name}${ctx.preset.sites ? `; sites ${ctx.preset.sites.join(', ')}` : ''}; ${nSeeds} seed${nSeeds > 1 ? 's' : ''})`;
    const markdown = ablationMarkdown({ title, rows, targets, lines: setup, mining, reflection, provenance });
    const json = `${JSON.stringify(
      {
        title,
        createdAt,
        command,
        commit: git.commit,
        dirty: git.dirty,
        seeds,
        worldSeed: ctx.settings.worldSeed,
        wallSeconds: { stages: stagesSeconds, invocation: invocationSeconds },
        preset: ctx.preset,
        from: base.from?.dir ?? null,
        rows,
        targets,
        mining,
        reflection: { teacher: teacherRefl, lines: reflection },
        teacher: teacher.summary,
        timings: s.timings,
      },
      null,
      2,
    )}\n`;
    const files: AblationResult['files'] = {
      markdown: join(ctx.paths.root, 'ablation.md'),
      json: join(ctx.paths.root, 'ablation.json'),
      report: '',
    };
    writeFileAtomic(files.markdown, markdown);
    writeFileAtomic(files.json, json);
    if (opts.resultsDir) {
      mkdirSync(opts.resultsDir, { recursive: true });
      files.results = {
        markdown: join(opts.resultsDir, `ablation-${ctx.preset.name}.md`),
        json: join(opts.resultsDir, `ablation-${ctx.preset.name}.json`),
      };
      // The results copy is committed: machine paths of the run folders become their roles.
      const folders = [
        { dir: ctx.paths.root, role: "the ablation's data folder" },
        ...(base.from ? [{ dir: base.from.dir, role: "the demo's data folder" }] : []),
      ];
      const repo = repoRoot(opts.resultsDir);
      writeFileAtomic(files.results.markdown, nameFoldersByRole(markdown, command, folders, repo).text);
      writeFileAtomic(
        files.results.json,
        nameFoldersByRole(json, JSON.stringify(command).slice(1, -1), folders, repo).text,
      );
    }
    const report: ReportData = {
      title,
      createdAt,
      config: { preset: ctx.preset, seed: ctx.settings.seed, seeds, from: base.from?.dir ?? null },
      stages: [],
      ablation: rows,
      rlCurves,
      timings: s.timings,
      sections: [
        {
          title: 'Targets (issue 16)',
          lines: targets.map((t) => `- ${targetVerdict(t)}: ${t.target} (${t.detail})`),
        },
        ...(mining ? [{ title: 'Critical states', lines: miningLines(mining) }] : []),
        { title: 'Reflection, paired', lines: reflection },
        { title: 'Provenance', lines: provenance },
      ],
    };
    files.report = writeReport(ctx.paths.report, report).html;
    return {
      rows,
      targets,
      markdown,
      table: seedsTable(rows),
      mining,
      reflection,
      files,
      timings: { ...s.timings },
      skipped: [...s.skipped],
      invocationSeconds,
    };
  } finally {
    base.from?.store.close();
  }
}
