import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStats } from '../collect/stats.ts';
import { esc } from '../core/text.ts';
import { formatLedger, type RewardLedger } from './ledger.ts';
import { type EvalSummary, formatRate, type RateOverRuns } from './metrics.ts';
import { type BarGroup, barChart, histogram, lineChart } from './svg.ts';

/** One evaluated stage of the pipeline (teacher, SFT student, RL student, ...). */
export interface StageResult {
  stage: string;
  summary: EvalSummary;
  note?: string;
}

/** One row of the ablation table. */
export interface AblationRow {
  row: string;
  pass1: RateOverRuns;
  meanStepsSolved: number | null;
  /** Rollouts sampled by RL (0 for rows without RL). */
  rollouts: number;
  /** Wall time of the row's training, seconds. */
  trainSeconds: number;
  note?: string;
}

/** Everything a report shows; each part is optional. */
export interface ReportData {
  title: string;
  /** One plain sentence of what the run showed, with its numbers; the report opens with it. */
  lead?: string;
  createdAt: string;
  config?: Record<string, unknown>;
  stages: StageResult[];
  collection?: RunStats;
  /** The collection's reward-integrity ledger (what its stats scored, and what they left out). */
  collectionLedger?: RewardLedger;
  mining?: Record<string, unknown>;
  /** RL curves: series name -> points of metric name -> value per step. */
  rlCurves?: Array<{ name: string; points: Array<{ step: number; values: Record<string, number> }> }>;
  ablation?: AblationRow[];
  /** Stage wall times, seconds. */
  timings?: Record<string, number>;
  /** Extra titled sections of markdown lines (e.g. a pipeline's synthesis and training summaries). */
  sections?: Array<{ title: string; lines: string[] }>;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? 'n/a' : x.toFixed(d));

/** The results table as markdown: one row per stage. */
export function stagesTable(stages: StageResult[]): string {
  const sites = [...new Set(stages.flatMap((s) => Object.keys(s.summary.perSite)))].sort();
  const head = `| stage | agent | pass@1 (mean ± sd over runs) | ${sites.join(' | ')} | steps on solved | cost $ | errored episodes |`;
  const sep = `|${'---|'.repeat(6 + sites.length)}`;
  const rows = stages.map((s) => {
    const per = sites.map((site) => (s.summary.perSite[site] ? pct(s.summary.perSite[site].mean) : '-'));
    return `| ${s.stage} | ${s.summary.agentId} | ${formatRate(s.summary.pass1)} (${s.summary.runs} runs × ${s.summary.tasks} tasks) | ${per.join(' | ')} | ${num(s.summary.meanStepsSolved)} | ${s.summary.costUsd.toFixed(4)} | ${s.summary.errored ?? 0} |`;
  });
  return [head, sep, ...rows].join('\n');
}

/**
 * Lines under the results table that say what made the runs differ: each stage's per-run pass@1 with
 * the world perturbation seed of that run, and why a stage ran fewer runs than asked.
 */
export function runsLines(stages: StageResult[]): string[] {
  const out: string[] = [];
  for (const s of stages) {
    const seeds = s.summary.perturbSeeds;
    if (seeds) {
      const perRun = s.summary.pass1.perRun.map((r, i) => `run ${i}: ${pct(r)} (seed ${seeds[i] ?? 0})`);
      const what = seeds.every((x) => x === 0)
        ? 'world unperturbed, every run saw the same pages'
        : 'world perturbation seed per run';
      out.push(`- ${s.stage}: ${what}; ${perRun.join(', ')}`);
    }
    if (s.summary.runsNote) out.push(`- ${s.stage}: ${s.summary.runsNote}`);
  }
  return out;
}

/**
 * The reward-integrity ledger, one line per stage that has one: how many episodes were scored and
 * by what (the programmatic verifier, a judge), how many pass@1 left out and why (infrastructure
 * errors, judge errors), and each calibrated judge's agreement with the verifier.
 */
