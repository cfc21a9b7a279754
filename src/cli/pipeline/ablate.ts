import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStats } from '../../collect/stats.ts';
import type { Task } from '../../core/task.ts';
import { evalTag } from '../../eval/run-eval.ts';
import { loadCriticalStates, loadFullCorpus, type RlExample } from '../../rl/index.ts';
import { RunStore } from '../../store/run-store.ts';
import type { TrajectorySummary } from '../../store/trajectory-query.ts';
import { BASE_SUMMARY, type BaseSummary, rowNote, skipRow, tableFromLedger } from './ablation-from-ledger.ts';
import {
  type AblationInputs,
  type AblationOptions,
  baseFingerprint,
  checkAblationInputs,
  inRepo,
} from './ablation-inputs.ts';
import { AblationLedger, type LedgerUnit, thinCurve } from './ablation-ledger.ts';
import {
  FULL_CORPUS_RL,
  type PlanShape,
  planAblation,
  resolveStage,
  resolveUnit,
  type Unit,
  type UnitIo,
  type UnitModel,
  unitLabel,
} from './ablation-plan.ts';
import {
  type AblationResult,
  ablationRow,
  type BaseView,
  type RlCurve,
  writeAblationResults,
  writePartial,
} from './ablation-report.ts';
import { type MiningBySource, type MiningSource, miningBySource, taskOutcomes } from './ablation-stats.ts';
import type { AblationRowResult, RowId } from './ablation-table.ts';
import {
  hasSnapshot,
  readSnapshot,
  restoreBase,
  snapshotLocation,
  takeBaseSnapshot,
} from './base-snapshot.ts';
import {
  type Base,
  baseOfRun,
  baseRunFolders,
  openBaseFolder,
  runBaseStages,
  startStudent,
} from './base-stages.ts';
import type { PipelineContext } from './context.ts';
import { collectStage } from './data-stages.ts';
import { type EvalStageResult, evalStage } from './eval-stage.ts';
import { rlSteps } from './presets.ts';
import { gitState } from './provenance.ts';
import { type RlRunResult, type RlVariant, rlStage } from './rl-stage.ts';
import { readStage, readStageRecord, type StageRunner, type StageScope } from './stage.ts';
import { STAGES } from './stage-results.ts';
import { type StepProbes, stepAccuracies, stepProbes } from './step-accuracy.ts';
import { sftStage } from './student-stages.ts';
import { type VerifyStageResult, verifyCriticalStage } from './verify-stage.ts';

export {
  type AblationInputs,
  type AblationOptions,
  baseFingerprint,
  checkAblationInputs,
  DEFAULT_SEEDS,
} from './ablation-inputs.ts';
export { ABLATION_RL } from './ablation-plan.ts';
export type { AblationResult } from './ablation-report.ts';

/**
 * `rmsweb ablate`: the paper's table on the offline world. Every row is evaluated on the same
 * held-out test tasks with the same runs; RL rows start from the same supervised student with the
 * same pass budget, once per training seed; the no-reflection row collects the same train tasks in
 * one round without notes and trains its SFT student once per seed, beside the SFT student on the
 * data with reflection (retrained per seed when the base student had DAgger rounds). Each (row,
 * seed) is a unit of the plan (ablation-plan.ts), resolved from the ledger, the `--from` folder,
 * its stage records or by running its stages, in that order.
 */
export async function runAblation(ctx: PipelineContext, opts: AblationOptions = {}): Promise<AblationResult> {
  const t0 = performance.now();
  // The code that runs is the code at start: record its commit before anything can change it.
  const git = gitState();
  const inputs = checkAblationInputs(ctx.settings, opts);
  if (inputs.ledgerOnly && inputs.ledger)
    return tableFromLedger(ctx, opts, { ...inputs, ledger: inputs.ledger }, git, t0);
  const run = await Ablation.open(ctx, opts, inputs, git);
  try {
    return await run.execute(t0);
  } finally {
    run.close();
  }
}

