import type { RunStats } from '../../collect/stats.ts';
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

/** What the stages shared by `demo` and `ablate` produced; the student parts are null when the teacher solved nothing. */
export interface BaseResults {
  collect: CollectResult;
  sft: SftStageResult | null;
  rollout: RolloutResult | null;
  mine: MineStats | null;
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
    return { collect, sft: null, rollout: null, mine: null, ...extra };
  }
  const sft = await s.run('train-sft', (scope) =>
    sftStage(ctx, scope, { runDir: ctx.paths.collect, dir: ctx.paths.sft }),
  );
  const rollout = await s.run('rollout', (scope) =>
    rolloutStage(ctx, scope, { tasks: train.slice(0, p.rollout.tasks), checkpoint: ctx.paths.sft }),
  );
  const mine = await s.run('mine', (scope) =>
    mineStage(ctx, scope, {
      runs: [ctx.paths.collect, ctx.paths.rollout],
      out: ctx.paths.critical,
      statsOut: ctx.paths.criticalStats,
    }),
  );
  return { collect, sft, rollout, mine, ...extra };
}

export interface DemoResult {
  base: BaseResults;
  synth: SynthResult;
  rl: RlRunResult | null;
  evals: EvalStageResult[];
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
            init: ctx.paths.sft,
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
        return {
          heldOutSteps: probes.heldOut.length,
          sft,
          rl: rl ? await stepAccuracies(rl.dir, probes) : null,
        };
      })
    : null;

  const stages = demoStageResults(evals, base.collect.stats);
  const timings = { ...s.timings, 'sum of stages': Object.values(s.timings).reduce((a, b) => a + b, 0) };
  const data: ReportData = {
    title: `rmsweb demo (preset ${ctx.preset.name})`,
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
    report,
    table: stagesTable(stages),
    timings,
    skipped: [...s.skipped],
    steps,
    invocationSeconds: (performance.now() - t0) / 1000,
  };
}

function demoStageResults(evals: EvalStageResult[], collection: RunStats): StageResult[] {
  const notes: Record<string, string> = {
    teacher: `heuristic teacher, one attempt per task, no notes (collection with reflection solved ${pct(collection.overall.taskSuccessRate)} of its train tasks)`,
    sft: 'student after SFT on the teacher’s verified successes (notes stripped)',
    'salvage-ds': 'SFT student + Salvage-DS on mined critical states',
  };
  const names: Record<string, string> = {
    teacher: 'teacher (no reflection)',
    sft: 'SFT student',
    'salvage-ds': 'RL student (Salvage-DS)',
  };
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
  if (!b.sft || !b.rollout) return ['- not trained: the teacher solved none of the collection tasks'];
  const f = b.sft.final;
  const lines = [
    `- SFT data: ${b.sft.data.trajectories} successful trajectories, ${b.sft.data.examples} examples; ${b.sft.trainSeconds.toFixed(1)} s of training`,
    f
      ? `- last epoch: train step accuracy ${pct(f.trainStepAccuracy)}${Number.isFinite(f.valStepAccuracy) ? `, validation ${pct(f.valStepAccuracy)}` : ''}`
      : '- no epoch recorded',
    `- student rollouts on train tasks: ${b.rollout.successes}/${b.rollout.episodes} succeeded`,
  ];
  if (rl) {
    lines.push(
      `- Salvage-DS: ${rl.states} critical states, ${rl.steps} steps, ${rl.rolloutsSampled} rollouts sampled, ${rl.wallSeconds.toFixed(1)} s; mean reward ${rl.rewardStart.toFixed(3)} -> ${rl.rewardEnd.toFixed(3)}`,
    );
  }
  if (steps) {
    const f = (x: number | null) => (x === null ? 'n/a' : pct(x));
    lines.push(
      `- greedy step accuracy on the teacher's ${steps.heldOutSteps} verified steps of the held-out test tasks: SFT ${f(steps.sft.heldOut)}${steps.rl ? `, Salvage-DS ${f(steps.rl.heldOut)}` : ''}`,
      `- greedy step accuracy on the mined critical states: SFT ${f(steps.sft.critical)}${steps.rl ? `, Salvage-DS ${f(steps.rl.critical)}` : ''}`,
    );
  }
  return lines;
}

export interface StepReport {
  heldOutSteps: number;
  sft: StepAccuracies;
  rl: StepAccuracies | null;
}
