import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeZodIssues } from '../core/index.ts';
import { findFiles, readJson, shortPath } from './files.ts';
import type { RunReader } from './run-reader.ts';

const Rate = z.looseObject({
  mean: z.number(),
  std: z.number().default(0),
  perRun: z.array(z.number()).default([]),
});
export type Rate = z.infer<typeof Rate>;

/** The fields of eval/metrics.ts EvalSummary the viewer shows; extra fields are kept. */
export const EvalSummaryView = z.looseObject({
  agentId: z.string(),
  suite: z.string(),
  runs: z.number(),
  tasks: z.number(),
  episodes: z.number().default(0),
  pass1: Rate,
  perSite: z.record(z.string(), Rate).default({}),
  perLevel: z.record(z.string(), Rate).default({}),
  perCategory: z.record(z.string(), Rate).default({}),
  meanStepsSolved: z.number().nullable().default(null),
  stepsHistogram: z.record(z.string(), z.number()).default({}),
  costUsd: z.number().default(0),
  wallSeconds: z.number().optional(),
});
export type EvalSummaryView = z.infer<typeof EvalSummaryView>;

const ReportFile = z.looseObject({
  title: z.string().default('report'),
  createdAt: z.string().optional(),
  stages: z
    .array(z.looseObject({ stage: z.string(), summary: EvalSummaryView, note: z.string().optional() }))
    .default([]),
  ablation: z.array(z.record(z.string(), z.unknown())).optional(),
});

/** An evaluation to tabulate: a stored `eval-summary` record or a stage of a report file. */
export interface EvalRow {
  label: string;
  origin: string;
  summary: EvalSummaryView;
}

/** A JSON table found in the run folder (ablation.json, or a report's ablation rows). */
export interface JsonTable {
  title: string;
  origin: string;
  rows: Array<Record<string, unknown>>;
  /** The markdown written beside the JSON, when there is one. */
  markdown?: string;
}

/** Finds the row list inside an ablation file whatever its top-level shape. */
function ablationRows(v: unknown): Array<Record<string, unknown>> | null {
  const isRows = (x: unknown): x is Array<Record<string, unknown>> =>
    Array.isArray(x) &&
    x.length > 0 &&
    x.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r));
  if (isRows(v)) return v;
  if (typeof v === 'object' && v !== null) {
    for (const k of ['rows', 'ablation', 'table', 'results']) {
      const x = (v as Record<string, unknown>)[k];
      if (isRows(x)) return x;
    }
  }
  return null;
}

/**
 * Evaluation and ablation results of a run: `eval-summary` records (rmsweb eval), reports under
 * the run folder (`report.json` from eval/report.ts) and ablation tables (`ablation.json`).
 */
export function loadTables(
  store: RunReader,
  runDir: string,
): { evals: EvalRow[]; ablations: JsonTable[]; warnings: string[] } {
  const evals: EvalRow[] = [];
  const ablations: JsonTable[] = [];
  const warnings: string[] = [];
  for (const { key, value } of store.listRecords('eval-summary')) {
    const r = EvalSummaryView.safeParse(value);
    if (r.success) evals.push({ label: key, origin: 'record eval-summary', summary: r.data });
    else warnings.push(`record eval-summary/${key}: ${describeZodIssues(r.error.issues)}`);
  }
  for (const file of findFiles(runDir, (n) => n === 'report.json' || n === 'ablation.json')) {
    const origin = shortPath(runDir, file);
    const raw = readJson(file);
    if ('error' in raw) {
      warnings.push(`${origin}: ${raw.error}`);
      continue;
    }
    if (file.endsWith('ablation.json')) {
      const rows = ablationRows(raw.value);
      if (!rows) {
        warnings.push(`${origin}: no list of rows found (expected an array, or rows/ablation/table/results)`);
        continue;
      }
      const mdPath = join(file, '..', 'ablation.md');
      const markdown = existsSync(mdPath) ? readFileSync(mdPath, 'utf8') : undefined;
      ablations.push({ title: 'Ablation', origin, rows, ...(markdown !== undefined ? { markdown } : {}) });
      continue;
    }
    const r = ReportFile.safeParse(raw.value);
    if (!r.success) {
      warnings.push(`${origin}: ${describeZodIssues(r.error.issues)}`);
      continue;
    }
    // An eval report repeats a stored summary; show each evaluation once.
    for (const s of r.data.stages) {
      if (!evals.some((e) => e.label === s.stage && e.summary.agentId === s.summary.agentId)) {
        evals.push({ label: s.stage, origin, summary: s.summary });
      }
    }
    if (r.data.ablation?.length)
      ablations.push({ title: `Ablation: ${r.data.title}`, origin, rows: r.data.ablation });
  }
  return { evals, ablations, warnings };
}

/** True for `{mean, std}` objects (RateOverRuns), which tables print as `41.7% ± 2.1`. */
export function isRate(v: unknown): v is Rate {
  return Rate.safeParse(v).success;
}
