import type { Trajectory } from '../core/trajectory.ts';
import type { JudgeVerdictRecord } from '../judge/judge-under-test.ts';
import {
  type AgreementStats,
  agreementStats,
  bootstrapIndices,
  chooseThreshold,
  type Estimate,
  type JudgedPair,
  majorityVote,
  thresholded,
} from './judge-agreement.ts';
import type { EpisodeSample } from './judge-sample.ts';
import { confusionMatrices } from './svg.ts';

/** One sampled episode with its ground truth. */
export interface CalibrationEpisode {
  trajectoryId: string;
  taskId: string;
  site: string;
  truth: boolean;
  /** The verifier's first failed condition (or how the episode ended), `success` for successes. */
  label: string;
  verifierReason: string;
}

/** The ground truth of a stored, verified episode. */
export function calibrationEpisode(t: Trajectory): CalibrationEpisode {
  const v = t.verdict!;
  const label = v.success
    ? 'success'
    : (v.failedConditions[0] ??
      (t.endReason === 'done' ? 'failed (no condition named)' : `ended: ${t.endReason}`));
  return {
    trajectoryId: t.id,
    taskId: t.task.id,
    site: t.task.site,
    truth: v.success,
    label,
    verifierReason: v.reason,
  };
}

/** One row of the calibration table: a judge, a judge at a calibrated threshold, or the vote. */
export interface CalibrationRow {
  row: string;
  kind: 'judge' | 'threshold' | 'majority';
  stats: AgreementStats;
  /** Judge errors by kind (unparseable, timeout, endpoint, error; the vote's are `no majority`). */
  errorKinds: Record<string, number>;
  /** Means over the verdicts asked for (errors included); null for derived rows. */
  tokensPerVerdict: number | null;
  costPerVerdict: number | null;
  secondsPerVerdict: number | null;
  note?: string;
}

/** A breakdown row: one judge on the episodes of one site or one failure label. */
export interface BreakdownRow {
  judge: string;
  group: string;
  stats: AgreementStats;
}

/** An episode where a judge's verdict differs from the verifier's. */
export interface Disagreement {
  judge: string;
  trajectoryId: string;
  taskId: string;
  site: string;
  label: string;
  truth: boolean;
  judged: boolean;
  verifierReason: string;
  judgeReason: string;
}

/** Everything `rmsweb judge calibrate` reports. */
export interface CalibrationReport {
  createdAt: string;
  run: string;
  commit?: string;
  seed: number;
  resamples: number;
  sample: EpisodeSample;
  judges: string[];
  rows: CalibrationRow[];
  perSite: BreakdownRow[];
  perLabel: BreakdownRow[];
  disagreements: Disagreement[];
}

