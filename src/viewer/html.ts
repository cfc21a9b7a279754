/**
 * HTML building blocks for the viewer's server-rendered pages. Every piece of run data goes
 * through `esc` (text) or `href` (links): runs hold text written by models and web pages.
 */

import { esc } from '../core/text.ts';

/** A viewer-local link: each path segment URI-encoded, plus an optional query and hash. */
export function href(
  segments: Array<string | number>,
  query?: Record<string, string | number | undefined>,
  hash?: string,
): string {
  const path = `/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
  const q = query
    ? Object.entries(query)
        .filter(([, v]) => v !== undefined && v !== '')
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
        .join('&')
    : '';
  return `${path}${q ? `?${q}` : ''}${hash ? `#${hash}` : ''}`;
}

export const pct = (x: number | null | undefined, d = 1): string =>
  x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : `${(100 * x).toFixed(d)}%`;

export const num = (x: number | null | undefined, d = 2): string =>
  x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : Number(x.toFixed(d)).toString();

/** A verdict badge: solved, failed or unjudged. */
export function verdictBadge(success: boolean | null | undefined, title = ''): string {
  const [cls, text] = success === true ? ['ok', '✓'] : success === false ? ['bad', '✗'] : ['none', '?'];
  const label = success === true ? 'success' : success === false ? 'failure' : 'unjudged';
  return `<span class="badge ${cls}" title="${esc(title || label)}" aria-label="${label}">${text}</span>`;
}

/** A table from pre-rendered (already escaped) header and cell HTML. */
export function table(head: string[], rows: string[][], opts: { id?: string; cls?: string } = {}): string {
  if (!rows.length) return '<p class="muted">Nothing to show.</p>';
  return `<table${opts.id ? ` id="${esc(opts.id)}"` : ''}${opts.cls ? ` class="${esc(opts.cls)}"` : ''}><thead><tr>${head
    .map((h) => `<th>${h}</th>`)
    .join(
      '',
    )}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/** A definition list from label -> already-escaped HTML. */
export function dl(items: Array<[string, string]>): string {
  return `<dl class="kv">${items.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

/** Pretty JSON inside a collapsible block. */
export function jsonDetails(summary: string, value: unknown, open = false): string {
  return `<details${open ? ' open' : ''}><summary>${esc(summary)}</summary><pre>${esc(JSON.stringify(value, null, 2))}</pre></details>`;
}

const NAV: Array<[string, string, string]> = [
  ['home', '/', 'Run'],
  ['tasks', '/tasks', 'Tasks'],
  ['critical', '/critical', 'Critical states'],
  ['curves', '/curves', 'RL curves'],
  ['tables', '/tables', 'Eval & ablation'],
  ['judges', '/judges', 'Judges'],
];

/**
 * The page shell: header with the run name and navigation, the body, and the shared stylesheet
 * and script. Scripts and styles are served by the viewer itself (no external resources).
 */
export function layout(o: {
  title: string;
  runName: string;
  active: string;
  body: string;
  page: string;
}): string {
  const nav = NAV.map(
    ([id, url, label]) =>
      `<a href="${url}"${id === o.active ? ' class="active" aria-current="page"' : ''}>${label}</a>`,
  ).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)} · ${esc(o.runName)} · rmsweb</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/app.css">
</head><body data-page="${esc(o.page)}">
<header class="top"><span class="brand">rmsweb</span><span class="run" title="run">${esc(o.runName)}</span><nav>${nav}</nav></header>
<main>${o.body}</main>
<script src="/app.js"></script>
</body></html>`;
}
