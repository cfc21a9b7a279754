import {
  type CriticalState,
  type CriticalVerification,
  formatAction,
  type VerificationBranch,
} from '../../core/index.ts';
import { esc } from '../../core/text.ts';
import type { CriticalEntry } from '../critical-source.ts';
import { dl, href, jsonDetails, num, table } from '../html.ts';
import { actedElement } from '../overlay.ts';
import type { RunView } from '../run-view.ts';
import { screenshotFigure } from './observation.ts';

function warnings(ws: string[]): string {
  return ws.length
    ? `<div class="warn"><b>Some critical states could not be read:</b><ul>${ws.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`
    : '';
}

/** The list of critical states, filterable by failure label. */
export function criticalListPage(view: RunView, f: { label?: string; task?: string }): string {
  const set = view.critical.load();
  const labels = [...new Set(set.entries.map((e) => e.state.label))].sort();
  const shown = set.entries.filter(
    (e) => (!f.label || e.state.label === f.label) && (!f.task || e.state.task.id === f.task),
  );
  const rows = shown.map((e, i) => {
    const s = e.state;
    return [
      esc(i + 1),
      `<a class="critical-link" href="${href(['critical', s.id])}">${esc(s.id)}</a>`,
      `<a href="${href(['task', s.task.id])}">${esc(s.task.id)}</a>`,
      esc(s.label),
      `<span class="verification">${esc(s.verification?.label ?? '-')}</span>`,
      esc(num(s.comparability.total)),
      `<span class="mono">${esc(formatAction(s.success.action))}</span>`,
      `<span class="mono">${esc(formatAction(s.failure.action))}</span>`,
      esc(e.source),
    ];
  });
  const opts = ['', ...labels]
    .map(
      (l) =>
        `<option value="${esc(l)}"${l === (f.label ?? '') ? ' selected' : ''}>${esc(l || 'all')}</option>`,
    )
    .join('');
  const stats = view.store
    .listRecords('mine-stats')
    .map((r) => jsonDetails(`mining stats: ${r.key}`, r.value));
  return `<h1>Critical states</h1>${warnings(set.warnings)}
<form class="filters" method="get" action="/critical"><label>label<select name="label">${opts}</select></label>${f.task ? `<input type="hidden" name="task" value="${esc(f.task)}">` : ''}<button type="submit">Filter</button></form>
<p class="muted">${shown.length} of ${set.entries.length} states · sources: ${esc(set.files.length ? `store records and ${set.files.length} file(s)` : 'store records')}</p>
${table(['#', 'state', 'task', 'label', 'causal check', 'comparability', 'success action (ground truth)', 'failure action', 'source'], rows, { id: 'critical' })}
${stats.join('')}`;
}

function sideHtml(
  view: RunView,
  s: CriticalState,
  which: 'success' | 'failure',
  present: Set<string>,
): string {
  const side = s[which];
  const el = actedElement(side.observation, side.action);
  const title = which === 'success' ? 'Success side (ground truth)' : 'Failure side';
  const traj = present.has(side.trajectoryId)
    ? `<a class="traj-link" href="${href(['trajectory', side.trajectoryId], undefined, `step-${side.stepIndex}`)}">${esc(side.trajectoryId)} · step ${side.stepIndex + 1}</a>`
    : `<span class="mono">${esc(side.trajectoryId)}</span> <span class="muted">(not in this run)</span>`;
  const obs = side.observation;
  return `<div class="side ${which}" data-side="${which}"><h2>${title}</h2>
${dl([
  ['trajectory', traj],
  ['action', `<span class="mono">${esc(formatAction(side.action))}</span>`],
  ['URL', `<span class="mono">${esc(obs.url)}</span>`],
  ['memory', esc(obs.memory || '-')],
  ['progress', esc(obs.progress || '-')],
  ['earlier actions', `<span class="mono">${esc(side.history.map(formatAction).join(' → ') || '-')}</span>`],
])}
${screenshotFigure(view, obs, el ? [{ el, cls: which, label: `${which} action ${formatAction(side.action)}`, tag: which }] : [])}
${el ? '' : '<p class="caption muted">This action targets no element.</p>'}
</div>`;
}

