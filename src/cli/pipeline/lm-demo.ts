import type { RunStats } from '../../collect/stats.ts';
import { collectionLedger } from '../../eval/ledger.ts';
import { type ReportData, type StageResult, stagesTable, writeReport } from '../../eval/report.ts';
import type { MineStats } from '../../mine/index.ts';
import type { PipelineContext } from './context.ts';
import { type CollectResult, collectStage } from './data-stages.ts';
import type { EvalStageResult } from './eval-stage.ts';
import {
  lmEndings,
  lmRows,
  lmRowsTable,
  recordInvocation,
  stageTimes,
  writeLmStudent,
} from './lm-results.ts';
import {
  checkLmLayoutVersion,
  chooseFinetuneStage,
  daggerTasks,
  type FinetuneChoiceResult,
  LM_STAGES,
  type LmDaggerSftResult,
  type LmModelRef,
  type LmRlResult,
  type LmRlVariant,
  type LmRolloutResult,
  type LmSftResult,
  lmDaggerSftStage,
  lmEvalStage,
  lmExportRlStage,
  lmExportStage,
  lmPaths,
  lmRlStage,
  lmRolloutStage,
  lmSettings,
  lmSftStage,
} from './lm-stages.ts';
import { commandLine, gitState } from './provenance.ts';
import { STAGES } from './stage-results.ts';
import { mineStage } from './student-stages.ts';

/** A SFT student as the inference routes run it (a LoRA student's adapter stacks on the base). */
const sftRef = (r: LmSftResult): LmModelRef => ({ dir: r.dir, adapters: r.mode === 'lora' ? [r.dir] : [] });

/**
 * The RL ablation rows (`--lm-ablation`): the same SFT student (the first seed's), mined states,
 * budget and seed as Salvage-DS, with one part of the method changed.
 */
export const LM_ABLATION_ROWS = [
  {
    label: 'lm-nosalvage',
    suffix: 'nosalvage',
    curve: 'Salvage-DS without salvage',
    title: 'SFT + Salvage-DS without salvage',
    note: 'Salvage-DS with groups that have no contrast dropped instead of salvaged (--no-salvage)',
    variant: { algo: 'salvage-ds', reward: 'polarized', salvage: false } as LmRlVariant,
  },
  {
    label: 'lm-grpo-exact',
    suffix: 'grpo-exact',
    curve: 'GRPO, exact-match reward',
    title: 'SFT + GRPO (exact-match reward)',
    note: 'plain GRPO with a 0/1 reward for the exact teacher action, on the same mined states',
    variant: { algo: 'grpo', reward: 'exact', salvage: true } as LmRlVariant,
  },
] as const;

/** What the command passes besides the pipeline's settings. */
export interface LmDemoOptions {
  /** Also write lm-student.{md,json} here, machine paths named by role (e.g. `results/`). */
  resultsDir?: string;
  /** The command line to record (default: this process's). */
  command?: string;
}

/** What `rmsweb demo --preset lm` produced (the command prints it; the report holds it all). */
export interface LmDemoResult {
  /** lm-student.{md,json} in the run folder (and in `--results`). */
  results: ReturnType<typeof writeLmStudent>;
  /** The markdown table of every row over its seeds, with paired CIs against Salvage-DS. */
  lmTable: string;
  collect: CollectResult;
  choice: FinetuneChoiceResult;
  /** One SFT student per training seed (index k: the pipeline's seed + k). */
  sft: LmSftResult[];
  rollout: LmRolloutResult;
  mine: MineStats;
  /** The DAgger rounds of the first seed's SFT student, in order (empty with `--lm-dagger 0`). */
  dagger: LmDaggerRound[];
  /** One Salvage-DS student per training seed; empty when nothing was mined. */
  rl: LmRlResult[];
  evals: EvalStageResult[];
  lead: string;
  table: string;
  report: { json: string; markdown: string; html: string };
  timings: Record<string, number>;
  skipped: string[];
  invocationSeconds: number;
}

