import type { RunStats } from '../../collect/stats.ts';
import { collectionLedger } from '../../eval/ledger.ts';
import { type ReportData, type StageResult, stagesTable, writeReport } from '../../eval/report.ts';
import type { MineStats } from '../../mine/index.ts';
import { loadCriticalStates } from '../../rl/index.ts';
import { type BaseResults, runBaseStages } from './base-stages.ts';
import type { PipelineContext } from './context.ts';
import { type SynthResult, synthStage } from './data-stages.ts';
import { type EvalStageResult, evalStage } from './eval-stage.ts';
import { type RlRunResult, type RlVariant, rlStage } from './rl-stage.ts';
import { STAGES } from './stage-results.ts';
import { type StepAccuracies, stepAccuracies, stepProbes } from './step-accuracy.ts';

/** The RL variant the demo trains: Salvage-DS with the polarized reward on mined critical states. */
export const DEMO_RL: RlVariant = {
  name: 'salvage-ds',
  algo: 'salvage-ds',
  reward: 'polarized',
  salvage: true,
  data: 'mined',
};

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
  const synth = await s.runStage(STAGES.synth, (scope) => synthStage(ctx, scope));
  const base = await runBaseStages(ctx, { export: true });
  const rl =
    base.mine && base.mine.criticalStates > 0
      ? await s.runStage(
          STAGES.rl,
          async (scope) =>
            rlStage(ctx, scope, {
              variant: DEMO_RL,
              examples: await loadCriticalStates(ctx.paths.critical),
              init: base.student ?? ctx.paths.sft,
            }),
          DEMO_RL.name,
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
    collectionLedger: collectionLedger(ctx.paths.collect),
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
