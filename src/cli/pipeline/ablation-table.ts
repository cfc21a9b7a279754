import type { PairedDiff } from '../../eval/bootstrap.ts';
import type { AblationRow } from '../../eval/report.ts';
import { METRICS } from '../../rl/index.ts';
import {
  type MiningBySource,
  type PairedSteps,
  pairedTaskDiff,
  type SeedRun,
  type TaskOutcome,
  type TeacherReflection,
} from './ablation-stats.ts';
import type { RlRunResult } from './rl-stage.ts';

/** The ablation's rows, in the order of the paper's table. */
export const ROW_IDS = [
  'sft',
  'salvage-ds-mined',
  'salvage-ds-confirmed',
  'salvage-ds-full',
  'salvage-ds-nosalvage',
  'dapo-mined',
  'grpo-exact',
  'sft-plain',
  'salvage-ds-plain',
  'sft-noreflect',
] as const;
export type RowId = (typeof ROW_IDS)[number];

export const ROW_TITLES: Record<RowId, string> = {
  sft: 'SFT',
  'salvage-ds-mined': '+ Salvage-DS on mined states',
  'salvage-ds-confirmed': 'Salvage-DS on confirmed states',
  'salvage-ds-full': 'same RL on the full corpus',
  'salvage-ds-nosalvage': 'Salvage-DS without salvage',
  'dapo-mined': 'DAPO (mined states, polarized)',
  'grpo-exact': 'GRPO (mined states, exact match)',
  'sft-plain': 'SFT on teacher data (no relabelling)',
  'salvage-ds-plain': '+ Salvage-DS from SFT on teacher data (no relabelling)',
  'sft-noreflect': 'SFT on data collected without reflection',
};

/**
 * The row the no-reflection student is compared with: the student trained by the same recipe on
 * the data collected with reflection (plain SFT when the base student had DAgger rounds).
 */
export function reflectionReference(rows: AblationRowResult[]): AblationRowResult | undefined {
  return rows.find((r) => r.id === 'sft-plain') ?? rows.find((r) => r.id === 'sft');
}

/** A table row: its seeds aggregated, the paired difference to Salvage-DS, and the RL runs behind it. */
export interface AblationRowResult extends AblationRow {
  id: RowId;
  /** Episodes behind pass@1 (tasks x runs x seeds). */
  episodes: number;
  /** Each training seed's evaluation and cost; `pass1` is the mean ± sd of their pass@1. */
  seeds: SeedRun[];
  /** Per test task outcome averaged over runs, then seeds (what the paired CI resamples). */
  perTask: Record<string, TaskOutcome>;
  /** Mean wall seconds of the row's RL run per seed (0 without RL). */
  rlSeconds: number;
  /** pass@1 of this row minus the Salvage-DS row, paired by test task, with its bootstrap 95% CI. */
  delta?: PairedDiff | null;
  /** The no-reflection row only: its pass@1 minus the reflection reference's, paired by test task. */
  reflectionDelta?: PairedDiff | null;
  /** An RL row that starts from another student than the SFT row: its pass@1 minus that student's row, paired by test task. */
  startDelta?: PairedDiff | null;
  /** The RL run of every seed (diagnostics); `rl` is the first. */
  rlRuns?: RlRunResult[];
  rl?: RlRunResult;
  /** Greedy step accuracy on the teacher's verified steps of the held-out test tasks (see step-accuracy.ts), mean over seeds. */
  heldOutStepAccuracy?: number | null;
  /** Greedy step accuracy on the success side of the mined critical states, mean over seeds. */
  criticalStepAccuracy?: number | null;
}

/** One of the ablation's targets (issue 16), checked on the measured rows. */
export interface TargetCheck {
  target: string;
  /** null: a row it needs was not measured. */
  met: boolean | null;
  detail: string;
}

/** The row every other row is compared with. */
export const REFERENCE_ROW: RowId = 'salvage-ds-mined';

/** RL rows that start from another student than the SFT row, and that student's row. */
export const START_ROWS: Partial<Record<RowId, RowId>> = { 'salvage-ds-plain': 'sft-plain' };

/** The row of the student `r` starts from, when that is not the SFT row. */
const startRow = (rows: AblationRowResult[], r: AblationRowResult) =>
  START_ROWS[r.id] ? rows.find((x) => x.id === START_ROWS[r.id]) : undefined;

