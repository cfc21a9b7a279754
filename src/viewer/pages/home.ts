import { computeRunStats, formatRunStats } from '../../collect/stats.ts';
import { esc } from '../../core/text.ts';
import { dl, href, jsonDetails, table } from '../html.ts';
import type { RunView } from '../run-view.ts';

function card(label: string, value: number | string, link?: string): string {
  return `<div class="card"><b>${esc(value)}</b>${link ? `<a href="${link}">${esc(label)}</a>` : esc(label)}</div>`;
}

/** The run's home page: manifest, counts and links to every other page. */
export function homePage(view: RunView): string {
  const { store } = view;
  const parts: string[] = [`<h1>Run ${esc(view.name)}</h1>`, `<p class="muted mono">${esc(view.runDir)}</p>`];
  let manifestHtml: string;
  try {
    const m = store.readManifest();
    manifestHtml = m
      ? dl([
          ['command', `<span class="mono">${esc(m.command)}</span>`],
          ['seed', esc(m.seed)],
          ['created', esc(m.createdAt)],
          ['updated', esc(m.updatedAt)],
          [
            'versions',
            esc(
              Object.entries(m.versions)
                .map(([k, v]) => `${k} ${v}`)
                .join(', '),
            ),
          ],
          ['stages', esc(Object.keys(m.stages ?? {}).join(', ') || 'none recorded')],
        ]) +
        jsonDetails('config', m.config) +
        (m.stages ? jsonDetails('stages', m.stages) : '')
      : '<p class="muted">This run has no manifest.json.</p>';
  } catch (e) {
    manifestHtml = `<div class="warn">${esc((e as Error).message)}</div>`;
  }

  const rows = view.taskRows();
  const summaries = rows.flatMap((r) => r.attempts);
  const critical = view.critical.load();
  const curves = view.curves.load();
  const evals = store.listRecords('eval-summary').length;
  parts.push(
    '<div class="cards">',
    card('tasks', rows.length, '/tasks'),
    card('attempts', summaries.length, '/tasks'),
    card(
      'successful attempts',
      summaries.filter((s) => s.success === true).length,
      href(['tasks'], { outcome: 'solved' }),
    ),
    card(
      'failed attempts',
      summaries.filter((s) => s.success === false).length,
      href(['tasks'], { outcome: 'failed' }),
    ),
    card('unjudged attempts', summaries.filter((s) => s.success === null).length),
    card('reflections', store.listReflections().length),
    card('critical states', critical.entries.length, '/critical'),
    card('training curves', curves.sets.length, '/curves'),
    card('evaluations', evals, '/tables'),
    '</div>',
    '<h2>Manifest</h2>',
    manifestHtml,
  );

  const groups = new Map<string, { n: number; ok: number; steps: number }>();
  for (const s of summaries) {
    const key = `${s.agentId}\u0000${s.tags.join(', ')}`;
    const g = groups.get(key) ?? { n: 0, ok: 0, steps: 0 };
    g.n++;
    g.ok += s.success ? 1 : 0;
    g.steps += s.steps;
    groups.set(key, g);
  }
  parts.push(
    '<h2>Attempts by agent and tags</h2>',
    table(
      ['agent', 'tags', 'attempts', 'successes', 'steps'],
      [...groups.entries()].map(([k, g]) => {
        const [agent, tags] = k.split('\u0000');
        return [
          `<span class="mono">${esc(agent)}</span>`,
          esc(tags || '-'),
          esc(g.n),
          esc(g.ok),
          esc(g.steps),
        ];
      }),
    ),
  );
  if (summaries.some((s) => s.tags.includes('collect'))) {
    parts.push(
      '<h2>Collection with reflection</h2>',
      `<pre>${esc(formatRunStats(computeRunStats(store, 'collect')))}</pre>`,
    );
  }
  parts.push(
    '<p class="keys">Keys: on a trajectory <kbd>←</kbd>/<kbd>→</kbd> or <kbd>k</kbd>/<kbd>j</kbd> move between steps, <kbd>[</kbd>/<kbd>]</kbd> (or <kbd>p</kbd>/<kbd>n</kbd>, <kbd>Shift</kbd>+arrows) between attempts, <kbd>a</kbd> shows all steps, <kbd>u</kbd> goes up to the task.</p>',
  );
  return parts.join('\n');
}