/** One invocation of the ablation: its base, ledger and plan, and the state its units share. */
class Ablation implements UnitIo {
  readonly stages: StageRunner;
  readonly commit: string | null;
  private readonly rows: AblationRowResult[] = [];
  private readonly rlCurves: RlCurve[] = [];
  private readonly test: Task[];
  private readonly studentDir: string;
  private readonly mineRec: { criticalStates: number; successSteps?: number } | null;
  private readonly teacherPrior: EvalStageResult | null;
  private verified: VerifyStageResult | null = null;
  private probes: StepProbes | null = null;
  private mined: RlExample[] | null = null;
  private full: RlExample[] | null = null;
  private noReflect: { stats: RunStats } | null = null;

  private constructor(
    private readonly ctx: PipelineContext,
    private readonly opts: AblationOptions,
    private readonly seeds: number[],
    private readonly base: Base,
    readonly ledger: AblationLedger,
    private readonly snapshotDir: string,
    private readonly git: { commit: string | null; dirty: boolean },
  ) {
    this.stages = ctx.stages;
    this.commit = git.commit;
    this.test = ctx.testTasks();
    this.studentDir = startStudent(base).dir;
    this.mineRec = readStage(this.baseStore, STAGES.mine)?.result ?? null;
    this.teacherPrior = this.fromFolderEval(STAGES.eval.key('teacher'))?.result ?? null;
  }

  /** Lays out the snapshot when the `--from` folder is gone, opens or builds the base, opens the ledger. */
  static async open(
    ctx: PipelineContext,
    opts: AblationOptions,
    inputs: AblationInputs,
    git: { commit: string | null; dirty: boolean },
  ): Promise<Ablation> {
    if (inputs.restore && opts.from) {
      const r = restoreBase(inputs.restore, opts.from, { root: ctx.paths.root, store: ctx.store });
      ctx.stages.log(
        `[snapshot] --from ${opts.from} was missing: restored ${r.files} files, ${r.records} records and ${r.trajectories} teacher episodes from ${inputs.restore}`,
      );
    }
    const base = opts.from
      ? openBaseFolder(opts.from, ctx.settings.worldSeed)
      : baseOfRun(ctx, await runBaseStages(ctx));
    try {
      const ledger = AblationLedger.open(inputs.ledgerFile, {
        preset: ctx.preset.name,
        seed: ctx.settings.seed,
        worldSeed: ctx.settings.worldSeed,
        base: baseFingerprint(base),
      });
      if (ledger.size)
        ctx.stages.log(`[ledger] ${ledger.file}: ${ledger.size} seed(s) measured earlier on this base`);
      const snapshotDir = snapshotLocation({
        snapshot: opts.snapshot,
        ledgerFile: inputs.ledgerFile,
        preset: ctx.preset.name,
        baseHash: ledger.baseHash,
        inRepo,
      });
      return new Ablation(ctx, opts, inputs.seeds, base, ledger, snapshotDir, git);
    } catch (e) {
      base.from?.store.close();
      throw e;
    }
  }

  close(): void {
    this.base.from?.store.close();
  }

  private get baseStore(): RunStore {
    return this.base.from?.store ?? this.ctx.store;
  }

  private get minedCount(): number {
    return this.mineRec?.criticalStates ?? 0;
  }

  private label(row: string, seed: number): string {
    return unitLabel(row, seed, this.seeds[0]!);
  }

  private plan(confirmed?: number) {
    const shape: PlanShape = {
      seeds: this.seeds,
      baseSeed: this.base.seed,
      startRound: this.base.startRound,
      minedCount: this.minedCount,
      confirmed,
      studentEval: STAGES.eval.key(this.base.startRound ? `sft-dagger${this.base.startRound}` : 'sft'),
    };
    return planAblation(shape);
  }

