import { solvingNotes } from '../../collect/solving-notes.ts';
import type { RunStats } from '../../collect/stats.ts';
import type { Task } from '../../core/task.ts';
import type { ExportSftSummary } from '../../data/index.ts';
import { type ReportData, type StageResult, stagesTable, writeReport } from '../../eval/report.ts';
import type { MineStats } from '../../mine/index.ts';
import { loadCriticalStates } from '../../rl/index.ts';
import type { PipelineContext } from './context.ts';
import {
  type CollectResult,
  collectStage,
  exportStage,
  type SynthResult,
  synthStage,
} from './data-stages.ts';
import { type EvalStageResult, evalStage } from './eval-stage.ts';
import { type RlRunResult, type RlVariant, rlStage } from './rl-stage.ts';
import { type StepAccuracies, stepAccuracies, stepProbes } from './step-accuracy.ts';
import {
  mineStage,
  type RolloutResult,
  rolloutStage,
  type SftStageResult,
  sftStage,
} from './student-stages.ts';

/** The RL variant the demo trains: Salvage-DS with the polarized reward on mined critical states. */
export const DEMO_RL: RlVariant = {
  name: 'salvage-ds',
  algo: 'salvage-ds',
  reward: 'polarized',
  salvage: true,
  data: 'mined',
};

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
export const SELECT_STAGE = 'select-student';

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
  const sft = await s.run(`train-sft${sfx}`, (scope) =>
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
      const rollout = await s.run(`dagger-rollout${round}${sfx}`, (scope) =>
        rolloutStage(ctx, scope, {
          tasks: o.tasks.slice(0, ctx.preset.dagger.tasks ?? o.tasks.length),
          checkpoint: prev,
          dir,
          maxSteps: ctx.preset.dagger.maxSteps,
          student: studentName(round - 1),
          expertNotes: notes,
          ...(o.seed !== undefined ? { seed: o.seed } : {}),
        }),
      );
      relabeled.push(dir);
      const retrained = await s.run(`train-sft-dagger${round}${sfx}`, (scope) =>
        sftStage(ctx, scope, {
          runDir: o.collectDir,
          relabeled: [...relabeled],
          dir: ctx.paths.sftDagger(round, sfx),
          ...(o.seed !== undefined ? { seed: o.seed } : {}),
          ...(warm ? { warm: { from: prev, epochs: warm.epochs, lr: warm.lr } } : {}),
        }),
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
  const collect = await s.run('collect', (scope) =>
    collectStage(ctx, scope, {
      dir: ctx.paths.collect,
      tasks: train,
      maxRounds: p.collect.maxRounds,
      stopAfter: p.collect.stopAfter,
    }),
  );
  const exported = opts.export ? await s.run('export-sft', (scope) => exportStage(ctx, scope)) : undefined;
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
      ? await s.run('rollout', (scope) =>
          rolloutStage(ctx, scope, {
            tasks: train.slice(0, Math.max(1, p.rollout.tasks)),
            checkpoint: student,
            student: studentName(startRound),
          }),
        )
      : null;
  // Every student's failures are real failures on train tasks: the relabelled DAgger rollouts are
  // mined too (the miner reads the executed actions, never the expert's labels).
  const mine = await s.run('mine', (scope) =>
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

export interface DemoResult {
  base: BaseResults;
  synth: SynthResult;
  rl: RlRunResult | null;
  evals: EvalStageResult[];
  /** The report's opening sentence: what the student learned, with the numbers. */
  lead: string;
  report: { json: string; markdown: string; html: string };
  table: string;
  timings: Record<string, number>;
  skipped: string[];
  /** Step-level probes of the students (null without a student). */
  steps: StepReport | null;
  /** Wall time of this invocation (small when it resumed finished stages). */
  invocationSeconds: number;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * `rmsweb demo`: synthesize tasks, collect with reflection, export SFT data, train the student, roll
 * it out, mine, Salvage-DS, evaluate the teacher and both students, write the report. Each stage is
 * skipped when an earlier run of the same folder finished it.
 */
export async function runDemo(ctx: PipelineContext): Promise<DemoResult> {
  const s = ctx.stages;
  const t0 = performance.now();
  const synth = await s.run('synth', (scope) => synthStage(ctx, scope));
  const base = await runBaseStages(ctx, { export: true });
  const rl =
    base.mine && base.mine.criticalStates > 0
      ? await s.run('rl-salvage-ds', async (scope) =>
          rlStage(ctx, scope, {
            variant: DEMO_RL,
            examples: await loadCriticalStates(ctx.paths.critical),
            init: base.student ?? ctx.paths.sft,
          }),
        )
      : null;
  if (!rl && base.mine)
    s.log(
      '[rl-salvage-ds] no critical states were mined: the RL student is not trained (see the mining stats)',
    );
  const test = ctx.testTasks();
  const evals: EvalStageResult[] = [];
  evals.push(
    await s.run('eval-teacher', (scope) =>
      evalStage(ctx, scope, { label: 'teacher', agent: 'heuristic', tasks: test }),
    ),
  );
  if (base.sft) {
    evals.push(
      await s.run('eval-sft', (scope) =>
        evalStage(ctx, scope, {
          label: 'sft',
          agent: `policy:${ctx.paths.sft}`,
          agentName: 'policy:models/sft',
          tasks: test,
        }),
      ),
    );
  }
  for (const d of base.dagger) {
    evals.push(
      await s.run(`eval-sft-dagger${d.round}`, (scope) =>
        evalStage(ctx, scope, {
          label: `sft-dagger${d.round}`,
          agent: `policy:${d.sft.dir}`,
          agentName: `policy:models/sft-dagger${d.round}`,
          tasks: test,
        }),
      ),
    );
  }
  if (rl) {
    evals.push(
      await s.run('eval-salvage-ds', (scope) =>
        evalStage(ctx, scope, {
          label: 'salvage-ds',
          agent: `policy:${rl.dir}`,
          agentName: 'policy:models/salvage-ds',
          tasks: test,
        }),
      ),
    );
  }
  await ctx.closeWorld();
  const steps = base.sft
    ? await s.run('step-accuracy', async (scope) => {
        const probes = await stepProbes({
          store: ctx.store,
          teacherLabel: 'teacher',
          taskIds: test.map((t) => t.id),
          critical: base.mine?.criticalStates ? ctx.paths.critical : null,
        });
        scope.log(
          `${probes.heldOut.length} held-out teacher steps, ${probes.critical.length} critical states`,
        );
        const sft = await stepAccuracies(ctx.paths.sft, probes);
        const last = base.dagger.at(-1);
        return {
          heldOutSteps: probes.heldOut.length,
          sft,
          dagger: last ? await stepAccuracies(last.sft.dir, probes) : null,
          rl: rl ? await stepAccuracies(rl.dir, probes) : null,
        };
      })
    : null;

  const stages = demoStageResults(evals, base.collect.stats, base.dagger.length, base.startRound);
  const timings = { ...s.timings, 'sum of stages': Object.values(s.timings).reduce((a, b) => a + b, 0) };
  const lead = demoLead(ctx, base, stages);
  const data: ReportData = {
    title: `rmsweb demo (preset ${ctx.preset.name}${ctx.preset.sites ? `; sites ${ctx.preset.sites.join(', ')}` : ''})`,
    lead,
    createdAt: new Date().toISOString(),
    config: {
      preset: ctx.preset,
      seed: ctx.settings.seed,
      worldSeed: ctx.settings.worldSeed,
      out: ctx.paths.root,
    },
    stages,
    collection: base.collect.stats,
    ...(base.mine ? { mining: miningSummary(base.mine) } : {}),
    rlCurves: rl
      ? [{ name: 'salvage-ds (mined states)', points: ctx.store.listMetrics(`rl/${DEMO_RL.name}`) }]
      : [],
    timings,
    sections: [
      { title: 'Task synthesis (offline rewriter)', lines: synthLines(synth) },
      { title: 'Student', lines: studentLines(base, rl, steps) },
    ],
  };
  const report = writeReport(ctx.paths.report, data);
  return {
    base,
    synth,
    rl,
    evals,
    lead,
    report,
    table: stagesTable(stages),
    timings,
    skipped: [...s.skipped],
    steps,
    invocationSeconds: (performance.now() - t0) / 1000,
  };
}

/** One plain sentence of what was learned, with the numbers (the report and the CLI open with it). */
function demoLead(ctx: PipelineContext, base: BaseResults, stages: StageResult[]): string {
  const c = base.collect.stats.overall;
  const where = ctx.preset.sites ? ` of ${ctx.preset.sites.join(' and ')}` : '';
  const first = stages[0]?.summary;
  if (!first) return 'No evaluation ran.';
  const test = `${first.tasks} held-out test tasks${where}`;
  if (!base.sft)
    return `The teacher solved none of its ${c.tasks} train tasks, so no student was trained; the teacher alone reaches ${pct(first.pass1.mean)} on ${test}.`;
  const students = stages.slice(1).map((st) => `${st.stage} ${pct(st.summary.pass1.mean)}`);
  return (
    `From ${c.tasksSolved} train tasks${where} the teacher solved with reflection (${base.sft.data.examples} supervised examples), ` +
    `the student went from nothing to ${students.join(', then ')} pass@1 on ${test}` +
    ` (the teacher without notes: ${pct(first.pass1.mean)}).`
  );
}

function demoStageResults(
  evals: EvalStageResult[],
  collection: RunStats,
  rounds: number,
  startRound: number,
): StageResult[] {
  const dagger = (r: number) => (rounds > 1 ? `SFT + relabelling (round ${r})` : 'SFT + relabelling');
  const start = startRound ? dagger(startRound) : 'SFT';
  const notes: Record<string, string> = {
    teacher: `heuristic teacher, one attempt per task, no notes (collection with reflection solved ${pct(collection.overall.taskSuccessRate)} of its train tasks)`,
    sft: 'student after SFT on the teacher’s verified successes (notes stripped)',
    'salvage-ds': `the ${start} student + Salvage-DS on mined critical states${startRound < rounds ? ' (the validation split chose it as the start)' : ''}`,
  };
  const names: Record<string, string> = {
    teacher: 'teacher (no reflection)',
    sft: 'SFT on teacher data',
    'salvage-ds': `${start} + Salvage-DS`,
  };
  for (let r = 1; r <= rounds; r++) {
    names[`sft-dagger${r}`] = dagger(r);
    notes[`sft-dagger${r}`] =
      `retrained on the teacher data plus the states ${r > 1 ? `${r} students` : 'the SFT student'} reached on train tasks, each labelled by the teacher with its solving note (DAgger)`;
  }
  return evals.map((e) => ({ stage: names[e.label] ?? e.label, summary: e.summary, note: notes[e.label] }));
}

function miningSummary(m: MineStats): Record<string, unknown> {
  return {
    trajectories: m.trajectories,
    successes: m.successes,
    failed: m.failed,
    wandering: m.wandering,
    pairsConsidered: m.pairsConsidered,
    pairsWithDivergence: m.pairsWithDivergence,
    criticalStates: m.criticalStates,
    successSteps: m.successSteps,
    yield: m.yield,
    perLabel: Object.fromEntries(Object.entries(m.perLabel).filter(([, n]) => n > 0)),
    perSite: m.perSite,
  };
}

function synthLines(r: SynthResult): string[] {
  return [
    `- ${r.queries} raw queries sampled from the world's corpus of ${r.corpus}; ${r.grounded} grounded into executable tasks (${pct(r.grounded / Math.max(1, r.queries))}), ${r.dropped} dropped with a reason`,
    `- grounded tasks on the query's own template: ${r.templateAgrees}; with exactly the query's parameter values: ${r.exact}`,
    `- split of the grounded tasks: ${r.train} train, ${r.test} test; train ones equal to a generated world train task: ${r.inTrainPool}`,
    '- the collection pool is the generated world train tasks; the synthesized tasks are written to tasks/synth.jsonl and counted here',
    ...r.topDropReasons.map((d) => `- dropped because "${d.reason}": ${d.count}`),
  ];
}

function studentLines(b: BaseResults, rl: RlRunResult | null, steps: StepReport | null): string[] {
  if (!b.sft) return ['- not trained: the teacher solved none of the collection tasks'];
  const f = b.sft.final;
  const lines = [
    `- SFT data: ${b.sft.data.trajectories} successful trajectories, ${b.sft.data.examples} examples; ${b.sft.trainSeconds.toFixed(1)} s of training`,
    f
      ? `- last epoch: train step accuracy ${pct(f.trainStepAccuracy)}${Number.isFinite(f.valStepAccuracy) ? `, validation ${pct(f.valStepAccuracy)}` : ''}`
      : '- no epoch recorded',
    ...b.dagger.map((d) => {
      const r = d.rollout.relabeled;
      const fin = d.sft.final;
      return (
        `- DAgger round ${d.round}: the student succeeded on ${d.rollout.successes}/${d.rollout.episodes} solved train tasks; the teacher labelled ${r?.steps ?? 0} states it reached and would have acted differently on ${r?.disagreements ?? 0}; ` +
        (d.sft.warm
          ? `continued the previous student for ${d.sft.warm.epochs} epochs at lr ${d.sft.warm.lr} on ${d.sft.data.examples} examples (${d.sft.trainSeconds.toFixed(1)} s)`
          : `retrained from scratch on ${d.sft.data.examples} examples (${d.sft.trainSeconds.toFixed(1)} s)`) +
        (fin && Number.isFinite(fin.valStepAccuracy)
          ? `, validation step accuracy ${pct(fin.valStepAccuracy)}`
          : '')
      );
    }),
    ...(b.selection
      ? [
          `- the student RL starts from, chosen on ${b.selection.tasks} train tasks outside the collection (one greedy run, max ${b.selection.maxSteps} steps): ${b.selection.candidates.map((c) => `${c.round ? `round ${c.round}` : 'SFT'} ${pct(c.pass1)}`).join(', ')} -> ${b.selection.chosen ? `round ${b.selection.chosen}` : 'SFT'}`,
        ]
      : []),
    b.rollout
      ? `- rollouts of the starting student on train tasks (for mining): ${b.rollout.successes}/${b.rollout.episodes} succeeded`
      : '- mining reads the relabelled DAgger rollouts (no separate rollout stage in this preset)',
  ];
  if (rl) {
    lines.push(
      `- Salvage-DS: ${rl.states} critical states, ${rl.steps} steps, ${rl.rolloutsSampled} rollouts sampled, ${rl.wallSeconds.toFixed(1)} s; mean reward ${rl.rewardStart.toFixed(3)} -> ${rl.rewardEnd.toFixed(3)}`,
    );
  }
  if (steps) {
    const f = (x: number | null) => (x === null ? 'n/a' : pct(x));
    lines.push(
      `- greedy step accuracy on the teacher's ${steps.heldOutSteps} verified steps of the held-out test tasks: SFT ${f(steps.sft.heldOut)}${steps.dagger ? `, SFT + relabelling ${f(steps.dagger.heldOut)}` : ''}${steps.rl ? `, Salvage-DS ${f(steps.rl.heldOut)}` : ''}`,
      `- greedy step accuracy on the mined critical states: SFT ${f(steps.sft.critical)}${steps.dagger ? `, SFT + relabelling ${f(steps.dagger.critical)}` : ''}${steps.rl ? `, Salvage-DS ${f(steps.rl.critical)}` : ''}`,
    );
  }
  return lines;
}

export interface StepReport {
  heldOutSteps: number;
  sft: StepAccuracies;
  /** The student after the last DAgger round (null without DAgger). */
  dagger?: StepAccuracies | null;
  rl: StepAccuracies | null;
}
