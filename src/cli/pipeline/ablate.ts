import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, RmswebError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { ablationTable, type ReportData, writeReport } from '../../eval/report.ts';
import { loadCriticalStates, loadFullCorpus, type RlExample } from '../../rl/index.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { RunStore } from '../../store/run-store.ts';
import { sampleTasks, worldTasksOf } from '../tasks-arg.ts';
import {
  type AblationRowResult,
  ablationMarkdown,
  checkTargets,
  ROW_TITLES,
  type RowId,
  type TargetCheck,
} from './ablation-table.ts';
import { type PipelineContext, type PipelinePaths, pipelinePaths } from './context.ts';
import { collectStage } from './data-stages.ts';
import { runBaseStages, trainStudentStages } from './demo.ts';
import { type EvalStageResult, evalStage } from './eval-stage.ts';
import { type PipelinePreset, rlSteps } from './presets.ts';
import { type RlRunResult, type RlVariant, rlStage } from './rl-stage.ts';
import { readStageRecord } from './stage.ts';
import { type StepAccuracies, stepAccuracies, stepProbes } from './step-accuracy.ts';

/** The RL rows of the ablation: each trains from the same SFT checkpoint with the preset's budget. */
export const ABLATION_RL: Array<RlVariant & { name: RowId }> = [
  { name: 'salvage-ds-mined', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'mined' },
  { name: 'salvage-ds-full', algo: 'salvage-ds', reward: 'polarized', salvage: true, data: 'full-corpus' },
  { name: 'salvage-ds-nosalvage', algo: 'salvage-ds', reward: 'polarized', salvage: false, data: 'mined' },
  { name: 'dapo-mined', algo: 'dapo', reward: 'polarized', data: 'mined' },
  { name: 'grpo-exact', algo: 'grpo', reward: 'exact', data: 'mined' },
];

/** Where the ablation's shared inputs (collection, SFT checkpoint, mined states) come from. */
interface Base {
  paths: PipelinePaths;
  trainTasks: Task[];
  /** DAgger rounds of the base student (0: the SFT student is the base). */
  daggerRounds: number;
  /** The folder's finished stage records, when taken from `--from`. */
  from?: { dir: string; store: RunStore; preset: string };
}

export interface AblationResult {
  rows: AblationRowResult[];
  targets: TargetCheck[];
  markdown: string;
  table: string;
  files: { markdown: string; json: string; report: string };
  timings: Record<string, number>;
  skipped: string[];
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
  const needed = ['collect', 'train-sft', ...(rounds ? [`train-sft-dagger${rounds}`] : []), 'mine'];
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
  return {
    paths,
    trainTasks,
    daggerRounds: settings.preset.dagger?.rounds ?? 0,
    from: { dir: paths.root, store, preset: settings.preset.name },
  };
}

/** A stage result of the `--from` folder when it was made with exactly the setup this run would use. */
function reusable<R>(base: Base, stage: string, same: (r: R) => boolean): R | null {
  const rec = base.from ? readStageRecord<R>(base.from.store, stage) : null;
  return rec && same(rec.result) ? rec.result : null;
}

/**
 * `rmsweb ablate`: the paper's table on the offline world. Every row is evaluated on the same
 * held-out test tasks with the same runs; RL rows start from the same SFT checkpoint with the same
 * pass budget; the no-reflection row collects the same train tasks in one round without notes.
 */