const pts = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} pts`;
const pc = (x: number) => `${(100 * x).toFixed(1)}%`;
const ci = (d: PairedDiff) => `[${pts(d.lo)}, ${pts(d.hi)}]`;

/** Sets each row's paired difference to the reference row (Salvage-DS on mined states). */
export function addPairedDeltas(rows: AblationRowResult[], o: { seed: number; resamples?: number }): void {
  const ref = rows.find((r) => r.id === REFERENCE_ROW);
  for (const r of rows) {
    if (!ref || r === ref) continue;
    r.delta = pairedTaskDiff(r.perTask, ref.perTask, {
      seed: `ablate:${o.seed}:${r.id}`,
      resamples: o.resamples,
    });
  }
  for (const r of rows) {
    const start = startRow(rows, r);
    if (start)
      r.startDelta = pairedTaskDiff(r.perTask, start.perTask, {
        seed: `ablate:${o.seed}:start:${r.id}`,
        resamples: o.resamples,
      });
  }
  const nr = rows.find((r) => r.id === 'sft-noreflect');
  const withRefl = reflectionReference(rows);
  if (nr && withRefl)
    nr.reflectionDelta = pairedTaskDiff(nr.perTask, withRefl.perTask, {
      seed: `ablate:${o.seed}:reflection`,
      resamples: o.resamples,
    });
}

/**
 * Checks issue 16's targets on the rows. Every target is listed; one whose rows are missing is
 * `met: null` (not measured), never claimed.
 */
export function checkTargets(rows: AblationRowResult[]): TargetCheck[] {
  const by = new Map(rows.map((r) => [r.id, r]));
  const p = (id: RowId) => by.get(id)?.pass1.mean;
  const out: TargetCheck[] = [];
  const sft = p('sft');
  const sds = p(REFERENCE_ROW);
  const missing = (...ids: RowId[]) =>
    `not measured: no ${ids
      .filter((id) => !by.has(id))
      .map((id) => ROW_TITLES[id])
      .join(', ')} row`;
  {
    const target = 'Salvage-DS >= SFT + 3 points, with the paired 95% CI of the difference excluding 0';
    const d = by.get('sft')?.delta;
    if (sft === undefined || sds === undefined)
      out.push({ target, met: null, detail: missing('sft', REFERENCE_ROW) });
    else {
      // The SFT row's delta is SFT - Salvage-DS; the target's difference is its negation.
      const lo = d ? -d.hi : Number.NaN;
      const hi = d ? -d.lo : Number.NaN;
      out.push({
        target,
        met: sds - sft >= 0.03 && lo > 0,
        detail: `gain ${pts(sds - sft)}, 95% CI ${d ? `[${pts(lo)}, ${pts(hi)}] over ${d.n} test tasks` : 'n/a'}`,
      });
    }
  }
  for (const id of ['salvage-ds-full', 'salvage-ds-nosalvage', 'dapo-mined', 'grpo-exact'] as const) {
    const target = `${ROW_TITLES[id]} falls below Salvage-DS`;
    const x = p(id);
    if (x === undefined || sds === undefined) {
      out.push({ target, met: null, detail: missing(id, REFERENCE_ROW) });
      continue;
    }
    const d = by.get(id)?.delta;
    out.push({
      target,
      met: x < sds,
      detail: `${pc(x)} vs ${pc(sds)} (${pts(x - sds)}${d ? `, 95% CI ${ci(d)}` : ''})`,
    });
  }
  {
    const target = "Salvage-DS samples at most 10% of full-corpus RL's rollouts";
    const rm = by.get(REFERENCE_ROW)?.rollouts;
    const rf = by.get('salvage-ds-full')?.rollouts;
    if (rm === undefined || !rf)
      out.push({ target, met: null, detail: missing(REFERENCE_ROW, 'salvage-ds-full') });
    else
      out.push({
        target,
        met: rm <= 0.1 * rf,
        detail: `${rm.toFixed(0)} vs ${rf.toFixed(0)} rollouts per seed (${((100 * rm) / rf).toFixed(1)}%)`,
      });
  }
  {
    const ref = reflectionReference(rows);
    const target = `the student without reflection falls below ${ref?.id === 'sft-plain' ? 'the same recipe with it (SFT on teacher data)' : 'SFT'}`;
    const x = p('sft-noreflect');
    if (x === undefined || !ref) out.push({ target, met: null, detail: missing('sft-noreflect', 'sft') });
    else {
      const d = by.get('sft-noreflect')?.reflectionDelta;
      out.push({
        target,
        met: x < ref.pass1.mean,
        detail: `${pc(x)} vs ${pc(ref.pass1.mean)} (${pts(x - ref.pass1.mean)}${d ? `, paired 95% CI ${ci(d)}` : ''})`,
      });
    }
  }
  return out;
}

/** `MET`, `NOT MET` or `not measured`. */
export function targetVerdict(t: TargetCheck): string {
  return t.met === null ? 'not measured' : t.met ? 'MET' : 'NOT MET';
}

/** The ablation table: pass@1 over seeds, the paired difference to Salvage-DS, steps and RL cost. */
export function seedsTable(rows: AblationRowResult[]): string {
  const head =
    '| row | seeds | pass@1 (mean ± sd over seeds) | vs Salvage-DS, paired 95% CI | steps on solved | RL rollouts sampled | RL wall s | train wall s |';
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
  return [
    head,
    `|${'---|'.repeat(8)}`,
    ...rows.map((r) => {
      const d =
        r.id === REFERENCE_ROW ? 'reference' : r.delta ? `${pts(r.delta.diff)} ${ci(r.delta)}` : 'n/a';
      const sd = r.seeds.length > 1 ? (100 * r.pass1.std).toFixed(1) : 'n/a';
      return `| ${r.row} | ${r.seeds.map((s) => s.seed).join(', ')} | ${pc(r.pass1.mean)} ± ${sd} | ${d} | ${f(r.meanStepsSolved)} | ${r.rollouts.toFixed(0)} | ${r.rlSeconds.toFixed(1)} | ${r.trainSeconds.toFixed(1)} |`;
    }),
  ].join('\n');
}

/** Per-RL-run diagnostics: what the gates, salvage and reward did (why an ordering holds or not). */
export function diagnosticsTable(rows: AblationRowResult[]): string {
  const rl = rows.flatMap((r) => (r.rlRuns ?? (r.rl ? [r.rl] : [])).map((x) => ({ r, x })));
  if (!rl.length) return '';
  const fullRollouts = rows.find((r) => r.id === 'salvage-ds-full')?.rollouts;
  const head =
    '| row | seed | states | steps | rollouts | % of full-corpus rollouts | contrast gate | competence gate | salvage share | zero-variance groups | reward first -> last fifth | KL to start (mean) |';
  const sep = `|${'---|'.repeat(12)}`;
  const f2 = (x: number) => x.toFixed(2);
  const lines = rl.map(({ r, x }) => {
    const share = fullRollouts ? `${((100 * x.rolloutsSampled) / fullRollouts).toFixed(1)}%` : 'n/a';
    return `| ${r.row} | ${x.options?.seed ?? 'n/a'} | ${x.states} | ${x.steps} | ${x.rolloutsSampled} | ${share} | ${f2(x.means[METRICS.contrastGatePass])} | ${f2(x.means[METRICS.competenceGatePass])} | ${f2(x.means[METRICS.salvageShare])} | ${f2(x.means[METRICS.zeroVarianceShare])} | ${x.rewardStart.toFixed(3)} -> ${x.rewardEnd.toFixed(3)} | ${x.means[METRICS.klRef].toFixed(4)} |`;
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

/** Lines on the mined states: yield, and counts per label and per source. */
export function miningLines(m: MiningBySource): string[] {
  const labels = (x: Record<string, number>) =>
    Object.entries(x)
      // Ties by name: the mined file's order (and so the counts' insertion order) varies between equal bases.
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([l, n]) => `${l} ${n}`)
      .join(', ') || 'none';
  const src = (name: string, s: MiningBySource['perSource']['teacher']) =>
    `- ${name}: ${s.criticalStates} states from ${s.failedTrajectories} failing trajectories (yield ${(100 * s.yield).toFixed(2)}%); per label: ${labels(s.perLabel)}`;
  return [
    `- ${m.criticalStates} critical states over ${m.successSteps} verified-success steps: yield ${(100 * m.yield).toFixed(2)}% (the paper keeps about 3%)`,
    `- per label: ${labels(m.perLabel)}`,
    src("paired with the teacher's own failures", m.perSource.teacher),
    src("paired with the student's failed rollouts (its rollouts and DAgger rounds)", m.perSource.student),
  ];
}

/** Lines on reflection, paired: the teacher with and without notes, the students with and without reflection data. */
export function reflectionLines(t: TeacherReflection | null, students: PairedSteps | null): string[] {
  const out: string[] = [];
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
  const rel = (x: number | null) => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`);
  if (t) {
    out.push(
      `- teacher on the same ${t.tasks} train tasks: solved ${t.solvedWith} with reflection (notes after a failure) vs ${t.solvedWithout} in one round without notes (${t.onlyWith} only with, ${t.onlyWithout} only without, ${t.both} both)`,
      `- tasks the teacher retried with a note after failing: ${t.retried.tasks}; the attempt with the note succeeded on ${t.retried.successWithNote}, the attempt without notes on ${t.retried.successWithout}`,
    );
    if (t.pairedActions)
      out.push(
        `- teacher actions on tasks it solved both without and with notes (${t.pairedActions.tasks} tasks): ${f(t.pairedActions.withoutNotes)} without, ${f(t.pairedActions.withNotes)} with (${rel(t.pairedActions.relativeChange)})`,
      );
  }
  if (students)
    out.push(
      `- students on the ${students.tasks} test tasks both solve: with reflection data ${f(students.a)} actions, without ${f(students.b)} (the paper: reflection cuts actions on solved tasks by 12.9-19.7%; here the student without it takes ${rel(students.relativeChange)})`,
    );
  return out;
}

