import {
  ACTION_ERROR_LABELS,
  type ActionErrorKind,
  formatAction,
  type Step,
  type Trajectory,
} from '../../core/index.ts';
import { esc } from '../../core/text.ts';
import { dl, href, num, verdictBadge } from '../html.ts';
import { actedElement } from '../overlay.ts';
import type { RunView } from '../run-view.ts';
import { judgesRow } from './judge.ts';
import { type Highlight, screenshotFigure } from './observation.ts';

/** ` (covered by an overlay)`: the kind of an action error, when the record has one. */
function kindLabel(kind: ActionErrorKind | undefined): string {
  return kind ? ` (${esc(ACTION_ERROR_LABELS[kind])})` : '';
}

function kindAttr(kind: ActionErrorKind | undefined): string {
  return kind ? ` data-error-kind="${esc(kind)}"` : '';
}

/** The block that shows injected reflection notes, marked as never reaching training data. */
export function notesBlock(notes: string[], heading = 'Reflection notes injected into this attempt'): string {
  if (!notes.length) return '';
  return `<div class="notes" data-testid="notes"><h3>${esc(heading)} <span class="stripped">(stripped from training data)</span></h3><ol>${notes
    .map((n) => `<li>${esc(n)}</li>`)
    .join('')}</ol></div>`;
}

