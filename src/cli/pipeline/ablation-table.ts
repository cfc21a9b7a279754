import { type AblationRow, ablationTable } from '../../eval/report.ts';
import { METRICS } from '../../rl/index.ts';
import type { RlRunResult } from './rl-stage.ts';

/** The ablation's rows, in the order of the paper's table. */
export const ROW_IDS = [
  'sft',
  'salvage-ds-mined',
  'salvage-ds-full',
  'salvage-ds-nosalvage',
  'dapo-mined',
  'grpo-exact',
  'sft-noreflect',
] as const;
export type RowId = (typeof ROW_IDS)[number];

export const ROW_TITLES: Record<RowId, string> = {
  sft: 'SFT',
  'salvage-ds-mined': '+ Salvage-DS on mined states',
  'salvage-ds-full': 'same RL on the full corpus',
  'salvage-ds-nosalvage': 'Salvage-DS without salvage',
  'dapo-mined': 'DAPO (mined states, polarized)',
  'grpo-exact': 'GRPO (mined states, exact match)',
  'sft-noreflect': 'SFT on data collected without reflection',
};

/** A table row plus the RL run behind it (for the diagnostics) and whether it was reused. */
export interface AblationRowResult extends AblationRow {
  id: RowId;
  /** Episodes behind pass@1 (tasks x runs). */
  episodes: number;
  rl?: RlRunResult;
  /** Greedy step accuracy on the teacher's verified steps of the held-out test tasks (see step-accuracy.ts). */
  heldOutStepAccuracy?: number | null;
  /** Greedy step accuracy on the success side of the mined critical states. */
  criticalStepAccuracy?: number | null;
}

/** One of issue 8's targets, checked on the measured rows. */
export interface TargetCheck {
  target: string;
  met: boolean | null;
  detail: string;
}

const pts = (x: number) => `${(100 * x).toFixed(1)} pts`;

/** Checks issue 8's targets on the rows; a target whose rows are missing is `null` (not measured). */
export function checkTargets(rows: AblationRowResult[]): TargetCheck[] {
  const by = new Map(rows.map((r) => [r.id, r]));
  const p = (id: RowId) => by.get(id)?.pass1.mean;
  const out: TargetCheck[] = [];
  const sft = p('sft');
  const sds = p('salvage-ds-mined');
  const full = p('salvage-ds-full');
  if (sft !== undefined && sds !== undefined) {
    out.push({
      target: 'Salvage-DS on mined states gains >= 5 points over SFT',
      met: sds - sft >= 0.05,
      detail: `gain ${pts(sds - sft)}`,
    });
  }
  const rm = by.get('salvage-ds-mined')?.rollouts;
  const rf = by.get('salvage-ds-full')?.rollouts;
  if (sds !== undefined && full !== undefined && rm !== undefined && rf) {
    out.push({
      target: 'matches or beats full-corpus RL while sampling <= 10% of its rollouts',
      met: sds >= full && rm <= 0.1 * rf,
      detail: `mined ${(100 * sds).toFixed(1)}% vs full ${(100 * full).toFixed(1)}%; rollouts ${rm} vs ${rf} (${((100 * rm) / rf).toFixed(1)}%)`,
    });
  }
  for (const id of ['salvage-ds-nosalvage', 'dapo-mined'] as const) {
    const x = p(id);
    if (sds !== undefined && x !== undefined) {
      out.push({
        target: `${ROW_TITLES[id]} costs points vs Salvage-DS`,
        met: x < sds,
        detail: `${(100 * x).toFixed(1)}% vs ${(100 * sds).toFixed(1)}% (${pts(x - sds)})`,
      });
    }
  }
  return out;
}

/** Per-RL-row diagnostics: what the gates, salvage and reward did (why an ordering holds or not). */
export function diagnosticsTable(rows: AblationRowResult[]): string {
  const rl = rows.filter((r) => r.rl);
  if (!rl.length) return '';
  const fullRollouts = rows.find((r) => r.id === 'salvage-ds-full')?.rollouts;
  const head =
    '| row | states | steps | rollouts | % of full-corpus rollouts | contrast gate | competence gate | salvage share | zero-variance groups | reward first -> last fifth | KL to start (mean) |';
  const sep = `|${'---|'.repeat(11)}`;
  const f2 = (x: number) => x.toFixed(2);
  const lines = rl.map((r) => {
    const x = r.rl as RlRunResult;
    const share = fullRollouts ? `${((100 * x.rolloutsSampled) / fullRollouts).toFixed(1)}%` : 'n/a';
    return `| ${r.row} | ${x.states} | ${x.steps} | ${x.rolloutsSampled} | ${share} | ${f2(x.means[METRICS.contrastGatePass])} | ${f2(x.means[METRICS.competenceGatePass])} | ${f2(x.means[METRICS.salvageShare])} | ${f2(x.means[METRICS.zeroVarianceShare])} | ${x.rewardStart.toFixed(3)} -> ${x.rewardEnd.toFixed(3)} | ${x.means[METRICS.klRef].toFixed(4)} |`;
  });
  return [head, sep, ...lines].join('\n');
}

const stepPct = (x: number | null | undefined) =>
  x === null || x === undefined ? 'n/a' : `${(100 * x).toFixed(1)}%`;

/** Step-level table: what each row did to single decisions, held out and on the mined states. */
export function stepTable(rows: AblationRowResult[]): string {
  if (!rows.some((r) => r.heldOutStepAccuracy !== undefined)) return '';
  const head = '| row | held-out test steps (teacher successes) | mined critical states |';
  return [
    head,
    '|---|---|---|',
    ...rows.map(
      (r) => `| ${r.row} | ${stepPct(r.heldOutStepAccuracy)} | ${stepPct(r.criticalStepAccuracy)} |`,
    ),
  ].join('\n');
}

/** ablation.md: the table, the RL diagnostics and the target checks. */
export function ablationMarkdown(o: {
  title: string;
  rows: AblationRowResult[];
  targets: TargetCheck[];
  lines: string[];
}): string {
  const out = [`# ${o.title}`, '', ablationTable(o.rows), ''];
  out.push(
    'pass@1 is averaged over runs on held-out world test tasks (± the spread over runs); steps are the mean actions of solved episodes;',
    '"train wall s" is the row’s own training: RL rows count only the RL run on top of the SFT checkpoint, SFT rows the SFT epochs.',
    '',
  );
  const notes = o.rows.filter((r) => r.note).map((r) => `- ${r.row}: ${r.note}`);
  if (notes.length) out.push('## Notes', '', ...notes, '');
  const steps = stepTable(o.rows);
  if (steps) {
    out.push(
      '## Greedy step accuracy',
      '',
      'pass@1 needs every step of a task right; step accuracy shows what each row changed in single decisions.',
      '',
      steps,
      '',
    );
  }
  const diag = diagnosticsTable(o.rows);
  if (diag) out.push('## RL diagnostics (means over steps)', '', diag, '');
  if (o.targets.length) {
    out.push('## Targets (issue 8)', '');
    for (const t of o.targets)
      out.push(`- ${t.met === null ? 'not measured' : t.met ? 'MET' : 'NOT MET'}: ${t.target} (${t.detail})`);
    out.push('');
  }
  if (o.lines.length) out.push('## Setup', '', ...o.lines, '');
  return out.join('\n');
}