  /**
   * The units in order: the SFT row, then the units that reuse the base's own evaluations (while
   * its store is certain to be there), then the stages that read the base's run stores (so a
   * sitting that ends later loses less), then every row in the table's order.
   */
  async execute(t0: number): Promise<AblationResult> {
    const first = this.plan();
    const sft = first[0]!;
    this.pushRow('sft', [(await resolveUnit(sft.units[0]!, this)).unit]);
    for (const u of first.flatMap((r) => r.units).filter((x) => x.early)) await resolveUnit(u, this);
    await this.prep();
    const notRun: string[] = [];
    for (const planned of this.plan(this.verified?.confirmed).slice(1)) {
      if (planned.skipped) {
        notRun.push(skipRow(this.stages, planned, this.verified?.states ?? 0));
        continue;
      }
      const units: LedgerUnit[] = [];
      for (const u of planned.units) units.push((await resolveUnit(u, this)).unit);
      this.pushRow(planned.row, units, rowNote(planned.row, units, this.base.startRound));
    }
    const noReflectEpisodes = this.noReflectEpisodes();
    const teacher = await this.teacherEval(false);
    await this.ctx.closeWorld();
    // What a machine with the ledger alone needs to write the table again (see tableFromLedger).
    if (!this.ledger.stage(BASE_SUMMARY))
      this.keep(BASE_SUMMARY, {
        view: this.view(),
        teacher,
        teacherReused: !!this.teacherPrior,
      } satisfies BaseSummary);
    return writeAblationResults({
      ctx: this.ctx,
      base: this.view(),
      seeds: this.seeds,
      rows: this.rows,
      rlCurves: this.rlCurves,
      notRun,
      teacher,
      teacherReused: !!this.teacherPrior,
      mining: this.mining(),
      collectEpisodes:
        this.ledger.stage<Array<Pick<TrajectorySummary, 'taskId' | 'success' | 'round' | 'notes'>>>(
          'base-collect-episodes',
        )?.result ?? summaries(this.base.paths.collect, 'collect'),
      noReflectEpisodes,
      ledger: this.ledger,
      git: this.git,
      resultsDir: this.opts.resultsDir,
      command: this.opts.command,
      t0,
    });
  }

  /**
   * The stages that read the base's run stores, between the snapshot that keeps those stores and
   * the one that keeps what they made: verification, the plain SFT retrains, the full-corpus RL.
   */
  private async prep(): Promise<void> {
    const { base, ledger } = this;
    // What the report reads of the base's run stores, kept in the ledger while they exist.
    if (!ledger.stage('base-mining') && this.mineRec)
      this.keep('base-mining', miningOfBase(base, this.mineRec.successSteps ?? 0));
    if (!ledger.stage('base-collect-episodes'))
      this.keep(
        'base-collect-episodes',
        summaries(base.paths.collect, 'collect').map((t) => ({
          taskId: t.taskId,
          success: t.success,
          round: t.round,
          notes: t.notes,
        })),
      );
    if (base.from && !hasSnapshot(this.snapshotDir)) this.snapshot('stores');
    if (this.minedCount > 0) this.verified = await this.verify();
    if (base.startRound)
      for (const seed of this.seeds) {
        const needed =
          !ledger.unit(this.label('sft-plain', seed)) ||
          (this.minedCount > 0 && !ledger.unit(this.label('salvage-ds-plain', seed)));
        if (seed !== base.seed && needed) await this.trainSft(`-seed${seed}`, base.paths.collect, seed);
      }
    for (const seed of this.seeds)
      if (!ledger.unit(this.label(FULL_CORPUS_RL.name, seed)))
        await this.rlRun(
          this.label(FULL_CORPUS_RL.name, seed),
          FULL_CORPUS_RL,
          seed,
          async () => this.studentDir,
        );
    this.full = null; // the corpus is large; the row's units reload it only if they must
    if (base.from && (!hasSnapshot(this.snapshotDir) || readSnapshot(this.snapshotDir).phase === 'stores'))
      this.snapshot('complete');
  }

  private snapshot(phase: 'stores' | 'complete'): void {
    takeBaseSnapshot(phase, {
      dir: this.snapshotDir,
      baseHash: this.ledger.baseHash,
      base: this.base,
      baseStore: this.baseStore,
      ablate: { root: this.ctx.paths.root, store: this.ctx.store },
      startStudent: this.studentDir,
      seeds: this.seeds,
      commit: this.git.commit,
      log: (line) => this.stages.log(line),
    });
  }

  private pushRow(
    id: RowId,
    units: LedgerUnit[],
    note = units.length === 1 ? units[0]?.note : undefined,
  ): void {
    const { row, curves } = ablationRow(id, units, this.base, note);
    this.rlCurves.push(...curves);
    this.rows.push(row);
    writePartial(this.ctx, this.rows, this.ledger.file);
  }