export async function runAblation(
  ctx: PipelineContext,
  opts: { from?: string } = {},
): Promise<AblationResult> {
  const s = ctx.stages;
  let base: Base;
  if (opts.from) base = openFrom(ctx, opts.from);
  else {
    const b = await runBaseStages(ctx);
    if (!b.sft)
      throw new RmswebError(
        'the teacher solved none of the collection tasks: there is no SFT student to ablate',
        { code: 'NO_DATA' },
      );
    base = { paths: ctx.paths, trainTasks: ctx.trainTasks(), daggerRounds: b.dagger.length };
  }
  // The supervised student every RL row starts from: after the last DAgger round when there is one.
  const studentDir = base.daggerRounds ? base.paths.sftDagger(base.daggerRounds) : base.paths.sft;
  const studentStage = base.daggerRounds ? `train-sft-dagger${base.daggerRounds}` : 'train-sft';
  try {
    const test = ctx.testTasks();
    const sameEval = (r: EvalStageResult) =>
      r.setup.runs === ctx.preset.eval.runs &&
      r.setup.maxSteps === ctx.preset.eval.maxSteps &&
      r.setup.taskIds.join() === test.map((t) => t.id).join();
    const evalRow = async (
      id: RowId,
      agentDir: string,
      reuseStage?: string,
    ): Promise<{ e: EvalStageResult; reused: boolean }> => {
      const prior = reuseStage ? reusable<EvalStageResult>(base, reuseStage, sameEval) : null;
      if (prior) {
        s.log(`[eval-${id}] reusing ${reuseStage} of ${base.from?.dir}`);
        return { e: prior, reused: true };
      }
      const e = await s.run(`eval-${id}`, (scope) =>
        evalStage(ctx, scope, { label: id, agent: `policy:${agentDir}`, agentName: id, tasks: test }),
      );
      return { e, reused: false };
    };

    const rows: AblationRowResult[] = [];
    const checkpoints = new Map<RowId, string>([['sft', studentDir]]);
    const row = (
      id: RowId,
      e: EvalStageResult,
      extra: { rollouts: number; trainSeconds: number; note?: string; rl?: RlRunResult },
    ): AblationRowResult => ({
      id,
      row:
        base.daggerRounds && id === 'sft'
          ? 'SFT + relabelling'
          : base.daggerRounds && id === 'sft-noreflect'
            ? 'SFT + relabelling, data collected without reflection'
            : ROW_TITLES[id],
      pass1: e.summary.pass1,
      meanStepsSolved: e.summary.meanStepsSolved,
      episodes: e.summary.episodes,
      ...extra,
    });

    // SFT, from the base.
    const sftRec = readStageRecord<{ trainSeconds: number }>(base.from?.store ?? ctx.store, studentStage);
    const sftEval = await evalRow(
      'sft',
      studentDir,
      base.daggerRounds ? `eval-sft-dagger${base.daggerRounds}` : 'eval-sft',
    );
    rows.push(
      row('sft', sftEval.e, {
        rollouts: 0,
        trainSeconds: sftRec?.result.trainSeconds ?? 0,
        note: sftEval.reused ? `evaluation reused from ${base.from?.dir}` : undefined,
      }),
    );

    // RL rows.
    let mined: RlExample[] | null = null;
    let full: RlExample[] | null = null;
    const examples = async (v: RlVariant) => {
      if (v.data === 'full-corpus') {
        full ??= loadFullCorpus(base.paths.collect);
        return full;
      }
      mined ??= await loadCriticalStates(base.paths.critical);
      return mined;
    };
    const minedCount =
      readStageRecord<{ criticalStates: number }>(base.from?.store ?? ctx.store, 'mine')?.result
        .criticalStates ?? 0;
    for (const v of ABLATION_RL) {
      if (v.data === 'mined' && minedCount === 0) {
        s.log(`[rl-${v.name}] no critical states were mined: row skipped`);
        continue;
      }
      // The demo's Salvage-DS run is this row when it ran with the same budget: reuse it and its evaluation.
      let rl: RlRunResult | null = null;
      let reused = false;
      if (v.name === 'salvage-ds-mined') {
        const prior = reusable<RlRunResult>(base, 'rl-salvage-ds', (r) => {
          const rlp = ctx.preset.rl;
          return (
            r.options?.batchSize === rlp.batchSize &&
            r.options.groupSize === rlp.groupSize &&
            r.options.seed === ctx.settings.seed &&
            (r.options.lr ?? undefined) === rlp.lr &&
            r.options.steps === rlSteps(rlp, r.states)
          );
        });
        if (prior && existsSync(join(prior.dir, 'config.json'))) {
          rl = prior;
          reused = true;
        }
      }
      rl ??= await s.run(`rl-${v.name}`, async (scope) =>
        rlStage(ctx, scope, { variant: v, examples: await examples(v), init: studentDir }),
      );
      checkpoints.set(v.name, rl.dir);
      const ev = await evalRow(v.name, rl.dir, reused ? 'eval-salvage-ds' : undefined);
      rows.push(
        row(v.name, ev.e, {
          rollouts: rl.rolloutsSampled,
          trainSeconds: rl.wallSeconds,
          rl,
          note: reused ? `RL run and evaluation reused from ${base.from?.dir}` : undefined,
        }),
      );
    }

    // SFT on data collected without reflection: the same train tasks, one round, no notes.
    const noReflectDir = join(ctx.paths.root, 'collect-noreflect');
    const nr = await s.run('collect-noreflect', (scope) =>
      collectStage(ctx, scope, {
        dir: noReflectDir,
        tasks: base.trainTasks,
        maxRounds: 1,
        stopAfter: 1,
        screenshots: false,
      }),
    );
    // The same supervised recipe as the base student (SFT, then its DAgger rounds with the
    // teacher as labeller, here without any note), so the row differs only by reflection.
    const nrStudent = await trainStudentStages(ctx, {
      collectDir: noReflectDir,
      tasks: base.trainTasks,
      suffix: '-noreflect',
    });
    const nrSft = nrStudent.dagger.at(-1)?.sft ?? nrStudent.sft;
    checkpoints.set('sft-noreflect', nrSft.dir);
    const nrEval = await evalRow('sft-noreflect', nrSft.dir);
    rows.push(
      row('sft-noreflect', nrEval.e, {
        rollouts: 0,
        trainSeconds:
          nrStudent.sft.trainSeconds + nrStudent.dagger.reduce((a, d) => a + d.sft.trainSeconds, 0),
        note: `one-round collection solved ${nr.stats.overall.tasksSolved}/${nr.stats.overall.tasks} train tasks (${nrStudent.sft.data.trajectories} trajectories, ${nrSft.data.examples} examples${nrStudent.dagger.length ? `, ${nrStudent.dagger.length} DAgger round(s)` : ''})`,
      }),
    );
    // The teacher on the same test tasks: its verified steps are the held-out step-level probe.
    const teacherPrior = reusable<EvalStageResult>(base, 'eval-teacher', sameEval);
    const teacher =
      teacherPrior ??
      (await s.run('eval-teacher', (scope) =>
        evalStage(ctx, scope, { label: 'teacher', agent: 'heuristic', tasks: test }),
      ));
    await ctx.closeWorld();
    const accuracies = await s.run('step-accuracy', async (scope) => {
      const probes = await stepProbes({
        store: teacherPrior && base.from ? base.from.store : ctx.store,
        teacherLabel: 'teacher',
        taskIds: test.map((t) => t.id),
        critical: minedCount ? base.paths.critical : null,
      });
      scope.log(`${probes.heldOut.length} held-out teacher steps, ${probes.critical.length} critical states`);
      const out: Partial<Record<RowId, StepAccuracies>> = {};
      for (const [id, dir] of checkpoints) out[id] = await stepAccuracies(dir, probes);
      return out;
    });
    for (const r of rows) {
      const a = accuracies[r.id];
      if (a) Object.assign(r, { heldOutStepAccuracy: a.heldOut, criticalStepAccuracy: a.critical });
    }

    const targets = checkTargets(rows);
    const setup = [
      `- preset ${ctx.preset.name}; ${test.length} world test tasks x ${ctx.preset.eval.runs} runs (max ${ctx.preset.eval.maxSteps} steps); seed ${ctx.settings.seed}`,
      `- teacher (heuristic, no notes) on the same test tasks: pass@1 ${(100 * teacher.summary.pass1.mean).toFixed(1)}%${teacherPrior ? ' (reused)' : ''}`,
      `- base (collection with reflection, SFT, mined states): ${base.from ? `${base.from.dir} (preset ${base.from.preset})` : 'this folder'}; ${minedCount} critical states`,
      `- RL budget: ${ctx.preset.rl.epochs} passes over the states (steps clamped to [${ctx.preset.rl.minSteps}, ${ctx.preset.rl.maxSteps}]), batch ${ctx.preset.rl.batchSize} states, group ${ctx.preset.rl.groupSize}`,
    ];
    const title = `rmsweb ablate (preset ${ctx.preset.name})`;
    const markdown = ablationMarkdown({ title, rows, targets, lines: setup });
    const files = {
      markdown: join(ctx.paths.root, 'ablation.md'),
      json: join(ctx.paths.root, 'ablation.json'),
      report: '',
    };
    writeFileAtomic(files.markdown, markdown);
    writeFileAtomic(
      files.json,
      `${JSON.stringify({ title, createdAt: new Date().toISOString(), preset: ctx.preset, rows, targets, timings: s.timings }, null, 2)}\n`,
    );
    const report: ReportData = {
      title,
      createdAt: new Date().toISOString(),
      config: { preset: ctx.preset, seed: ctx.settings.seed, from: base.from?.dir ?? null },
      stages: [],
      ablation: rows,
      rlCurves: rows
        .filter((r) => r.rl)
        .map((r) => ({
          name: r.row,
          points: (r.rl?.dir.startsWith(ctx.paths.root)
            ? ctx.store
            : (base.from?.store ?? ctx.store)
          ).listMetrics(`rl/${r.rl?.name}`),
        })),
      timings: s.timings,
      sections: [
        {
          title: 'Targets (issue 8)',
          lines: targets.map(
            (t) =>
              `- ${t.met === null ? 'not measured' : t.met ? 'MET' : 'NOT MET'}: ${t.target} (${t.detail})`,
          ),
        },
      ],
    };
    files.report = writeReport(ctx.paths.report, report).html;
    return {
      rows,
      targets,
      markdown,
      table: ablationTable(rows),
      files,
      timings: { ...s.timings },
      skipped: [...s.skipped],
    };
  } finally {
    base.from?.store.close();
  }
}
