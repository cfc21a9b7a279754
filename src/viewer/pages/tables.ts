import { esc } from '../../core/text.ts';
import { type BarGroup, barChart } from '../../eval/svg.ts';
import { num, pct, table } from '../html.ts';
import type { RunView } from '../run-view.ts';
import { type EvalRow, isRate, type JsonTable, loadTables, type Rate } from '../table-source.ts';

const rate = (r: Rate | undefined): string => (r ? `${pct(r.mean)} ± ${(100 * r.std).toFixed(1)}` : '-');

function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (isRate(v)) return esc(rate(v));
  if (typeof v === 'number') return esc(Number.isInteger(v) ? v : Number(v.toPrecision(4)));
  if (typeof v === 'string' || typeof v === 'boolean') return esc(v);
  const s = JSON.stringify(v);
  return `<span class="mono">${esc(s.length > 200 ? `${s.slice(0, 197)}...` : s)}</span>`;
}

function evalSection(evals: EvalRow[]): string {
  if (!evals.length)
    return '<p class="muted">No evaluations in this run yet (rmsweb eval --out this folder).</p>';
  const sites = [...new Set(evals.flatMap((e) => Object.keys(e.summary.perSite)))].sort();
  const levels = [...new Set(evals.flatMap((e) => Object.keys(e.summary.perLevel)))].sort();
  const rows = evals.map((e) => {
    const s = e.summary;
    return [
      `<b>${esc(e.label)}</b>`,
      `<span class="mono">${esc(s.agentId)}</span>`,
      esc(s.suite),
      `<span class="pass1">${esc(rate(s.pass1))}</span>`,
      esc(`${s.runs} × ${s.tasks}`),
      ...sites.map((site) => esc(rate(s.perSite[site]))),
      ...levels.map((l) => esc(rate(s.perLevel[l]))),
      esc(num(s.meanStepsSolved)),
      esc(s.costUsd.toFixed(4)),
      esc(s.wallSeconds === undefined ? '-' : s.wallSeconds.toFixed(1)),
      `<span class="muted">${esc(e.origin)}</span>`,
    ];
  });
  const head = [
    'evaluation',
    'agent',
    'suite',
    'pass@1 (mean ± sd over runs)',
    'runs × tasks',
    ...sites,
    ...levels.map((l) => `level ${esc(l)}`),
    'steps on solved',
    'cost $',
    'wall s',
    'from',
  ];
  const groups: BarGroup[] = [
    {
      label: 'overall',
      values: evals.map((e) => ({
        series: e.label,
        value: e.summary.pass1.mean,
        error: e.summary.pass1.std,
      })),
    },
    ...sites.map((site) => ({
      label: site,
      values: evals.map((e) => ({
        series: e.label,
        value: e.summary.perSite[site]?.mean ?? 0,
        error: e.summary.perSite[site]?.std,
      })),
    })),
  ];
  return `${table(head, rows, { id: 'evals' })}<div class="charts">${barChart({ title: 'pass@1 per site', groups, yMax: 1, percent: true, width: Math.max(760, 90 * groups.length * Math.max(1, evals.length / 2)) })}</div>`;
}

function jsonTableSection(t: JsonTable, i: number): string {
  const cols = [...new Set(t.rows.flatMap((r) => Object.keys(r)))];
  const rows = t.rows.map((r) => cols.map((c) => cell(r[c])));
  const labelKey = ['row', 'name', 'label', 'stage'].find((k) => cols.includes(k));
  const chart =
    labelKey && cols.includes('pass1') && t.rows.every((r) => isRate(r.pass1))
      ? `<div class="charts">${barChart({
          title: `${t.title}: pass@1`,
          groups: t.rows.map((r) => ({
            label: String(r[labelKey]).slice(0, 18),
            values: [{ series: 'pass@1', value: (r.pass1 as Rate).mean, error: (r.pass1 as Rate).std }],
          })),
          yMax: 1,
          percent: true,
        })}</div>`
      : '';
  return `<section id="ablation-${i}"><h3>${esc(t.title)} <span class="muted mono">${esc(t.origin)}</span></h3>${table(cols.map(esc), rows, { cls: 'ablation' })}${chart}${
    t.markdown ? `<details><summary>markdown</summary><pre>${esc(t.markdown)}</pre></details>` : ''
  }</section>`;
}

/** Evaluation results (pass@1 per site and level) and ablation tables found in the run. */
export function tablesPage(view: RunView): string {
  const { evals, ablations, warnings } = loadTables(view.store, view.runDir);
  const warn = warnings.length
    ? `<div class="warn"><b>Some result files could not be read:</b><ul>${warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`
    : '';
  return `<h1>Evaluation and ablation</h1>${warn}<h2>Evaluations</h2>${evalSection(evals)}<h2>Ablations</h2>${
    ablations.length
      ? ablations.map(jsonTableSection).join('')
      : '<p class="muted">No ablation.json in this run folder (rmsweb ablate --out writes one).</p>'
  }`;
}