export function ledgerLines(stages: StageResult[]): string[] {
  return stages.flatMap((s) => (s.summary.ledger ? [`- ${s.stage}: ${formatLedger(s.summary.ledger)}`] : []));
}

/** The ablation table as markdown. */
export function ablationTable(rows: AblationRow[]): string {
  const head = '| row | pass@1 (mean ± sd) | steps on solved | RL rollouts sampled | train wall s |';
  const sep = '|---|---|---|---|---|';
  return [
    head,
    sep,
    ...rows.map(
      (r) =>
        `| ${r.row} | ${formatRate(r.pass1)} | ${num(r.meanStepsSolved)} | ${r.rollouts} | ${r.trainSeconds.toFixed(1)} |`,
    ),
  ].join('\n');
}

/** Renders the report as markdown. */
export function renderMarkdown(d: ReportData): string {
  const out: string[] = [
    `# ${d.title}`,
    '',
    ...(d.lead ? [d.lead, ''] : []),
    `Generated ${d.createdAt}.`,
    '',
  ];
  if (d.stages.length) {
    out.push('## Results', '', stagesTable(d.stages), '');
    const runs = runsLines(d.stages);
    if (runs.length) out.push(...runs, '');
    const ledger = ledgerLines(d.stages);
    if (ledger.length)
      out.push(
        '## Where the rewards came from',
        '',
        'pass@1 counts scored episodes only.',
        '',
        ...ledger,
        '',
      );
  }
  if (d.ablation?.length) out.push('## Ablation', '', ablationTable(d.ablation), '');
  if (d.collection) {
    const c = d.collection;
    out.push('## Collection with reflection', '');
    out.push(
      `- tasks ${c.overall.tasks}, attempts ${c.overall.attempts}, tasks solved ${c.overall.tasksSolved} (${pct(c.overall.taskSuccessRate)})`,
    );
    out.push(
      `- solved in round 0: ${pct(c.firstRoundSolveRate)}; round-1 success after a failure: ${pct(c.secondRoundSolveRateAfterFailure)}; solved only after reflection: ${pct(c.solvedOnlyAfterReflection)}`,
    );
    out.push(
      `- mean actions on solved attempts: without notes ${num(c.meanActionsSolved.withoutNotes)}, with notes ${num(c.meanActionsSolved.withNotes)}`,
      ...(d.collectionLedger ? [`- rewards: ${formatLedger(d.collectionLedger)}`] : []),
      '',
    );
  }
  for (const s of d.sections ?? []) out.push(`## ${s.title}`, '', ...s.lines, '');
  if (d.mining) out.push('## Mining', '', '```json', JSON.stringify(d.mining, null, 2), '```', '');
  if (d.timings)
    out.push(
      '## Wall time',
      '',
      ...Object.entries(d.timings).map(([k, v]) => `- ${k}: ${v.toFixed(1)} s`),
      '',
    );
  return out.join('\n');
}