export interface BuildCalibrationOptions {
  run: string;
  commit?: string;
  seed: number;
  sample: EpisodeSample;
  episodes: CalibrationEpisode[];
  judges: string[];
  /** Verdict records by judge name, then trajectory id. */
  verdicts: Map<string, Map<string, JudgeVerdictRecord>>;
  resamples?: number;
  createdAt?: string;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

function judgedOf(r: JudgeVerdictRecord | undefined): boolean | null {
  return r?.outcome === 'success' ? true : r?.outcome === 'failure' ? false : null;
}

/**
 * The calibration from stored verdicts: one row per judge, a row per judge that gives graded
 * scores at a threshold chosen on a seeded half (reported on the other half), and a majority-vote
 * row when there are several judges; breakdowns per site and per failure label; the list of
 * disagreements. Every interval is a percentile bootstrap over episodes, and every row of a table
 * is scored on the same resamples, so the intervals are paired.
 */
export function buildCalibration(o: BuildCalibrationOptions): CalibrationReport {
  const resamples = o.resamples ?? 2000;
  const eps = o.episodes;
  const boot = bootstrapIndices(eps.length, { resamples, seed: `judge-calibration:${o.seed}` });
  const rows: CalibrationRow[] = [];
  const perSite: BreakdownRow[] = [];
  const perLabel: BreakdownRow[] = [];
  const disagreements: Disagreement[] = [];
  const judgedBy = new Map<string, Array<boolean | null>>();
  const groupStats = (judge: string, pairs: JudgedPair[], key: (e: CalibrationEpisode) => string) => {
    const groups = [...new Set(eps.map(key))].sort();
    return groups.map((group) => {
      const idx = eps.flatMap((e, i) => (key(e) === group ? [i] : []));
      const sub = idx.map((i) => pairs[i]);
      const b = bootstrapIndices(sub.length, { resamples, seed: `judge-calibration:${o.seed}:${group}` });
      return { judge, group, stats: agreementStats(sub, b) };
    });
  };
  for (const judge of o.judges) {
    const recs = o.verdicts.get(judge) ?? new Map<string, JudgeVerdictRecord>();
    const got = eps.map((e) => recs.get(e.trajectoryId));
    const judged = got.map(judgedOf);
    judgedBy.set(judge, judged);
    const pairs = eps.map((e, i) => ({ truth: e.truth, judged: judged[i] }));
    const errorKinds: Record<string, number> = {};
    for (const r of got) {
      if (!r) errorKinds['not judged'] = (errorKinds['not judged'] ?? 0) + 1;
      else if (r.outcome === 'error')
        errorKinds[r.errorKind ?? 'error'] = (errorKinds[r.errorKind ?? 'error'] ?? 0) + 1;
    }
    const asked = got.filter((r): r is JudgeVerdictRecord => !!r);
    rows.push({
      row: judge,
      kind: 'judge',
      stats: agreementStats(pairs, boot),
      errorKinds,
      tokensPerVerdict: mean(asked.map((r) => r.usage.promptTokens + r.usage.completionTokens)),
      costPerVerdict: mean(asked.map((r) => r.usage.costUsd)),
      secondsPerVerdict: mean(asked.map((r) => r.ms / 1000)),
    });
    perSite.push(...groupStats(judge, pairs, (e) => e.site));
    perLabel.push(...groupStats(judge, pairs, (e) => e.label));
    eps.forEach((e, i) => {
      const j = judged[i];
      if (j === null || j === e.truth) return;
      disagreements.push({
        judge,
        trajectoryId: e.trajectoryId,
        taskId: e.taskId,
        site: e.site,
        label: e.label,
        truth: e.truth,
        judged: j,
        verifierReason: e.verifierReason,
        judgeReason: got[i]?.reason ?? '',
      });
    });
    // A graded judge (its scores are not all 0 or 1) gets a calibrated threshold.
    const scores = got.map((r) => (r && r.outcome !== 'error' ? r.score : null));
    if (scores.some((s) => s !== null && s > 0 && s < 1)) {
      const scored = eps.map((e, i) => ({ truth: e.truth, score: scores[i] }));
      const choice = chooseThreshold(scored, `judge-threshold:${o.seed}:${judge}`);
      if (choice?.testIndices.length) {
        const test = thresholded(
          choice.testIndices.map((i) => scored[i]),
          choice.threshold,
        );
        const b = bootstrapIndices(test.length, { resamples, seed: `judge-threshold:${o.seed}` });
        rows.push({
          row: `${judge} (score >= ${Number(choice.threshold.toFixed(3))})`,
          kind: 'threshold',
          stats: agreementStats(test, b),
          errorKinds: {},
          tokensPerVerdict: null,
          costPerVerdict: null,
          secondsPerVerdict: null,
          note: `threshold chosen on ${choice.fitIndices.length} episodes (kappa ${fmt(choice.fitKappa)}), reported on the other ${choice.testIndices.length}`,
        });
      }
    }
  }
  if (o.judges.length > 1) {
    const votes = eps.map((_, i) => majorityVote(o.judges.map((j) => judgedBy.get(j)![i])));
    const pairs = eps.map((e, i) => ({ truth: e.truth, judged: votes[i] }));
    const ties = votes.filter((v) => v === null).length;
    rows.push({
      row: `majority vote (${o.judges.length} judges)`,
      kind: 'majority',
      stats: agreementStats(pairs, boot),
      errorKinds: ties ? { 'no majority': ties } : {},
      tokensPerVerdict: null,
      costPerVerdict: null,
      secondsPerVerdict: null,
      note: 'a tie, or no usable verdict, is a judge error of the vote',
    });
  }
  return {
    createdAt: o.createdAt ?? new Date().toISOString(),
    run: o.run,
    ...(o.commit ? { commit: o.commit } : {}),
    seed: o.seed,
    resamples,
    sample: o.sample,
    judges: o.judges,
    rows,
    perSite,
    perLabel,
    disagreements,
  };
}

// ---------------------------------------------------------------- rendering

function fmt(x: number, d = 2): string {
  return Number.isFinite(x) ? x.toFixed(d) : 'n/a';
}

/** `0.82 [0.70, 0.91]`; `n/a` where the statistic is undefined on this sample. */
export function formatEstimate(e: Estimate, pct = false): string {
  const f = (x: number) => (Number.isFinite(x) ? (pct ? `${(100 * x).toFixed(1)}%` : x.toFixed(2)) : 'n/a');
  if (!Number.isFinite(e.value)) return 'n/a';
  return `${f(e.value)} [${f(e.lo)}, ${f(e.hi)}]`;
}

/** The main table: one line per row. */
export function calibrationTable(rows: CalibrationRow[]): string {
  const head =
    '| judge | scored / asked | agreement | precision (success) | recall (success) | Cohen kappa | judge errors | tokens / verdict | $ / verdict | s / verdict |';
  const sep = `|${'---|'.repeat(10)}`;
  const lines = rows.map((r) => {
    const s = r.stats;
    const scored = s.n - s.confusion.errors;
    const kinds = Object.entries(r.errorKinds)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    const opt = (x: number | null, d: number) => (x === null ? '-' : x.toFixed(d));
    return `| ${r.row} | ${scored} / ${s.n} | ${formatEstimate(s.agreement, true)} | ${formatEstimate(s.precision)} | ${formatEstimate(s.recall)} | ${formatEstimate(s.kappa)} | ${formatEstimate(s.errorRate, true)}${kinds ? ` (${kinds})` : ''} | ${opt(r.tokensPerVerdict, 0)} | ${opt(r.costPerVerdict, 5)} | ${opt(r.secondsPerVerdict, 2)} |`;
  });
  return [head, sep, ...lines].join('\n');
}

function breakdownTable(what: string, rows: BreakdownRow[]): string {
  const head = `| judge | ${what} | episodes | agreement | Cohen kappa | judge errors |`;
  return [
    head,
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.judge} | ${r.group} | ${r.stats.n} | ${formatEstimate(r.stats.agreement, true)} | ${formatEstimate(r.stats.kappa)} | ${r.stats.confusion.errors} |`,
    ),
  ].join('\n');
}

const oneLine = (s: string, max = 160) => {
  const t = s.replace(/\s+/g, ' ').replace(/\|/g, '/').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/**
 * The calibration as Markdown. `viewerBase` (e.g. `http://127.0.0.1:8080`) makes each
 * disagreement a link to the viewer's side-by-side page; without it the path is given.
 */
export function renderCalibrationMarkdown(r: CalibrationReport, o: { viewerBase?: string } = {}): string {
  const base = o.viewerBase?.replace(/\/$/, '') ?? '';
  const s = r.sample;
  const out = [
    '# Judge calibration against the programmatic verifier',
    '',
    `Run \`${r.run}\`${r.commit ? ` at commit ${r.commit}` : ''}; seed ${r.seed}; ${s.ids.length} episodes (${s.successes} verified successes, ${s.failures} failures; the store held ${s.available.successes} and ${s.available.failures})${s.note ? `; ${s.note}` : ''}. Generated ${r.createdAt}.`,
    '',
    `Intervals: 95% percentile bootstrap over episodes (${r.resamples} resamples), the same resamples for every row, so rows compare paired. Agreement, precision, recall and kappa are on the scored verdicts; a judge error (unparseable, timed out, endpoint down) is never counted as a failure verdict.`,
    '',
    calibrationTable(r.rows),
    '',
    ...r.rows.filter((x) => x.note).map((x) => `- ${x.row}: ${x.note}`),
    '',
    '## Per site',
    '',
    breakdownTable('site', r.perSite),
    '',
    "## Per failure label (the verifier's first failed condition)",
    '',
    'On a failure label, agreement is the share the judge rightly called a failure.',
    '',
    breakdownTable('label', r.perLabel),
    '',
    `## Disagreements (${r.disagreements.length})`,
    '',
  ];
  if (!r.disagreements.length) out.push('None.');
  else {
    out.push(
      `Open one in the viewer (\`rmsweb view --run ${r.run}\`) at \`/judge/<trajectory id>\`: the episode, the verifier's reasons and every judge's verdict side by side.`,
      '',
      '| judge | episode | site | verifier | judge | verifier reason | judge reason |',
      '|---|---|---|---|---|---|---|',
    );
    for (const d of r.disagreements) {
      const path = `/judge/${encodeURIComponent(d.trajectoryId)}`;
      out.push(
        `| ${d.judge} | [${d.trajectoryId}](${base}${path}) | ${d.site} | ${d.truth ? 'success' : 'failure'} | ${d.judged ? 'success' : 'failure'} | ${oneLine(d.verifierReason)} | ${oneLine(d.judgeReason)} |`,
      );
    }
  }
  out.push('');
  return out.join('\n');
}

/** The confusion plot: one matrix per row of the table. */
export function renderCalibrationSvg(r: CalibrationReport): string {
  return confusionMatrices({
    title: 'Judges against the programmatic verifier',
    panels: r.rows.map((row) => ({ title: row.row, ...row.stats.confusion })),
  });
}
