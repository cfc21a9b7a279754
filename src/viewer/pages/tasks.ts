import { esc } from '../../core/text.ts';
import { dl, href, jsonDetails, num, table, verdictBadge } from '../html.ts';
import type { RunView, TaskRow } from '../run-view.ts';

const PAGE_SIZE = 100;

/** Query parameters of the tasks list. */
export interface TaskFilter {
  site?: string;
  outcome?: string;
  agent?: string;
  tag?: string;
  q?: string;
  page?: number;
}

function select(name: string, label: string, options: string[], value: string | undefined): string {
  const opts = ['', ...options]
    .map(
      (o) => `<option value="${esc(o)}"${o === (value ?? '') ? ' selected' : ''}>${esc(o || 'all')}</option>`,
    )
    .join('');
  return `<label>${esc(label)}<select name="${esc(name)}">${opts}</select></label>`;
}

function matches(r: TaskRow, f: TaskFilter): boolean {
  if (f.site && r.site !== f.site) return false;
  if (f.outcome && r.outcome !== f.outcome) return false;
  if (f.agent && !r.agents.includes(f.agent)) return false;
  if (f.tag && !r.tags.includes(f.tag)) return false;
  if (f.q && !r.taskId.toLowerCase().includes(f.q.toLowerCase())) return false;
  return true;
}

/** The tasks list: one row per task with its attempts' verdicts, filterable by site and outcome. */
export function tasksPage(view: RunView, f: TaskFilter): string {
  const all = view.taskRows();
  const rows = all.filter((r) => matches(r, f));
  const uniq = (xs: string[]) => [...new Set(xs)].sort();
  const page = Math.max(1, f.page ?? 1);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const shown = rows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const form = `<form class="filters" method="get" action="/tasks">
${select('site', 'site', uniq(all.map((r) => r.site)), f.site)}
${select('outcome', 'outcome', ['solved', 'failed', 'unjudged'], f.outcome)}
${select('agent', 'agent', uniq(all.flatMap((r) => r.agents)), f.agent)}
${select('tag', 'tag', uniq(all.flatMap((r) => r.tags)), f.tag)}
<label>task id contains<input type="search" name="q" value="${esc(f.q ?? '')}"></label>
<button type="submit">Filter</button> <a href="/tasks">reset</a></form>`;
  const body = shown.map((r) => {
    let objective: string;
    try {
      objective = view.task(r.taskId)?.objective ?? '';
    } catch (e) {
      // One corrupt record must not hide the whole list; its own page shows the error.
      objective = `(unreadable: ${(e as Error).message})`;
    }
    const verdicts = r.attempts
      .map(
        (a) =>
          `<a href="${href(['trajectory', a.id])}">${verdictBadge(a.success, `round ${a.round}, ${a.agentId}, ${a.steps} steps`)}</a>`,
      )
      .join('');
    return [
      `<a class="task-link" href="${href(['task', r.taskId])}">${esc(r.taskId)}</a>`,
      esc(objective),
      esc(r.site),
      esc(r.attempts.length),
      verdicts,
      esc(r.rounds),
      esc(r.notes),
      `<span class="mono">${esc(r.agents.join(', '))}</span>`,
    ];
  });
  const pager =
    pages > 1
      ? `<p>${page > 1 ? `<a href="${href(['tasks'], { ...f, page: page - 1 })}" data-nav="prev">← previous</a> ` : ''}page ${page} of ${pages}${page < pages ? ` <a href="${href(['tasks'], { ...f, page: page + 1 })}" data-nav="next">next →</a>` : ''}</p>`
      : '';
  return `<h1>Tasks</h1>${form}<p class="muted" id="task-count">${rows.length} of ${all.length} tasks</p>${table(
    ['task', 'objective', 'site', 'attempts', 'verdicts', 'rounds', 'notes', 'agents'],
    body,
    { id: 'tasks' },
  )}${pager}`;
}

/** One task: its definition, every attempt, the reflections written for it and its critical states. */
export function taskPage(view: RunView, taskId: string): string | null {
  const attempts = view.store.listTrajectorySummaries({ taskId });
  const task = view.task(taskId);
  if (!attempts.length || !task) return null;
  const rows = attempts.map((a, i) => {
    const t = view.store.getTrajectory(a.id);
    return [
      esc(i + 1),
      `<a class="attempt-link" href="${href(['trajectory', a.id])}">${esc(a.id)}</a>`,
      `<span class="mono">${esc(a.agentId)}</span>`,
      esc(a.round),
      esc(a.tags.join(', ')),
      `${verdictBadge(a.success)} ${esc(num(a.score))}`,
      esc(t?.verdict?.reason ?? ''),
      esc(t ? `${t.endReason}${t.endDetail ? `: ${t.endDetail}` : ''}` : ''),
      esc(a.steps),
      esc(a.notes),
    ];
  });
  const reflections = view.store
    .listReflections(taskId)
    .map((r) => [
      esc(r.round),
      `<a href="${href(['trajectory', r.fromTrajectoryId])}">${esc(r.fromTrajectoryId)}</a>`,
      `<span style="white-space:pre-wrap">${esc(r.text)}</span>`,
      esc(r.source),
    ]);
  const critical = view.critical
    .load()
    .entries.filter((e) => e.state.task.id === taskId)
    .map((e) => [
      `<a href="${href(['critical', e.state.id])}">${esc(e.state.id)}</a>`,
      esc(e.state.label),
      esc(num(e.state.comparability.total)),
    ]);
  return `<p><a href="/tasks" data-nav="up">← tasks</a></p><h1>Task ${esc(taskId)}</h1>
<p><b>${esc(task.objective)}</b></p>
${dl([
  ['site', esc(task.site)],
  ['suite', esc(task.suite)],
  ['start URL', `<span class="mono">${esc(task.startUrl)}</span>`],
  ['level', esc(task.level ?? '-')],
  ['category', esc(task.category ?? '-')],
  ['split', esc(task.split ?? '-')],
  ['verifier', esc(task.verifier.kind)],
])}${jsonDetails('verifier (hidden from agents)', task.verifier)}
<h2>Attempts</h2>${table(['#', 'trajectory', 'agent', 'round', 'tags', 'verdict', 'reason', 'ended', 'steps', 'notes'], rows, { id: 'attempts' })}
<h2>Reflections</h2>${table(['after round', 'from attempt', 'note', 'source'], reflections)}
<h2>Critical states</h2>${table(['state', 'label', 'comparability'], critical)}`;
}
