import type { Trajectory } from '../../core/index.ts';
import { esc } from '../../core/text.ts';
import { JUDGE_VERDICT_RECORD, JudgeVerdictRecord } from '../../judge/judge-under-test.ts';
import { WORLD_VERIFIER_ID } from '../../world/world.ts';
import { dl, href, pct, table, verdictBadge } from '../html.ts';
import type { RunView } from '../run-view.ts';

function verdictsOf(view: RunView): JudgeVerdictRecord[] {
  return view.store.listRecords(JUDGE_VERDICT_RECORD, JudgeVerdictRecord).map((r) => r.value);
}

/** The verifier's truth of a trajectory, when the programmatic verifier scored it. */
function truthOf(t: Trajectory | null): boolean | null {
  return t?.verdict?.verifierId === WORLD_VERIFIER_ID ? t.verdict.success : null;
}

function outcomeBadge(r: JudgeVerdictRecord): string {
  if (r.outcome === 'error')
    return `<span class="badge none" title="judge error">!</span> judge error (${esc(r.errorKind ?? 'error')})`;
  return `${verdictBadge(r.outcome === 'success')} ${r.outcome}`;
}

/**
 * One episode's programmatic verdict beside every judge's verdict on it, with the episode's
 * timeline one click away: where a calibration's disagreement is read.
 */
export function judgeEpisodePage(view: RunView, trajectoryId: string): string | null {
  const t = view.store.getTrajectory(trajectoryId);
  if (!t) return null;
  const v = t.verdict;
  const truth = truthOf(t);
  const judged = verdictsOf(view).filter((r) => r.trajectoryId === trajectoryId);
  const verifierCol = `<div class="judge-col" data-testid="verifier"><h2>${verdictBadge(v?.success ?? null)} ${esc(v?.verifierId ?? 'no verdict')}</h2>
${dl([
  ['verdict', v ? (v.success ? 'success' : 'failure') : 'not judged'],
  ['score', esc(v?.score ?? '-')],
  ['failed conditions', esc(v?.failedConditions.join(', ') || '-')],
  ['reason', `<pre class="wrap">${esc(v?.reason || '-')}</pre>`],
])}</div>`;
  const judgeCols = judged.map((r) => {
    const agrees = r.outcome === 'error' || truth === null ? null : (r.outcome === 'success') === truth;
    return `<div class="judge-col" data-testid="judge" data-agrees="${agrees === null ? 'n/a' : agrees}"><h2>${outcomeBadge(r)}</h2>
${dl([
  ['judge', `<span class="mono">${esc(r.judge)}</span>`],
  ['agrees with the verifier', agrees === null ? 'n/a' : agrees ? 'yes' : '<b>no</b>'],
  ['score', esc(r.score ?? '-')],
  [
    'cost',
    esc(
      `${r.usage.calls} call(s) · ${r.usage.promptTokens}+${r.usage.completionTokens} tokens · $${r.usage.costUsd.toFixed(5)} · ${(r.ms / 1000).toFixed(1)} s`,
    ),
  ],
  ['reasoning', `<pre class="wrap">${esc(r.reason || '-')}</pre>`],
])}</div>`;
  });
  return `<p><a href="${href(['judges'])}" data-nav="up">← all judge verdicts</a> · <a href="${href(['trajectory', t.id])}">the episode, step by step →</a></p>
<h1>${verdictBadge(v?.success ?? null)} Judges on <span class="mono">${esc(t.id)}</span></h1>
<p><b>${esc(t.task.objective)}</b></p>
${dl([
  ['task', `<a href="${href(['task', t.task.id])}">${esc(t.task.id)}</a> · ${esc(t.task.site)}`],
  ['agent', `<span class="mono">${esc(t.agentId)}</span>`],
  ['ended', esc(`${t.endReason}${t.endDetail ? `: ${t.endDetail}` : ''}`)],
  ['final answer', esc(t.finalAnswer ?? '-')],
])}
<div class="judge-cols" style="display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:16px">
${verifierCol}
${judgeCols.length ? judgeCols.join('\n') : '<p class="muted">No judge has judged this episode (run <span class="mono">rmsweb judge calibrate</span>).</p>'}
</div>`;
}

/** The trajectory page's row linking to the judges' verdicts on it; none when no judge judged it. */
export function judgesRow(view: RunView, trajectoryId: string): Array<[string, string]> {
  const n = verdictsOf(view).filter((r) => r.trajectoryId === trajectoryId).length;
  return n
    ? [
        [
          'judges',
          `<a href="${href(['judge', trajectoryId])}">${n} judge verdict(s) beside the verifier's →</a>`,
        ],
      ]
    : [];
}

/** Every judge's agreement with the verifier on this run, and the list of its disagreements. */
export function judgesPage(view: RunView): string {
  const records = verdictsOf(view);
  if (!records.length)
    return '<h1>Judges</h1><p class="muted">No judge verdicts in this run: <span class="mono">rmsweb judge calibrate --run DIR --judge SPEC</span> stores them here.</p>';
  const truths = new Map<string, boolean | null>();
  const truth = (id: string) => {
    if (!truths.has(id)) truths.set(id, truthOf(view.store.getTrajectory(id)));
    return truths.get(id)!;
  };
  const judges = [...new Set(records.map((r) => r.judge))].sort();
  const summary = judges.map((j) => {
    const rs = records.filter((r) => r.judge === j && truth(r.trajectoryId) !== null);
    const scored = rs.filter((r) => r.outcome !== 'error');
    const agree = scored.filter((r) => (r.outcome === 'success') === truth(r.trajectoryId)).length;
    return [
      `<span class="mono">${esc(j)}</span>`,
      esc(rs.length),
      esc(scored.length),
      pct(scored.length ? agree / scored.length : null),
      esc(rs.length - scored.length),
    ];
  });
  const disagreements = records
    .filter((r) => r.outcome !== 'error' && truth(r.trajectoryId) !== null)
    .filter((r) => (r.outcome === 'success') !== truth(r.trajectoryId))
    .map((r) => [
      `<a href="${href(['judge', r.trajectoryId])}" class="mono">${esc(r.trajectoryId)}</a>`,
      `<span class="mono">${esc(r.judge)}</span>`,
      esc(r.site),
      truth(r.trajectoryId) ? 'success' : 'failure',
      esc(r.outcome),
      esc(r.reason.replace(/\s+/g, ' ').slice(0, 160)),
    ]);
  return `<h1>Judges against the programmatic verifier</h1>
${table(['judge', 'verdicts on verified episodes', 'scored', 'agreement', 'judge errors'], summary)}
<h2>Disagreements (${disagreements.length})</h2>
${table(['episode', 'judge', 'site', 'verifier', 'judge', 'judge reasoning'], disagreements, { id: 'disagreements' })}`;
}
