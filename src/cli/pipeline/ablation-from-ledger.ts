import { resolve } from 'node:path';
import type { TrajectorySummary } from '../../store/trajectory-query.ts';
import { AblationLedger, type LedgerFile, type LedgerUnit } from './ablation-ledger.ts';
import { type PlannedRow, planAblation, planUnits } from './ablation-plan.ts';
import {
  type AblationResult,
  ablationRow,
  type BaseView,
  type RlCurve,
  writeAblationResults,
} from './ablation-report.ts';
import type { MiningBySource } from './ablation-stats.ts';
import { type AblationRowResult, ROW_TITLES, type RowId } from './ablation-table.ts';
import type { PipelineContext } from './context.ts';
import type { EvalStageResult } from './eval-stage.ts';
import { STAGES } from './stage-results.ts';

/**
 * The ablation's table from its ledger alone. A run keeps in the ledger, beside its units, a
 * summary of its base (what the report reads of it); a machine that has only the ledger, without
 * the demo folder or its snapshot, can then write the table again, provided the ledger holds every
 * (row, seed) of the plan. Also the row notes and skip lines the live run and this one share.
 */

/** The ledger's summary of the base: what the report reads of it, kept so that the ledger alone can write the table. */
export const BASE_SUMMARY = 'base-summary';
export interface BaseSummary {
  view: BaseView;
  teacher: EvalStageResult;
  teacherReused: boolean;
}

/** The note a row's line in the table carries. */
export function rowNote(row: RowId, units: LedgerUnit[], startRound: number): string | undefined {
  if (row === 'sft-plain')
    return `the base student before its ${startRound} relabelling round(s), retrained once per seed on the same collection`;
  if (row === 'salvage-ds-plain')
    return "the Salvage-DS row's RL (same mined states, settings and seeds), started from each seed's plain SFT student";
  if (row === 'sft-noreflect') return units[0]?.note;
  return units.flatMap((u) => (u.note ? [u.note] : [])).join('; ') || undefined;
}

/** Logs a row the plan leaves out and returns its line for the report. */
export function skipRow(
  stages: { log(line: string): void },
  planned: PlannedRow,
  verifiedStates: number,
): string {
  const why =
    planned.row === 'salvage-ds-confirmed'
      ? `none of the ${verifiedStates} mined states was confirmed`
      : planned.skipped;
  stages.log(`[rl-${planned.row}] ${why}: row skipped`);
  return `${ROW_TITLES[planned.row]} (${why})`;
}

/** The plan of a base the ledger alone describes (its summary and verification), or null when it cannot. */
export function ledgerPlan(ledger: LedgerFile, seeds: number[]): PlannedRow[] | null {
  const summary = ledger.stages[BASE_SUMMARY]?.result as BaseSummary | undefined;
  if (!summary) return null;
  return planAblation({
    seeds,
    baseSeed: summary.view.seed,
    startRound: summary.view.startRound,
    minedCount: summary.view.minedCount,
    confirmed: (ledger.stages[STAGES.verifyCritical.key()]?.result as { confirmed?: number } | undefined)
      ?.confirmed,
    studentEval: STAGES.eval.key('sft'),
  });
}

/** The (row, seed)s of the plan the ledger does not hold (all of them when it cannot plan). */
export function missingUnits(ledger: LedgerFile, seeds: number[]): string[] | null {
  const plan = ledgerPlan(ledger, seeds);
  if (!plan) return null;
  return planUnits(plan)
    .map((u) => u.label)
    .filter((l) => !(l in ledger.units));
}

/**
 * The table from the ledger alone, when the `--from` folder is gone, no snapshot of its base is
 * at hand and the ledger holds every (row, seed): nothing runs, nothing reads the base.
 */
export function tableFromLedger(
  ctx: PipelineContext,
  opts: { from?: string; resultsDir?: string; command?: string },
  inputs: { ledgerFile: string; ledger: LedgerFile; seeds: number[] },
  git: { commit: string | null; dirty: boolean },
  t0: number,
): AblationResult {
  const s = ctx.stages;
  const ledger = AblationLedger.open(inputs.ledgerFile, {
    preset: ctx.preset.name,
    seed: ctx.settings.seed,
    worldSeed: ctx.settings.worldSeed,
    base: inputs.ledger.base,
  });
  const held = ledger.stage<BaseSummary>(BASE_SUMMARY)!.result;
  // The demo folder is named as this command names it (the results name it by its role).
  const summary: BaseSummary = {
    ...held,
    view: {
      ...held.view,
      from: held.view.from && opts.from ? { ...held.view.from, dir: resolve(opts.from) } : held.view.from,
    },
  };
  s.log(
    `[ledger] --from ${opts.from} is gone and no snapshot of its base is at hand: the table comes from the ${ledger.size} (row, seed)s of ${ledger.file}; nothing runs`,
  );
  const rows: AblationRowResult[] = [];
  const rlCurves: RlCurve[] = [];
  const notRun: string[] = [];
  const verified = ledger.stage<{ states: number }>(STAGES.verifyCritical.key())?.result;
  for (const planned of ledgerPlan(inputs.ledger, inputs.seeds)!) {
    if (planned.skipped) {
      notRun.push(skipRow(s, planned, verified?.states ?? 0));
      continue;
    }
    const units = planned.units.map((u) => ledger.unit(u.label)!);
    for (const u of units) for (const [k, v] of Object.entries(u.seconds)) s.timings[k] ??= v;
    const note =
      planned.row === 'sft' ? units[0]?.note : rowNote(planned.row, units, summary.view.startRound);
    const { row, curves } = ablationRow(planned.row, units, summary.view, note);
    rows.push(row);
    rlCurves.push(...curves);
  }
  for (const name of [STAGES.verifyCritical.key(), STAGES.eval.key('teacher')]) {
    const held = ledger.stage(name);
    if (held) s.timings[name] ??= held.seconds;
  }
  const nr = ledger.stage<Array<{ taskId: string; success: boolean | null }>>('collect-noreflect-episodes');
  if (nr) s.timings[STAGES.collectNoReflect.key()] ??= nr.seconds;
  return writeAblationResults({
    ctx,
    base: summary.view,
    seeds: inputs.seeds,
    rows,
    rlCurves,
    notRun,
    teacher: summary.teacher,
    teacherReused: summary.teacherReused,
    mining: ledger.stage<MiningBySource>('base-mining')?.result ?? null,
    collectEpisodes:
      ledger.stage<Array<Pick<TrajectorySummary, 'taskId' | 'success' | 'round' | 'notes'>>>(
        'base-collect-episodes',
      )?.result ?? [],
    noReflectEpisodes: nr?.result ?? [],
    ledger,
    git,
    resultsDir: opts.resultsDir,
    command: opts.command,
    t0,
  });
}