  private view(): BaseView {
    const b = this.base;
    return {
      daggerRounds: b.daggerRounds,
      startRound: b.startRound,
      seed: b.seed,
      minedCount: this.minedCount,
      from: b.from ? { dir: b.from.dir, preset: b.from.preset } : null,
      collectStats: readStage(this.baseStore, STAGES.collect)?.result.stats as RunStats | undefined,
    };
  }

  /** Read while the base's stores existed (prep), so a base restored from its snapshot reports the same. */
  private mining(): MiningBySource | null {
    return (
      this.ledger.stage<MiningBySource>('base-mining')?.result ??
      (this.mineRec ? miningOfBase(this.base, this.mineRec.successSteps ?? 0) : null)
    );
  }

  /** The note-free collection's outcomes (what the teacher's reflection comparison reads) outlive its folder in the ledger. */
  private noReflectEpisodes(): Array<{ taskId: string; success: boolean | null }> {
    const s = this.stages;
    const name = STAGES.collectNoReflect.key();
    const held = this.ledger.stage<Array<{ taskId: string; success: boolean | null }>>(`${name}-episodes`);
    const live = summaries(this.noReflectDir, 'collect').map((t) => ({
      taskId: t.taskId,
      success: t.success,
    }));
    if (live.length && !held)
      this.keep(`${name}-episodes`, live, s.timings[name] ?? s.finished(name)?.seconds ?? 0);
    if (held && !(name in s.timings)) s.timings[name] = held.seconds;
    return live.length ? live : (held?.result ?? []);
  }

  /** Keeps a result in the ledger under `name`, with the wall time it cost (0 for what is only read off a store). */
  private keep(name: string, result: unknown, seconds = 0): void {
    this.ledger.putStage(name, {
      seconds,
      result,
      commit: this.git.commit,
      finishedAt: new Date().toISOString(),
    });
  }

  /**
   * A stage several units share, run only when a unit that is not in the ledger needs it; the
   * ledger keeps its result (and wall time) for the units and the report that need no rerun.
   */
  private async shared<R>(
    name: string,
    needed: boolean,
    body: (scope: StageScope) => Promise<R>,
  ): Promise<R> {
    const held = this.ledger.stage<R>(name);
    if (held && !needed) {
      this.stages.timings[name] ??= held.seconds;
      return held.result;
    }
    const r = await this.stages.run(name, body);
    if (!held) this.keep(name, r, this.stages.timings[name] ?? 0);
    return r;
  }

  /** The teacher on the test tasks (the demo's when it ran the same evaluation): its verified steps are the held-out probe. */
  private async teacherEval(needed: boolean): Promise<EvalStageResult> {
    return (
      this.teacherPrior ??
      (await this.shared(STAGES.eval.key('teacher'), needed, (scope) =>
        evalStage(this.ctx, scope, { label: 'teacher', agent: 'heuristic', tasks: this.test }),
      ))
    );
  }

  /** Causal verification of the mined states (the confirmed row's data), once. */
  private verify(): Promise<VerifyStageResult> {
    const confirmedRow = 'salvage-ds-confirmed';
    return this.shared(
      STAGES.verifyCritical.key(),
      // A verification that confirmed no state leaves the confirmed row without units for good.
      this.ledger.stage<{ confirmed: number }>(STAGES.verifyCritical.key())?.result.confirmed !== 0 &&
        this.seeds.some((seed) => !this.ledger.unit(this.label(confirmedRow, seed))),
      (scope) =>
        verifyCriticalStage(this.ctx, scope, {
          runs: baseRunFolders(this.base),
          critical: this.base.paths.critical,
          out: join(this.ctx.paths.root, 'verified', 'critical.jsonl'),
          seed: this.base.seed,
        }),
    );
  }

  private get noReflectDir(): string {
    return join(this.ctx.paths.root, 'collect-noreflect');
  }

  // --- UnitIo: what resolving a unit needs -------------------------------------------------

