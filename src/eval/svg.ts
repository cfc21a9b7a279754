/** Minimal SVG charts rendered as strings at report time: no browser, no dependencies. */

import { esc } from '../core/text.ts';

const PALETTE = ['#2457d6', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];

export interface BarGroup {
  label: string;
  values: Array<{ series: string; value: number; error?: number }>;
}

/** Grouped vertical bars with optional error whiskers; values in [0, yMax]. */
export function barChart(o: {
  title: string;
  groups: BarGroup[];
  yMax?: number;
  yLabel?: string;
  percent?: boolean;
  width?: number;
  height?: number;
}): string {
  const width = o.width ?? 760;
  const height = o.height ?? 320;
  const m = { l: 52, r: 16, t: 34, b: 64 };
  const series = [...new Set(o.groups.flatMap((g) => g.values.map((v) => v.series)))];
  const yMax =
    o.yMax ?? Math.max(1e-9, ...o.groups.flatMap((g) => g.values.map((v) => v.value + (v.error ?? 0))));
  const pw = width - m.l - m.r;
  const ph = height - m.t - m.b;
  const gw = pw / Math.max(1, o.groups.length);
  const bw = Math.max(2, (gw * 0.8) / Math.max(1, series.length));
  const y = (v: number) => m.t + ph - (Math.min(v, yMax) / yMax) * ph;
  const fmt = (v: number) => (o.percent ? `${Math.round(v * 100)}%` : Number(v.toFixed(2)).toString());
  const parts: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    parts.push(
      `<line x1="${m.l}" x2="${width - m.r}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/><text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11" fill="#555">${fmt(v)}</text>`,
    );
  }
  o.groups.forEach((g, gi) => {
    const x0 = m.l + gi * gw + gw * 0.1;
    g.values.forEach((v) => {
      const si = series.indexOf(v.series);
      const x = x0 + si * bw;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(v.value).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${(m.t + ph - y(v.value)).toFixed(1)}" fill="${PALETTE[si % PALETTE.length]}"><title>${esc(`${g.label} / ${v.series}: ${fmt(v.value)}`)}</title></rect>`,
      );
      if (v.error) {
        const cx = x + (bw - 2) / 2;
        parts.push(
          `<line x1="${cx}" x2="${cx}" y1="${y(v.value + v.error)}" y2="${y(Math.max(0, v.value - v.error))}" stroke="#111"/>`,
        );
      }
    });
    parts.push(
      `<text x="${(m.l + gi * gw + gw / 2).toFixed(1)}" y="${height - m.b + 16}" text-anchor="middle" font-size="11">${esc(g.label)}</text>`,
    );
  });
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${m.l + i * 150}" y="${height - 22}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${m.l + i * 150 + 14}" y="${height - 13}" font-size="11">${esc(s)}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(o.title)}"><text x="${m.l}" y="20" font-size="14" font-weight="600">${esc(o.title)}</text>${o.yLabel ? `<text x="12" y="${m.t + ph / 2}" font-size="11" transform="rotate(-90 12 ${m.t + ph / 2})" text-anchor="middle">${esc(o.yLabel)}</text>` : ''}<line x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${m.t + ph}" stroke="#999"/>${parts.join('')}${legend}</svg>`;
}

export interface LineSeries {
  name: string;
  points: Array<[number, number]>;
}

/** Line chart of one or more series over a shared x axis. */
export function lineChart(o: {
  title: string;
  series: LineSeries[];
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
}): string {
  const width = o.width ?? 760;
  const height = o.height ?? 280;
  const m = { l: 56, r: 16, t: 34, b: 56 };
  const all = o.series
    .flatMap((s) => s.points)
    .filter(([x, yv]) => Number.isFinite(x) && Number.isFinite(yv));
  if (!all.length)
    return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} 60" width="${width}" height="60"><text x="10" y="30" font-size="13">${esc(o.title)}: no data</text></svg>`;
  let [x0, x1] = [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  let [y0, y1] = [Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[1]))];
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) {
    y1 = y0 + 1;
    y0 -= 1;
  }
  const pw = width - m.l - m.r;
  const ph = height - m.t - m.b;
  const sx = (v: number) => m.l + ((v - x0) / (x1 - x0)) * pw;
  const sy = (v: number) => m.t + ph - ((v - y0) / (y1 - y0)) * ph;
  const parts: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = y0 + ((y1 - y0) * i) / 4;
    parts.push(
      `<line x1="${m.l}" x2="${width - m.r}" y1="${sy(v)}" y2="${sy(v)}" stroke="#e5e7eb"/><text x="${m.l - 6}" y="${sy(v) + 4}" text-anchor="end" font-size="11" fill="#555">${Number(v.toPrecision(3))}</text>`,
    );
  }
  parts.push(
    `<text x="${m.l}" y="${height - m.b + 16}" font-size="11" fill="#555">${Number(x0.toPrecision(4))}</text><text x="${width - m.r}" y="${height - m.b + 16}" text-anchor="end" font-size="11" fill="#555">${Number(x1.toPrecision(4))}</text>`,
  );
  o.series.forEach((s, i) => {
    const pts = s.points.filter(([x, yv]) => Number.isFinite(x) && Number.isFinite(yv));
    if (!pts.length) return;
    const d = pts.map(([x, yv], j) => `${j ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(yv).toFixed(1)}`).join('');
    parts.push(`<path d="${d}" fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="1.8"/>`);
    parts.push(
      `<rect x="${m.l + i * 170}" y="${height - 20}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${m.l + i * 170 + 14}" y="${height - 11}" font-size="11">${esc(s.name)}</text>`,
    );
  });
  const xl = o.xLabel
    ? `<text x="${m.l + pw / 2}" y="${height - m.b + 30}" text-anchor="middle" font-size="11">${esc(o.xLabel)}</text>`
    : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(o.title)}"><text x="${m.l}" y="20" font-size="14" font-weight="600">${esc(o.title)}</text>${parts.join('')}${xl}</svg>`;
}