/**
 * Lines on the RL rows that start from another student than the SFT row: whether the gain over
 * the starting student holds when that student had no relabelling rounds (not a target: a check
 * of what the first target's gain is made of).
 */
export function startLines(rows: AblationRowResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    const start = startRow(rows, r);
    if (!start || !r.startDelta) continue;
    out.push(
      `- ${r.row}: ${pc(r.pass1.mean)} vs its starting student ${start.row} ${pc(start.pass1.mean)} (${pts(r.pass1.mean - start.pass1.mean)}, paired 95% CI ${ci(r.startDelta)}, per seed from that seed's student)`,
    );
  }
  const sft = rows.find((r) => r.id === 'sft');
  const sds = rows.find((r) => r.id === REFERENCE_ROW);
  if (out.length && sft && sds)
    out.push(
      `- for comparison, ${sds.row} from the SFT row (${sft.row}): ${pc(sds.pass1.mean)} vs ${pc(sft.pass1.mean)} (${pts(sds.pass1.mean - sft.pass1.mean)})`,
    );
  return out;
}

/** ablation.md: the table, the targets, the mining, reflection, step accuracy, RL diagnostics and provenance. */
export function ablationMarkdown(o: {
  title: string;
  rows: AblationRowResult[];
  targets: TargetCheck[];
  lines: string[];
  mining?: MiningBySource | null;
  reflection?: string[];
  provenance?: string[];
}): string {
  const seeds = Math.max(0, ...o.rows.map((r) => r.seeds.length));
  const out = [`# ${o.title}`, '', seedsTable(o.rows), ''];
  out.push(
    `pass@1 is each seed's mean over the evaluation runs on held-out world test tasks, then mean ± sd over training seeds (up to ${seeds}); the SFT row is the one base student every RL row starts from.`,
    'The reflection rows compare students trained by the same recipe on data collected with and without reflection, each over the training seeds (plain SFT when the base student also had relabelling rounds, which relabel with the teacher and would blur the difference).',
    '"vs Salvage-DS" is the row minus Salvage-DS on mined states with a paired bootstrap 95% CI, paired by test task (per task: success averaged over runs, then seeds; 10,000 seeded resamples).',
    'Steps are the mean actions of solved episodes; RL columns are per seed (rollouts sampled, wall time of the RL run); "train wall s" is the row’s own training per seed (RL run, or SFT epochs).',
    '',
  );
  if (o.targets.length) {
    out.push('## Targets', '');
    for (const t of o.targets) out.push(`- ${targetVerdict(t)}: ${t.target} (${t.detail})`);
    out.push('');
  }
  const starts = startLines(o.rows);
  if (starts.length) out.push('## The gain from another starting student', '', ...starts, '');
  const notes = o.rows.filter((r) => r.note).map((r) => `- ${r.row}: ${r.note}`);
  if (notes.length) out.push('## Notes', '', ...notes, '');
  if (o.mining) out.push('## Critical states', '', ...miningLines(o.mining), '');
  if (o.reflection?.length) out.push('## Reflection, paired', '', ...o.reflection, '');
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
  if (o.lines.length) out.push('## Setup', '', ...o.lines, '');
  if (o.provenance?.length) out.push('## Provenance', '', ...o.provenance, '');
  return out.join('\n');
}