/** One DAgger round: the rollouts its labels came from (round 1: the rollout stage's) and its student. */
export interface LmDaggerRound {
  round: number;
  rollout: LmRolloutResult;
  sft: LmDaggerSftResult;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
/** Stage-name suffix of training seed k (none for the first, so a one-seed run reads plainly). */
const seedSuffix = (k: number) => (k ? `-seed${k}` : '');

/**
 * `rmsweb demo --preset lm`: the quick preset's collection (the same stage, tasks and seeds), the
 * collection's steps as lm rows, the LoRA-or-full choice on a validation split of train tasks,
 * SFT of the LM per training seed, the evaluation of the base model and of the first SFT student
 * as soon as it exists, greedy rollouts of that student on train tasks, mining (teacher failures
 * and the student's, against the teacher's successes), the mined states as lm RL rows, Salvage-DS
 * per seed, and the evaluation of every other student on the test tasks, each evaluation run
 * under its own perturbation seed (the same seeds for every row, so rows are paired). Each stage is
 * skipped when an earlier run of the folder finished it.
 */
export async function runLmDemo(ctx: PipelineContext, o: LmDemoOptions = {}): Promise<LmDemoResult> {
  const s = ctx.stages;
  const p = ctx.preset;
  const lm = lmSettings(ctx);
  const t0 = performance.now();
  // The code that runs is the code at start: record its commit before any stage can run.
  const git = gitState();
  const invocations = recordInvocation(ctx.store, {
    startedAt: new Date().toISOString(),
    command: o.command ?? commandLine(),
    commit: git.commit,
    dirty: git.dirty,
  });
  const train = ctx.trainTasks();
  // The base stages' collection, with their arguments: the lm student learns from quick's data.
  const collect = await s.runStage(STAGES.collect, (scope) =>
    collectStage(ctx, scope, {
      dir: ctx.paths.collect,
      tasks: train,
      maxRounds: p.collect.maxRounds,
      stopAfter: p.collect.stopAfter,
    }),
  );
  await s.runStage(LM_STAGES.exportSft, (scope) => lmExportStage(ctx, scope));
  checkLmLayoutVersion(ctx.paths.root);
  const choice = await s.runStage(LM_STAGES.choose, (scope) => chooseFinetuneStage(ctx, scope));
  const sftOf = (k: number) =>
    s.runStage(LM_STAGES.sft, (scope) => lmSftStage(ctx, scope, { mode: choice.chosen, k }), seedSuffix(k));
  const test = ctx.testTasks();
  const evals: EvalStageResult[] = [];
  const sft: LmSftResult[] = [];
  const rl: LmRlResult[] = [];
  const ablation: Array<{ row: (typeof LM_ABLATION_ROWS)[number]; result: LmRlResult }> = [];
  const dagger: LmDaggerRound[] = [];
  let rollout: LmRolloutResult | undefined;
  /** lm-student.{md,json} from what has finished so far: a run that spans sessions keeps its table. */
  const publish = (partial: boolean) => {
    const table = lmRows(ctx.store, evals, { seed: ctx.settings.seed });
    const lines = lmLines(choice, sft, rollout, dagger, rl, ablation);
    const files = writeLmStudent(
      ctx.paths.root,
      {
        title: `rmsweb demo --preset ${p.name}: ${lm.model.split('/').at(-1)} through the recipe${partial ? ' (partial: the run has stages left; rerun its command to resume)' : ''}`,
        lead: lmLead(ctx, collect, sft, evals),
        lines,
        rows: table,
        endings: lmEndings(ctx.store, evals),
        stages: stageTimes(ctx.store, s.timings, invocations),
        invocations,
        seed: ctx.settings.seed,
        worldSeed: ctx.settings.worldSeed,
        preset: p,
        tasks: test.length,
        model: lm.model,
      },
      o.resultsDir,
    );
    return { table, lines, files };
  };
  const evaluate = async (label: string, model: LmModelRef, agentName: string) => {
    evals.push(
      await s.run(`eval-${label}`, (scope) =>
        lmEvalStage(ctx, scope, { label, model, agentName, tasks: test }),
      ),
    );
    publish(true);
  };
  /** A student trained from the SFT student of seed k, as the inference routes run it. */
  const fromSft = (k: number, dir: string): LmModelRef => {
    const init = sftRef(sft[k]!);
    return { dir, adapters: init.adapters.length ? [...init.adapters, dir] : [] };
  };
  const evalSft = (k: number) =>
    evaluate(`lm-sft${seedSuffix(k)}`, sftRef(sft[k]!), `lm:models/lm-sft${seedSuffix(k)}`);
  const evalRl = async (k: number) => {
    const r = rl[k];
    if (r)
      await evaluate(
        `lm-salvage-ds${seedSuffix(k)}`,
        fromSft(k, r.dir),
        `lm:models/lm-salvage-ds${seedSuffix(k)}`,
      );
  };
  // The first seed's whole recipe runs before the ablation rows and the other seeds, so that a
  // run stopped early (or resumed with more seeds or rows) has its main rows first; the base and
  // the SFT student are evaluated as soon as they exist, so that a run cut off during RL (hours in
  // on a CPU) has already published the SFT row.
  sft.push(await sftOf(0));
  await evaluate('lm-base', { dir: lm.model, adapters: [] }, 'lm:base');
  await evalSft(0);
  rollout = await s.runStage(LM_STAGES.rollout, (scope) =>
    lmRolloutStage(ctx, scope, { tasks: train.slice(0, lm.rollout.tasks), student: sftRef(sft[0]!) }),
  );
  const runs = [ctx.paths.collect, ctx.paths.rollout];
  const mine = await s.runStage(STAGES.mine, (scope) =>
    mineStage(ctx, scope, { runs, out: ctx.paths.critical, statsOut: ctx.paths.criticalStats }),
  );
  const rows =
    mine.criticalStates > 0
      ? await s.runStage(LM_STAGES.exportRl, (scope) => lmExportRlStage(ctx, scope, { runs }))
      : null;
  if (!rows) s.log('[lm-rl-salvage-ds] no critical states were mined: no RL student (see the mining stats)');
  // DAgger on the first seed's SFT student, before its RL: the row most likely to move the student
  // off the floor (results/lm-sft-tuning.md) is measured first. Round r > 1 rolls out round r - 1's
  // student on the next train tasks; every round's student trains over the SFT student.
  const lp = lmPaths(ctx.paths.root);
  const daggerRuns = [ctx.paths.rollout];
  for (let r = 1; r <= lm.dagger.rounds; r++) {
    const prev = dagger.at(-1);
    const roundRollout = prev
      ? await s.runStage(
          LM_STAGES.daggerRollout,
          (scope) =>
            lmRolloutStage(ctx, scope, {
              tasks: daggerTasks(train, r, lm.rollout.tasks),
              student: fromSft(0, prev.sft.dir),
              dir: lp.daggerRollout(r),
              name: `student-lm-dagger${prev.round}`,
            }),
          String(r),
        )
      : rollout;
    if (prev) daggerRuns.push(lp.daggerRollout(r));
    const roundSft = await s.runStage(
      LM_STAGES.daggerSft,
      (scope) => lmDaggerSftStage(ctx, scope, { round: r, init: sft[0]!, rollouts: [...daggerRuns] }),
      String(r),
    );
    dagger.push({ round: r, rollout: roundRollout, sft: roundSft });
  }
  const lastRound = dagger.at(-1);
  if (lastRound)
    await evaluate('lm-dagger', fromSft(0, lastRound.sft.dir), `lm:models/lm-dagger${lastRound.round}`);
  const rlOf = (k: number, name: string, suffix: string, variant?: LmRlVariant, dir?: string) =>
    s.runStage(
      LM_STAGES.rl,
      (scope) =>
        lmRlStage(ctx, scope, {
          name,
          init: sft[k]!.dir,
          data: rows!.out,
          states: rows!.rows,
          mode: choice.chosen,
          k,
          variant,
          dir,
        }),
      suffix,
    );
  if (rows) rl.push(await rlOf(0, 'lm-salvage-ds', 'salvage-ds'));
  await evalRl(0);
  if (lm.ablation && rows)
    for (const row of LM_ABLATION_ROWS) {
      const dir = lmPaths(ctx.paths.root).rlRow(row.label);
      const result = await rlOf(0, row.label, row.suffix, row.variant, dir);
      ablation.push({ row, result });
      await evaluate(row.label, fromSft(0, result.dir), `lm:models/${row.label}`);
    }
  for (let k = 1; k < lm.seeds; k++) {
    sft.push(await sftOf(k));
    if (rows) rl.push(await rlOf(k, `lm-salvage-ds${seedSuffix(k)}`, `salvage-ds${seedSuffix(k)}`));
    await evalSft(k);
    await evalRl(k);
  }
  await ctx.closeWorld();

  const stages = lmStageResults(evals, choice, collect.stats);
  const timings = { ...s.timings, 'sum of stages': Object.values(s.timings).reduce((a, b) => a + b, 0) };
  const lead = lmLead(ctx, collect, sft, evals);
  const data: ReportData = {
    title: `rmsweb demo (preset ${p.name}${p.sites ? `; sites ${p.sites.join(', ')}` : ''}; LM student ${lm.model})`,
    lead,
    createdAt: new Date().toISOString(),
    config: { preset: p, seed: ctx.settings.seed, worldSeed: ctx.settings.worldSeed, out: ctx.paths.root },
    stages,
    collection: collect.stats,
    collectionLedger: collectionLedger(ctx.paths.collect),
    mining: {
      trajectories: mine.trajectories,
      successes: mine.successes,
      failed: mine.failed,
      pairsConsidered: mine.pairsConsidered,
      criticalStates: mine.criticalStates,
      yield: mine.yield,
    },
    rlCurves: [
      ...rl.map((r, k) => ({
        name: `Salvage-DS (lm, mined states${lm.seeds > 1 ? `, seed ${r.seed}` : ''})`,
        points: ctx.store.listMetrics(`rl/lm-salvage-ds${seedSuffix(k)}`),
      })),
      ...ablation.map((a) => ({
        name: `${a.row.curve} (lm, mined states)`,
        points: ctx.store.listMetrics(`rl/${a.row.label}`),
      })),
    ],
    timings,
    sections: [],
  };
  // The table of the issue: every row over its seeds, with its paired CI against Salvage-DS.
  const { table: lmTable, lines, files: results } = publish(false);
  data.sections = [
    {
      title: 'LM student: pass@1 over training seeds, paired CIs against Salvage-DS',
      lines: lmRowsTable(lmTable, ctx.settings.seed).split('\n'),
    },
    { title: 'LM student', lines },
  ];
  const report = writeReport(ctx.paths.report, data);
  return {
    results,
    lmTable: lmRowsTable(lmTable, ctx.settings.seed),
    collect,
    choice,
    sft,
    rollout,
    mine,
    dagger,
    rl,
    evals,
    lead,
    table: stagesTable(stages),
    report,
    timings,
    skipped: [...s.skipped],
    invocationSeconds: (performance.now() - t0) / 1000,
  };
}

/** The table's rows: names and notes of the base, SFT and Salvage-DS evaluations. */
export function lmStageResults(
  evals: EvalStageResult[],
  choice: FinetuneChoiceResult,
  collection: RunStats,
): StageResult[] {
  const mode = choice.chosen === 'lora' ? 'LoRA' : 'full fine-tuning';
  const how =
    choice.how === 'auto' ? 'chosen on held-out train tasks' : 'fixed by the preset or --lm-finetune';
  return evals.map((e) => {
    const seed = /-seed(\d+)$/.exec(e.label)?.[1];
    const tail = seed ? ` (training seed +${seed})` : '';
    const row = LM_ABLATION_ROWS.find((r) => r.label === e.label);
    if (row) return { stage: row.title, summary: e.summary, note: row.note };
    if (e.label === 'lm-base')
      return {
        stage: 'base LM (no fine-tuning)',
        summary: e.summary,
        note: 'the pretrained model, prompted in the lm layout',
      };
    if (e.label === 'lm-dagger')
      return {
        stage: 'SFT + relabelling (DAgger)',
        summary: e.summary,
        note: "the first seed's SFT student + LoRA on the teacher's labels of the states its DAgger rounds' students reached",
      };
    if (e.label.startsWith('lm-sft'))
      return {
        stage: `SFT${tail}`,
        summary: e.summary,
        note: `${mode} (${how}) on the teacher's verified steps (the collection solved ${pct(collection.overall.taskSuccessRate)} of its train tasks)`,
      };
    return {
      stage: `SFT + Salvage-DS${tail}`,
      summary: e.summary,
      note: 'the SFT student + Salvage-DS (polarized reward, salvage) on the mined critical states',
    };
  });
}

/** One plain sentence of what the LM learned, with the numbers (mean over training seeds). */
function lmLead(
  ctx: PipelineContext,
  collect: CollectResult,
  sft: LmSftResult[],
  evals: EvalStageResult[],
): string {
  const where = ctx.preset.sites ? ` of ${ctx.preset.sites.join(' and ')}` : '';
  const base = evals.find((e) => e.label === 'lm-base');
  if (!base) return 'No evaluation ran.';
  const meanOf = (prefix: string) => {
    const xs = evals.filter((e) => e.label.startsWith(prefix)).map((e) => e.summary.pass1.mean);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  const sftRate = meanOf('lm-sft');
  const rlRate = meanOf('lm-salvage-ds');
  const daggerRate = meanOf('lm-dagger');
  const seeds = sft.length > 1 ? ` (means over ${sft.length} training seeds)` : '';
  return (
    `Fine-tuned on ${sft[0]?.rows ?? 0} teacher steps from ${collect.stats.overall.tasksSolved} solved train tasks${where}, ` +
    `the language model went from ${pct(base.summary.pass1.mean)} (base) to ${sftRate === null ? 'n/a' : pct(sftRate)} after SFT` +
    (daggerRate === null ? '' : `, ${pct(daggerRate)} after DAgger (first seed)`) +
    (rlRate === null ? '' : ` and ${pct(rlRate)} after Salvage-DS`) +
    ` pass@1 on ${base.summary.tasks} held-out test tasks${where}${seeds}.`
  );
}

function lmLines(
  choice: FinetuneChoiceResult,
  sft: LmSftResult[],
  rollout: LmRolloutResult | undefined,
  dagger: LmDaggerRound[],
  rl: LmRlResult[],
  ablation: Array<{ row: (typeof LM_ABLATION_ROWS)[number]; result: LmRlResult }>,
): string[] {
  const lines: string[] = [];
  if (choice.how === 'auto') {
    lines.push(
      `- LoRA or full (a small-budget proxy of the SFT run): both trained on the same ${choice.trainRows} rows, scored on ${choice.valSteps} teacher steps of ${choice.valTasks.length} held-out train tasks (greedy, through hf): ` +
        choice.trials
          .map(
            (t) =>
              `${t.mode} (lr ${t.lr}) equivalent ${pct(t.equivalent)}, exact ${pct(t.exact)}, ${t.unparsable} unusable replies, trained in ${t.trainSeconds.toFixed(0)} s`,
          )
          .join('; ') +
        ` -> ${choice.chosen}`,
    );
  } else lines.push(`- fine-tuning mode fixed: ${choice.chosen} (no validation choice run)`);
  for (const r of sft)
    lines.push(
      `- SFT (seed ${r.seed}): ${r.mode}, ${r.rows} rows x ${r.epochs} epoch(s) at lr ${r.lr}, ${r.trainSeconds.toFixed(0)} s${r.resumedFromStep === undefined ? '' : ` after resuming at step ${r.resumedFromStep}`} (${r.rowsPerSecond.toFixed(3)} rows/s${r.tokensPerSecond === null ? '' : `, ${r.tokensPerSecond.toFixed(0)} tokens/s`}); last loss ${r.finalLoss?.toFixed(4) ?? 'n/a'}`,
    );
  if (rollout)
    lines.push(
      `- rollouts of the SFT student on train tasks (for mining): ${rollout.successes}/${rollout.episodes} succeeded, ${rollout.steps} steps`,
    );
  for (const d of dagger) {
    const r = d.rollout;
    const who = d.round === 1 ? 'the SFT student' : `round ${d.round - 1}'s student`;
    const labels = r.relabeled
      ? `; the teacher labelled ${r.relabeled.steps} states and would have acted otherwise on ${r.relabeled.disagreements}`
      : '';
    lines.push(
      `- DAgger round ${d.round}: ${who} solved ${r.successes}/${r.episodes} train tasks${d.round === 1 ? ' (the rollouts above)' : ' new to the rounds'}${labels}; ` +
        `round ${d.round}'s student: ${d.sft.relabeledRows} labelled states (${d.sft.gaveUp} give-ups left out) + ${d.sft.collectionRows} SFT rows x ${d.sft.epochs} epoch(s), ${d.sft.trainSeconds.toFixed(0)} s${d.sft.resumedFromStep === undefined ? '' : ` after resuming at step ${d.sft.resumedFromStep}`}; last loss ${d.sft.finalLoss?.toFixed(4) ?? 'n/a'}`,
    );
  }
  const rlLine = (name: string, r: LmRlResult) =>
    `- ${name} (seed ${r.seed}): ${r.states} lm rows, ${r.steps} steps, ${r.rolloutsSampled} rollouts in ${r.wallSeconds.toFixed(0)} s` +
    `${r.completionTokensPerSecond ? ` (${r.completionTokensPerSecond.toFixed(1)} generated tokens/s over the whole run)` : ''}` +
    `; mean reward ${r.rewardStart?.toFixed(3) ?? 'n/a'} -> ${r.rewardEnd?.toFixed(3) ?? 'n/a'}; salvage share ${r.salvageShare?.toFixed(2) ?? 'n/a'}`;
  for (const r of rl) lines.push(rlLine('Salvage-DS', r));
  for (const a of ablation) lines.push(rlLine(a.row.curve, a.result));
  return lines;
}