  /** The model of a unit: the base's, the `--from` folder's RL run, or one trained here (record or compute). */
  async model(unit: Unit): Promise<UnitModel> {
    const w = unit.work;
    if (w.kind === 'student') {
      const rec = stageResult<{ trainSeconds: number }>(this.baseStore, startStudent(this.base).stage);
      return {
        dir: this.studentDir,
        trainSeconds: rec?.trainSeconds ?? 0,
        stages: [],
        fromFolder: !!this.base.from,
      };
    }
    if (w.kind === 'rl') {
      const prior = unit.fromFolder?.rl ? this.fromFolderRl(unit.fromFolder.rl, unit.seed) : null;
      const init = async () => (w.init === 'plain' ? (await this.plain(unit.seed)).dir : this.studentDir);
      const rl = await resolveStage(this.stages, STAGES.rl.key(unit.label), prior, (scope) =>
        this.rlBody(scope, unit.label, w.variant, unit.seed, init),
      );
      return {
        dir: rl.result.dir,
        rl: rl.result,
        trainSeconds: rl.result.wallSeconds,
        stages: [STAGES.rl.key(unit.label)],
        fromFolder: rl.source === 'from',
        ...(prior ? { note: `seed ${unit.seed}: RL run and evaluation reused from ${prior.dir}` } : {}),
      };
    }
    if (w.data === 'plain') {
      const p = await this.plain(unit.seed);
      return { ...p, stages: p.stage ? [p.stage] : [], fromFolder: !!this.base.from && !p.stage };
    }
    this.noReflect ??= await this.stages.runStage(STAGES.collectNoReflect, (scope) =>
      collectStage(this.ctx, scope, {
        dir: this.noReflectDir,
        tasks: this.base.trainTasks,
        maxRounds: 1,
        stopAfter: 1,
        screenshots: false,
      }),
    );
    const c = this.noReflect;
    const suffix = this.label('-noreflect', unit.seed);
    const sft = await this.trainSft(suffix, this.noReflectDir, unit.seed);
    return {
      dir: sft.dir,
      trainSeconds: sft.trainSeconds,
      stages: [`${STAGES.trainSft.key()}${suffix}`],
      note: `one-round collection solved ${c.stats.overall.tasksSolved}/${c.stats.overall.tasks} train tasks (${sft.data.trajectories} trajectories, ${sft.data.examples} examples)`,
      fromFolder: false,
    };
  }

  fromFolderEval(stage: string): { result: EvalStageResult; stage: string; dir: string } | null {
    const from = this.base.from;
    const rec = from ? stageResult<EvalStageResult>(from.store, stage) : null;
    const same =
      rec &&
      rec.setup.runs === this.ctx.preset.eval.runs &&
      rec.setup.maxSteps === this.ctx.preset.eval.maxSteps &&
      rec.setup.taskIds.join() === this.test.map((t) => t.id).join();
    return same && from ? { result: rec, stage, dir: from.dir } : null;
  }

  /** The demo's RL run, as the reference row's first seed when it ran with this budget and seed. */
  private fromFolderRl(
    stage: string,
    seed: number,
  ): { result: RlRunResult; stage: string; dir: string } | null {
    const from = this.base.from;
    const r = from ? stageResult<RlRunResult>(from.store, stage) : null;
    const rlp = this.ctx.preset.rl;
    const same =
      r &&
      r.options?.batchSize === rlp.batchSize &&
      r.options.groupSize === rlp.groupSize &&
      r.options.seed === seed &&
      (r.options.lr ?? undefined) === rlp.lr &&
      r.options.steps === rlSteps(rlp, r.states) &&
      existsSync(join(r.dir, 'config.json'));
    return same && from ? { result: r, stage, dir: from.dir } : null;
  }

  evaluate(unit: Unit, dir: string, scope: StageScope): Promise<EvalStageResult> {
    return evalStage(this.ctx, scope, {
      label: unit.label,
      agent: `policy:${dir}`,
      agentName: unit.label,
      tasks: this.test,
    });
  }