function branchHtml(name: string, b: VerificationBranch | null): string {
  if (!b)
    return `<div class="branch"><h3>${esc(name)}</h3><p class="muted">not run (the prefix did not replay)</p></div>`;
  const outcome = b.success ? '<b class="ok">succeeded</b>' : '<b class="bad">failed</b>';
  const steps = b.steps
    .map(
      (x, i) =>
        `<li${i === 0 ? ' class="branch-action"' : ''}><span class="mono">${esc(x.action)}</span> <span class="muted">${esc(x.url)}</span></li>`,
    )
    .join('');
  return `<div class="branch" data-branch="${esc(name)}"><h3>${esc(name)}: ${outcome}</h3>
<p>${esc(b.reason || '-')} <span class="muted">(ended by ${esc(b.endReason)}${b.applicable ? '' : '; the action had no counterpart on the replayed page'}, ${esc(num(b.wallMs / 1000))} s)</span></p>
<ol class="branch-steps">${steps}</ol></div>`;
}

/** The causal check of a state (`mine --verify`): the label, the replay, and both branches. */
function verificationHtml(v: CriticalVerification | undefined): string {
  if (!v)
    return '<h2>Causal check</h2><p class="muted">not verified (run <span class="mono">rmsweb mine --verify</span>)</p>';
  return `<h2>Causal check</h2>
${dl([
  ['verdict', `<b id="verification">${esc(v.label)}</b>`],
  ['why', esc(v.reason || '-')],
  [
    'replay',
    `${v.replay.reproduced ? 'reproduced' : 'did not reproduce'} at comparability ${esc(num(v.replay.comparability))} (threshold ${esc(num(v.replay.threshold))})${v.replay.detail ? `: ${esc(v.replay.detail)}` : ''}`,
  ],
  [
    'continuation',
    `${esc(v.policy)} with ${esc(v.notes)} solving note(s); world perturbation seed ${esc(v.perturbSeed)}`,
  ],
  ['cost', `${esc(v.episodes)} episodes, ${esc(num(v.wallMs / 1000))} s`],
])}
<div class="pair branches">${branchHtml('success branch', v.success)}${branchHtml('failure branch', v.failure)}</div>`;
}

function bar(v: number): string {
  return `<span class="bar" style="width:${Math.round(120 * Math.max(0, Math.min(1, v)))}px"></span>${esc(num(v))}`;
}

/** A critical state side by side: both observations at the divergence with both elements outlined. */
export function criticalPairPage(view: RunView, id: string): string | null {
  const entries: CriticalEntry[] = view.critical.load().entries;
  const at = entries.findIndex((e) => e.state.id === id);
  if (at < 0) return null;
  const { state: s, source } = entries[at];
  const present = new Set(view.store.listTrajectorySummaries({ taskId: s.task.id }).map((t) => t.id));
  const prev = at > 0 ? entries[at - 1].state : null;
  const next = at < entries.length - 1 ? entries[at + 1].state : null;
  const c = s.comparability;
  const sameKey = (() => {
    const a = actedElement(s.success.observation, s.success.action);
    const b = actedElement(s.failure.observation, s.failure.action);
    return a && b
      ? a.nodeKey === b.nodeKey
        ? 'yes (same element, different action)'
        : 'no (different elements)'
      : 'n/a';
  })();
  return `<p><a href="/critical" data-nav="up">← critical states</a></p>
<h1>Critical state <span class="mono">${esc(s.id)}</span></h1>
<div class="attempt-nav">${prev ? `<a href="${href(['critical', prev.id])}" data-nav="prev">← previous state</a>` : '<span class="muted">first</span>'}<span>${at + 1} of ${entries.length}</span>${next ? `<a href="${href(['critical', next.id])}" data-nav="next">next state →</a>` : '<span class="muted">last</span>'}</div>
<p><a href="${href(['task', s.task.id])}">task ${esc(s.task.id)}</a>: <b>${esc(s.task.objective)}</b></p>
${dl([
  ['label', `<b id="label">${esc(s.label)}</b> <span class="muted">(by ${esc(s.labelSource)})</span>`],
  ['reason', esc(s.labelReason || '-')],
  ['same target element', esc(sameKey)],
  ['source', esc(source)],
])}
<h2>Comparability</h2>
${table(
  ['part', 'score'],
  (['url', 'elements', 'memory', 'progress', 'total'] as const).map((k) => [esc(k), bar(c[k])]),
  { id: 'comparability' },
)}
<div class="pair">${sideHtml(view, s, 'success', present)}${sideHtml(view, s, 'failure', present)}</div>
${verificationHtml(s.verification)}
<p class="keys"><kbd>←</kbd>/<kbd>→</kbd> previous / next state · <kbd>u</kbd> back to the list</p>`;
}