/** Renders a self-contained HTML report with SVG plots (no scripts, no external resources). */
export function renderHtml(d: ReportData): string {
  const charts: string[] = [];
  if (d.stages.length) {
    const sites = [...new Set(d.stages.flatMap((s) => Object.keys(s.summary.perSite)))].sort();
    const groups: BarGroup[] = [
      {
        label: 'overall',
        values: d.stages.map((s) => ({
          series: s.stage,
          value: s.summary.pass1.mean,
          error: s.summary.pass1.std,
        })),
      },
      ...sites.map((site) => ({
        label: site,
        values: d.stages.map((s) => ({
          series: s.stage,
          value: s.summary.perSite[site]?.mean ?? 0,
          error: s.summary.perSite[site]?.std,
        })),
      })),
    ];
    charts.push(barChart({ title: 'Success (pass@1) per site and stage', groups, yMax: 1, percent: true }));
    for (const s of d.stages) {
      if (Object.keys(s.summary.stepsHistogram).length) {
        charts.push(
          histogram({
            title: `Steps on solved tasks: ${s.stage}`,
            counts: s.summary.stepsHistogram,
            xLabel: 'episodes',
          }),
        );
      }
    }
  }
  if (d.ablation?.length) {
    charts.push(
      barChart({
        title: 'Ablation: pass@1',
        groups: d.ablation.map((r) => ({
          label: r.row.slice(0, 18),
          values: [{ series: 'pass@1', value: r.pass1.mean, error: r.pass1.std }],
        })),
        yMax: 1,
        percent: true,
      }),
    );
  }
  for (const curve of d.rlCurves ?? []) {
    const keys = [...new Set(curve.points.flatMap((p) => Object.keys(p.values)))];
    const pick = (pred: (k: string) => boolean) =>
      keys.filter(pred).map((k) => ({
        name: k,
        points: curve.points.map((p) => [p.step, p.values[k]] as [number, number]),
      }));
    charts.push(
      lineChart({
        title: `${curve.name}: reward and gates`,
        series: pick((k) => k.startsWith('charts/') && !k.includes('kl') && !k.includes('rollouts')),
        xLabel: 'step',
      }),
    );
    charts.push(
      lineChart({
        title: `${curve.name}: losses and KL`,
        series: pick((k) => k.startsWith('losses/') || k.includes('kl')),
        xLabel: 'step',
      }),
    );
  }
  const md = renderMarkdown({ ...d, mining: undefined });
  const tables = mdTablesToHtml(md);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(d.title)}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:1000px;margin:24px auto;padding:0 16px;color:#1d2330}table{border-collapse:collapse;margin:12px 0}th,td{border:1px solid #d6d9de;padding:4px 8px;text-align:left}th{background:#f3f4f6}svg{display:block;margin:18px 0;max-width:100%;height:auto}pre{background:#f6f7f9;padding:10px;overflow:auto}</style>
</head><body>${tables}${charts.join('\n')}${d.mining ? `<h2>Mining</h2><pre>${esc(JSON.stringify(d.mining, null, 2))}</pre>` : ''}</body></html>`;
}

/** A small markdown-to-HTML for our own report text: headings, lists, tables, paragraphs. */
function mdTablesToHtml(md: string): string {
  const lines = md.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('|')) {
      const rows: string[][] = [];
      while (i < lines.length && lines[i].startsWith('|')) {
        if (!/^\|(-+\|)+$/.test(lines[i].replace(/\s/g, '')))
          rows.push(
            lines[i]
              .split('|')
              .slice(1, -1)
              .map((c) => c.trim()),
          );
        i++;
      }
      i--;
      out.push(
        `<table>${rows.map((r, j) => `<tr>${r.map((c) => (j === 0 ? `<th>${esc(c)}</th>` : `<td>${esc(c)}</td>`)).join('')}</tr>`).join('')}</table>`,
      );
    } else if (l.startsWith('# ')) out.push(`<h1>${esc(l.slice(2))}</h1>`);
    else if (l.startsWith('## ')) out.push(`<h2>${esc(l.slice(3))}</h2>`);
    else if (l.startsWith('- ')) out.push(`<li>${esc(l.slice(2))}</li>`);
    else if (l.trim() && !l.startsWith('```')) out.push(`<p>${esc(l)}</p>`);
  }
  return out.join('\n');
}

/** Writes report.json, report.md and report.html into dir; returns their paths. */
export function writeReport(dir: string, d: ReportData): { json: string; markdown: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const paths = {
    json: join(dir, 'report.json'),
    markdown: join(dir, 'report.md'),
    html: join(dir, 'report.html'),
  };
  writeFileSync(paths.json, JSON.stringify(d, null, 2));
  writeFileSync(paths.markdown, renderMarkdown(d));
  writeFileSync(paths.html, renderHtml(d));
  return paths;
}