  seedRun(
    unit: Unit,
    e: EvalStageResult,
    inFromFolder: boolean,
    cost: { rollouts: number; rlSeconds: number; trainSeconds: number },
  ) {
    const store = inFromFolder && this.base.from ? this.base.from.store : this.ctx.store;
    const episodes = store
      .listTrajectorySummaries({ tag: evalTag(e.label) })
      .filter((t) => t.round < e.summary.runs);
    return {
      seed: unit.seed,
      label: e.label,
      pass1: e.summary.pass1,
      meanStepsSolved: e.summary.meanStepsSolved,
      perTask: taskOutcomes(
        episodes,
        this.test.map((t) => t.id),
      ),
      ...cost,
    };
  }

  async accuracy(dir: string, scope: StageScope) {
    const p = await this.probesOf();
    scope.log(`${p.heldOut.length} held-out teacher steps, ${p.critical.length} critical states`);
    return stepAccuracies(dir, p);
  }

  curve(rl: RlRunResult) {
    return thinCurve(
      (rl.dir.startsWith(this.ctx.paths.root) ? this.ctx.store : this.baseStore).listMetrics(`rl/${rl.name}`),
    );
  }

  private async probesOf(): Promise<StepProbes> {
    if (this.probes) return this.probes;
    await this.teacherEval(true);
    this.probes = await stepProbes({
      store: this.teacherPrior && this.base.from ? this.base.from.store : this.ctx.store,
      teacherLabel: 'teacher',
      taskIds: this.test.map((t) => t.id),
      critical: this.minedCount ? this.base.paths.critical : null,
    });
    return this.probes;
  }

  // --- the stages units share --------------------------------------------------------------

  private async examples(v: RlVariant): Promise<RlExample[]> {
    if (v.data === 'full-corpus') {
      this.full ??= loadFullCorpus(this.base.paths.collect);
      return this.full;
    }
    if (v.data === 'confirmed') return loadCriticalStates(this.verified!.file, { confirmedOnly: true });
    this.mined ??= await loadCriticalStates(this.base.paths.critical);
    return this.mined;
  }

  private async rlBody(
    scope: StageScope,
    name: string,
    v: RlVariant,
    seed: number,
    init: () => Promise<string>,
  ): Promise<RlRunResult> {
    return rlStage(this.ctx, scope, {
      variant: { ...v, name },
      examples: await this.examples(v),
      init: await init(),
      seed,
    });
  }

  /** The RL stage of one seed of a row (named by its unit label), from the checkpoint `init` resolves to. */
  private rlRun(name: string, v: RlVariant, seed: number, init: () => Promise<string>): Promise<RlRunResult> {
    return this.stages.run(STAGES.rl.key(name), (scope) => this.rlBody(scope, name, v, seed, init));
  }

  /** SFT of one seed on a collection (the stage and model names `demo` gives its own). */
  private trainSft(suffix: string, collectDir: string, seed: number) {
    return this.stages.run(`${STAGES.trainSft.key()}${suffix}`, (scope) =>
      sftStage(this.ctx, scope, { runDir: collectDir, dir: this.ctx.paths.model(`sft${suffix}`), seed }),
    );
  }

  /** The plain SFT student of a seed: the base's own for its seed, else retrained (once) here. */
  private async plain(seed: number): Promise<{ dir: string; trainSeconds: number; stage?: string }> {
    if (seed === this.base.seed) {
      const rec = readStage(this.baseStore, STAGES.trainSft);
      return { dir: this.base.paths.sft, trainSeconds: rec?.result.trainSeconds ?? 0 };
    }
    const sft = await this.trainSft(`-seed${seed}`, this.base.paths.collect, seed);
    return { dir: sft.dir, trainSeconds: sft.trainSeconds, stage: STAGES.trainSftOf.key(`seed${seed}`) };
  }
}

/** A stage's stored result in `store` (validated against its definition), or null. */
function stageResult<R>(store: RunStore, stage: string): R | null {
  return readStageRecord<R>(store, stage)?.result ?? null;
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
  const runs = baseRunFolders(base).map((d, i): [string, MiningSource] => [
    d,
    i === 0 ? 'teacher' : 'student',
  ]);
  for (const [dir, src] of runs)
    for (const t of summaries(dir)) {
      sourceOf.set(t.id, src);
      if (t.success === false) failed[src]++;
    }
  return miningBySource(minedLabels(base.paths.critical), sourceOf, failed, successSteps);
}