/** Histogram from a value -> count map (integer bins). */
export function histogram(o: { title: string; counts: Record<string, number>; xLabel?: string }): string {
  const keys = Object.keys(o.counts)
    .map(Number)
    .sort((a, b) => a - b);
  if (!keys.length) return lineChart({ title: o.title, series: [] });
  const lo = keys[0];
  const hi = keys[keys.length - 1];
  const groups: BarGroup[] = [];
  for (let k = lo; k <= hi; k++)
    groups.push({
      label: String(k),
      values: [{ series: o.xLabel ?? 'count', value: o.counts[String(k)] ?? 0 }],
    });
  return barChart({ title: o.title, groups });
}

/** One 2x2 confusion table of a judge against ground truth, plus the verdicts it could not give. */
export interface ConfusionPanel {
  title: string;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  errors: number;
}

/**
 * Confusion matrices side by side, one panel per judge: rows are the verifier's truth, columns
 * the judge's verdict, each cell shaded by its share of the row; judge errors are written under
 * the panel (they sit in neither column).
 */
export function confusionMatrices(o: { title: string; panels: ConfusionPanel[]; perRow?: number }): string {
  const perRow = Math.max(1, o.perRow ?? 4);
  const cell = 62;
  const pw = 2 * cell + 96;
  const ph = 2 * cell + 74;
  const cols = Math.min(perRow, Math.max(1, o.panels.length));
  const width = 20 + cols * pw;
  const height = 34 + Math.ceil(Math.max(1, o.panels.length) / perRow) * ph;
  const parts: string[] = [];
  o.panels.forEach((p, i) => {
    const x0 = 10 + (i % perRow) * pw + 84;
    const y0 = 34 + Math.floor(i / perRow) * ph + 34;
    parts.push(
      `<text x="${x0 - 74}" y="${y0 - 20}" font-size="12" font-weight="600">${esc(p.title.length > 34 ? `${p.title.slice(0, 33)}…` : p.title)}<title>${esc(p.title)}</title></text>`,
      `<text x="${x0 + cell / 2}" y="${y0 - 4}" font-size="10" text-anchor="middle" fill="#555">judge ✓</text>`,
      `<text x="${x0 + 1.5 * cell}" y="${y0 - 4}" font-size="10" text-anchor="middle" fill="#555">judge ✗</text>`,
      `<text x="${x0 - 6}" y="${y0 + cell / 2 + 4}" font-size="10" text-anchor="end" fill="#555">verifier ✓</text>`,
      `<text x="${x0 - 6}" y="${y0 + 1.5 * cell + 4}" font-size="10" text-anchor="end" fill="#555">verifier ✗</text>`,
    );
    const rows: Array<[number, number, boolean]> = [
      [p.tp, p.tp + p.fn, true],
      [p.fn, p.tp + p.fn, false],
      [p.fp, p.fp + p.tn, false],
      [p.tn, p.fp + p.tn, true],
    ];
    rows.forEach(([v, rowTotal, agree], j) => {
      const x = x0 + (j % 2) * cell;
      const y = y0 + Math.floor(j / 2) * cell;
      const share = rowTotal ? v / rowTotal : 0;
      const fill = agree
        ? `rgba(5,150,105,${(0.12 + 0.75 * share).toFixed(2)})`
        : `rgba(220,38,38,${(0.12 + 0.75 * share).toFixed(2)})`;
      parts.push(
        `<rect x="${x}" y="${y}" width="${cell - 2}" height="${cell - 2}" fill="${fill}"/><text x="${x + cell / 2 - 1}" y="${y + cell / 2 + 5}" font-size="15" text-anchor="middle">${v}</text>`,
      );
    });
    parts.push(
      `<text x="${x0}" y="${y0 + 2 * cell + 14}" font-size="10" fill="#555">judge errors: ${p.errors}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(o.title)}"><text x="10" y="20" font-size="14" font-weight="600">${esc(o.title)}</text>${parts.join('')}</svg>`;
}