function sameNotes(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function stepSection(view: RunView, t: Trajectory, s: Step, i: number): string {
  const obs = s.observation;
  const el = actedElement(obs, s.action);
  const highlights: Highlight[] = el
    ? [{ el, label: `acted on by ${formatAction(s.action)}`, tag: s.action.type }]
    : [];
  const o = s.output;
  const outputItems: Array<[string, string]> = [
    ['evaluation of previous goal', esc(o.evaluation_previous_goal || '-')],
    ['memory', esc(o.memory || '-')],
    ['next goal', esc(o.next_goal || '-')],
    ['actions', `<span class="mono">${esc(o.action.map((a) => JSON.stringify(a)).join(' '))}</span>`],
  ];
  if (o.thinking)
    outputItems.unshift([
      'thinking',
      `<details><summary>show</summary><pre>${esc(o.thinking)}</pre></details>`,
    ]);
  const r = s.result;
  const result = r.error
    ? `<span class="error"${kindAttr(r.errorKind)}>error${kindLabel(r.errorKind)}: ${esc(r.error)}</span>`
    : `ok${r.isDone ? ` · done (success ${esc(r.success)})` : ''}${r.extractedContent ? ` · answer: ${esc(r.extractedContent)}` : ''}`;
  const notes = obs.notes.length
    ? sameNotes(obs.notes, t.notes)
      ? `<p class="caption"><span class="stripped">The ${obs.notes.length} note(s) above were injected into this observation (stripped from training data).</span></p>`
      : notesBlock(obs.notes, 'Notes injected into this observation')
    : '';
  const extra: Array<[string, string]> = [];
  if (obs.memory) extra.push(['agent memory (observation)', esc(obs.memory)]);
  if (obs.progress) extra.push(['progress', esc(obs.progress)]);
  extra.push([
    'timing',
    esc(`model ${s.timing.modelMs} ms · act ${s.timing.actMs} ms · observe ${s.timing.observeMs} ms`),
  ]);
  if (s.logProb !== undefined) extra.push(['log-prob', esc(num(s.logProb, 3))]);
  if (s.usage)
    extra.push([
      'usage',
      esc(`${s.usage.promptTokens}+${s.usage.completionTokens} tokens · $${s.usage.costUsd.toFixed(4)}`),
    ]);
  return `<section class="step${i === 0 ? ' current' : ''}" id="step-${i}" data-step="${i}">
<div class="shot-col">${screenshotFigure(view, obs, highlights)}</div>
<div class="info">
<h2>Step ${i + 1}: <span class="mono">${esc(formatAction(s.action))}</span></h2>
<p class="mono">${esc(obs.url)}${obs.title ? ` · ${esc(obs.title)}` : ''}</p>
${obs.lastActionError ? `<p class="error"${kindAttr(obs.lastActionErrorKind)}>previous action failed${kindLabel(obs.lastActionErrorKind)}: ${esc(obs.lastActionError)}</p>` : ''}
<h3>Model output</h3>${dl(outputItems).replace('class="kv"', 'class="kv out"')}
<h3>Result</h3><p class="result">${result}</p>
${notes}
${dl(extra)}
</div></section>`;
}

/** A trajectory as a timeline of steps, with keyboard navigation between steps and attempts. */
export function trajectoryPage(view: RunView, id: string): string | null {
  const t = view.store.getTrajectory(id);
  if (!t) return null;
  const siblings = view.store.listTrajectorySummaries({ taskId: t.task.id });
  const at = siblings.findIndex((s) => s.id === id);
  const prev = at > 0 ? siblings[at - 1] : null;
  const next = at >= 0 && at < siblings.length - 1 ? siblings[at + 1] : null;
  const v = t.verdict;
  const nav = `<div class="attempt-nav">
${prev ? `<a href="${href(['trajectory', prev.id])}" data-nav="prev" rel="prev">← previous attempt (round ${prev.round})</a>` : '<span class="muted">first attempt</span>'}
<span>attempt ${at + 1} of ${siblings.length} of this task</span>
${next ? `<a href="${href(['trajectory', next.id])}" data-nav="next" rel="next">next attempt (round ${next.round}) →</a>` : '<span class="muted">last attempt</span>'}
</div>`;
  const chips = t.steps
    .map(
      (s, i) =>
        `<a class="chip${s.result.error ? ' err' : ''}${i === 0 ? ' current' : ''}" href="#step-${i}" data-step="${i}" title="${esc(s.observation.url)}">${i + 1} ${esc(s.action.type)}</a>`,
    )
    .join('');
  const u = t.usage;
  return `<p><a href="${href(['task', t.task.id])}" data-nav="up">← task ${esc(t.task.id)}</a></p>
<h1>${verdictBadge(v?.success ?? null)} Attempt <span class="mono">${esc(t.id)}</span></h1>
<p><b>${esc(t.task.objective)}</b></p>
${nav}
${dl([
  ['agent', `<span class="mono">${esc(t.agentId)}</span>`],
  ['round', esc(t.round)],
  ['tags', esc(t.tags.join(', ') || '-')],
  [
    'verdict',
    v
      ? `${verdictBadge(v.success)} score ${esc(num(v.score))} · ${esc(v.verifierId)}${v.reason ? ` · ${esc(v.reason)}` : ''}${v.failedConditions.length ? ` · failed: ${esc(v.failedConditions.join(', '))}` : ''}`
      : 'not judged',
  ],
  ...judgesRow(view, t.id),
  ['ended', esc(`${t.endReason}${t.endDetail ? `: ${t.endDetail}` : ''}`)],
  ['final answer', esc(t.finalAnswer ?? '-')],
  [
    'usage',
    esc(`${u.calls} calls · ${u.promptTokens}+${u.completionTokens} tokens · $${u.costUsd.toFixed(4)}`),
  ],
  ['time', esc(`${t.startedAt} → ${t.endedAt}`)],
])}
${notesBlock(t.notes)}
<div class="chips" role="navigation" aria-label="steps">${chips}</div>
<p class="muted"><span id="step-pos">${t.steps.length} steps</span> · <kbd>←</kbd>/<kbd>→</kbd> or <kbd>k</kbd>/<kbd>j</kbd> step · <kbd>[</kbd>/<kbd>]</kbd> attempt · <kbd>a</kbd> all steps</p>
${t.steps.length ? t.steps.map((s, i) => stepSection(view, t, s, i)).join('\n') : '<p class="muted">This attempt has no steps.</p>'}`;
}
