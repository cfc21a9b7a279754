import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStats } from '../../collect/stats.ts';
import { type ReportData, writeReport } from '../../eval/report.ts';
import { writeFileAtomic } from '../../store/index.ts';
import type { TrajectorySummary } from '../../store/trajectory-query.ts';
import type { AblationLedger, LedgerUnit } from './ablation-ledger.ts';
import {
  aggregateSeeds,
  type MiningBySource,
  pairedSolvedSteps,
  type TaskOutcome,
  teacherReflection,
} from './ablation-stats.ts';
import {
  type AblationRowResult,
  ablationMarkdown,
  addPairedDeltas,
  checkTargets,
  miningLines,
  ROW_TITLES,
  type RowId,
  reflectionLines,
  reflectionReference,
  seedsTable,
  type TargetCheck,
  targetVerdict,
} from './ablation-table.ts';
import type { PipelineContext } from './context.ts';
import type { EvalStageResult } from './eval-stage.ts';
import { commandLine, nameFoldersByRole, repoRoot } from './provenance.ts';

/**
 * The ablation's table, report and results files, from its measured units: what `ablate` writes
 * once every row is in, and `ablation.partial.md` while rows come in.
 */

/** What the report says of the base (read off the base, or off the ledger when the base is gone). */
export interface BaseView {
  daggerRounds: number;
  startRound: number;
  seed: number;
  minedCount: number;
  /** The `--from` demo folder and its preset (null: this run folder made the base). */
  from: { dir: string; preset: string } | null;
  /** The base collection's stats (its stage record). */
  collectStats?: RunStats;
}

/** What `runAblation` returns. */
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

export type RlCurve = { name: string; points: Array<{ step: number; values: Record<string, number> }> };

const meanOf = (xs: Array<number | null>) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};

/** One row of the table from its units (seeds), and its RL curves for the report. */
export function ablationRow(
  id: RowId,
  units: LedgerUnit[],
  base: Pick<BaseView, 'startRound' | 'daggerRounds'>,
  note?: string,
): { row: AblationRowResult; curves: RlCurve[] } {
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
    ...(note ? { note } : {}),
    ...(rlRuns.length ? { rlRuns, rl: rlRuns[0] } : {}),
    ...(accs.length
      ? {
          heldOutStepAccuracy: meanOf(accs.map((x) => x.heldOut)),
          criticalStepAccuracy: meanOf(accs.map((x) => x.critical)),
        }
      : {}),
  };
  const curves = units.flatMap((u) =>
    u.rl && u.curve ? [{ name: `${r.row} (seed ${u.rl.options?.seed ?? u.run.seed})`, points: u.curve }] : [],
  );
  return { row: r, curves };
}

/**
 * The rows measured so far, rewritten after each row: a full-preset ablation spans sittings, and
 * the seeds of a row are worth reading before the last row is in.
 */
export function writePartial(ctx: PipelineContext, rows: AblationRowResult[], ledgerFile: string): void {
  // The deltas are seeded per row, so the final pass sets the same values again.
  addPairedDeltas(rows, { seed: ctx.settings.seed });
  writeFileAtomic(
    join(ctx.paths.root, 'ablation.partial.md'),
    [
      `# ${ctx.preset.name} ablation: the ${rows.length} ${rows.length === 1 ? 'row' : 'rows'} measured so far (${new Date().toISOString()})`,
      '',
      seedsTable(rows),
      '',
      `Rerun the same \`rmsweb ablate\` command to resume (the ledger ${ledgerFile} holds every finished seed); ablation.md is written when every row is in.`,
      '',
    ].join('\n'),
  );
}

/** Everything the final results are made of. */
export interface AblationSummary {
  ctx: PipelineContext;
  base: BaseView;
  seeds: number[];
  rows: AblationRowResult[];
  rlCurves: RlCurve[];
  notRun: string[];
  teacher: EvalStageResult;
  teacherReused: boolean;
  mining: MiningBySource | null;
  /** The base collection's episodes and the note-free collection's (the teacher's reflection comparison). */
  collectEpisodes: Array<Pick<TrajectorySummary, 'taskId' | 'success' | 'round' | 'notes'>>;
  noReflectEpisodes: Array<{ taskId: string; success: boolean | null }>;
  ledger: AblationLedger;
  git: { commit: string | null; dirty: boolean };
  resultsDir?: string;
  command?: string;
  t0: number;
}

