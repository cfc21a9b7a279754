import { esc } from '../../core/text.ts';
import { lineChart } from '../../eval/svg.ts';
import { type CurveSet, groupMetrics } from '../curve-source.ts';
import type { RunView } from '../run-view.ts';

// `charts/` only says "a diagnostic"; dropping it keeps legends short enough not to overlap.
function series(
  set: CurveSet,
  key: string,
  name = key.replace(/^charts\//, ''),
): { name: string; points: Array<[number, number]> } {
  return {
    name,
    points: set.points.filter((p) => key in p.values).map((p) => [p.step, p.values[key]] as [number, number]),
  };
}

function setSection(set: CurveSet, i: number): string {
  const { groups, other } = groupMetrics(set);
  const xLabel = set.kind === 'sft' ? 'epoch' : 'step';
  const charts = groups.map((g) =>
    lineChart({ title: g.title, series: g.keys.map((k) => series(set, k)), xLabel }),
  );
  const small = other.map((k) =>
    lineChart({ title: k, series: [series(set, k)], xLabel, width: 380, height: 200 }),
  );
  const facts = Object.entries(set.facts)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${esc(k)} <b>${esc(v)}</b>`)
    .join(' · ');
  return `<section class="curve-set" id="curves-${i}"><h2>${esc(set.name)}</h2><p class="muted"><span class="mono">${esc(set.origin)}</span>${facts ? ` · ${facts}` : ''} · ${set.points.length} points</p>
<div class="charts">${charts.join('')}</div>${small.length ? `<details><summary>${small.length} more series</summary><div class="charts small">${small.join('')}</div></details>` : ''}</section>`;
}

/** RL (and SFT) training curves: reward, gate pass rates, salvage share, KL and losses per run. */
export function curvesPage(view: RunView): string {
  const { sets, warnings } = view.curves.load();
  const warn = warnings.length
    ? `<div class="warn"><b>Some metric files could not be read:</b><ul>${warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>`
    : '';
  if (!sets.length) {
    return `<h1>Training curves</h1>${warn}<p class="muted">No curves yet: run <span class="mono">rmsweb rl --log-run ${esc(view.runDir)}</span>, or pass <span class="mono">--models DIR</span> to show the rl-metrics.json of trained checkpoints.</p>`;
  }
  const withReward = sets.filter((s) => s.points.some((p) => 'charts/mean_reward' in p.values));
  const compare =
    withReward.length > 1
      ? `<h2>Compared</h2><div class="charts">${lineChart({
          title: 'Mean reward per step',
          series: withReward.map((s) => series(s, 'charts/mean_reward', s.name)),
          xLabel: 'step',
          width: 760 + 170 * Math.max(0, withReward.length - 4),
        })}</div>`
      : '';
  const toc = sets.map((s, i) => `<li><a href="#curves-${i}">${esc(s.name)}</a></li>`).join('');
  return `<h1>Training curves</h1>${warn}<ul>${toc}</ul>${compare}${sets.map(setSection).join('\n')}`;
}