/** Writes ablation.md, ablation.json, the report and (with `--results`) the copies to commit. */
export function writeAblationResults(o: AblationSummary): AblationResult {
  const { ctx, base, rows, seeds } = o;
  const s = ctx.stages;
  addPairedDeltas(rows, { seed: ctx.settings.seed });
  const targets = checkTargets(rows);
  const teacherRefl = teacherReflection(o.collectEpisodes, o.noReflectEpisodes, o.base.collectStats);
  const nrRow = rows.find((r) => r.id === 'sft-noreflect');
  const reflRef = reflectionReference(rows);
  const reflection = reflectionLines(
    teacherRefl,
    reflRef && nrRow
      ? pairedSolvedSteps(reflRef.perTask, nrRow.perTask as Record<string, TaskOutcome>)
      : null,
  );
  const test = ctx.testTasks();
  const setup = [
    `- preset ${ctx.preset.name}; ${test.length} world test tasks x ${ctx.preset.eval.runs} runs (max ${ctx.preset.eval.maxSteps} steps), each run under its own world perturbation seed; seed ${ctx.settings.seed}; training seeds ${seeds.join(', ')}`,
    `- teacher (heuristic, no notes) on the same test tasks: pass@1 ${(100 * o.teacher.summary.pass1.mean).toFixed(1)}%${o.teacherReused ? ' (reused)' : ''}`,
    `- base (collection with reflection, SFT${base.daggerRounds ? ` + ${base.daggerRounds} DAgger round(s)${base.startRound !== base.daggerRounds ? `, RL rows starting after round ${base.startRound} (the validation split's choice)` : ''}` : ''}, mined states): ${base.from ? `${base.from.dir} (preset ${base.from.preset})` : 'this folder'}; ${base.minedCount} critical states`,
    ...(o.notRun.length ? [`- not run, so absent from the table: ${o.notRun.join('; ')}`] : []),
    `- RL budget: ${ctx.preset.rl.epochs} passes over the states (steps clamped to [${ctx.preset.rl.minSteps}, ${ctx.preset.rl.maxSteps}]), batch ${ctx.preset.rl.batchSize} states, group ${ctx.preset.rl.groupSize}`,
  ];
  const invocationSeconds = (performance.now() - o.t0) / 1000;
  const stagesSeconds = Object.values(s.timings).reduce((a, b) => a + b, 0);
  const command = o.command ?? commandLine();
  const createdAt = new Date().toISOString();
  const provenance = [
    `- command: \`${command}\``,
    `- commit: ${o.git.commit ?? 'unknown'}${o.git.dirty ? ' (with uncommitted changes)' : ''}`,
    `- seeds measured at: ${Object.entries(o.ledger.commits())
      .map(([c, n]) => `${c.slice(0, 7)} (${n})`)
      .join(', ')}; the ledger ${o.ledger.file} holds them`,
    `- seeds: ${seeds.join(', ')} (base seed ${base.seed}, world seed ${ctx.settings.worldSeed})`,
    `- wall time: ${stagesSeconds.toFixed(0)} s over all stages (as measured by the runs that finished them); this invocation ${invocationSeconds.toFixed(0)} s`,
    `- written ${createdAt}`,
  ];
  const title = `rmsweb ablate (preset ${ctx.preset.name}${ctx.preset.sites ? `; sites ${ctx.preset.sites.join(', ')}` : ''}; ${seeds.length} seed${seeds.length > 1 ? 's' : ''})`;
  const markdown = ablationMarkdown({
    title,
    rows,
    targets,
    lines: setup,
    mining: o.mining,
    reflection,
    provenance,
  });
  const json = `${JSON.stringify(
    {
      title,
      createdAt,
      command,
      commit: o.git.commit,
      dirty: o.git.dirty,
      seeds,
      worldSeed: ctx.settings.worldSeed,
      wallSeconds: { stages: stagesSeconds, invocation: invocationSeconds },
      preset: ctx.preset,
      from: base.from?.dir ?? null,
      rows,
      targets,
      mining: o.mining,
      reflection: { teacher: teacherRefl, lines: reflection },
      teacher: o.teacher.summary,
      timings: s.timings,
    },
    null,
    2,
  )}\n`;
  const files = writeFiles(o, markdown, json, command);
  const report: ReportData = {
    title,
    createdAt,
    config: { preset: ctx.preset, seed: ctx.settings.seed, seeds, from: base.from?.dir ?? null },
    stages: [],
    ablation: rows,
    rlCurves: o.rlCurves,
    timings: s.timings,
    sections: [
      {
        title: 'Targets (issue 16)',
        lines: targets.map((t) => `- ${targetVerdict(t)}: ${t.target} (${t.detail})`),
      },
      ...(o.mining ? [{ title: 'Critical states', lines: miningLines(o.mining) }] : []),
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
    mining: o.mining,
    reflection,
    files,
    timings: { ...s.timings },
    skipped: [...s.skipped],
    invocationSeconds,
  };
}

function writeFiles(
  o: AblationSummary,
  markdown: string,
  json: string,
  command: string,
): AblationResult['files'] {
  const { ctx } = o;
  const files: AblationResult['files'] = {
    markdown: join(ctx.paths.root, 'ablation.md'),
    json: join(ctx.paths.root, 'ablation.json'),
    report: '',
  };
  writeFileAtomic(files.markdown, markdown);
  writeFileAtomic(files.json, json);
  if (o.resultsDir) {
    mkdirSync(o.resultsDir, { recursive: true });
    files.results = {
      markdown: join(o.resultsDir, `ablation-${ctx.preset.name}.md`),
      json: join(o.resultsDir, `ablation-${ctx.preset.name}.json`),
    };
    // The results copy is committed: machine paths of the run folders become their roles.
    const folders = [
      { dir: ctx.paths.root, role: "the ablation's data folder" },
      ...(o.base.from ? [{ dir: o.base.from.dir, role: "the demo's data folder" }] : []),
    ];
    const repo = repoRoot(o.resultsDir);
    writeFileAtomic(files.results.markdown, nameFoldersByRole(markdown, command, folders, repo).text);
    writeFileAtomic(
      files.results.json,
      nameFoldersByRole(json, JSON.stringify(command).slice(1, -1), folders, repo).text,
    );
  }
  return files;
}
