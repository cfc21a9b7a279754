import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gaveUpOnReply } from '../../agent/lm-agent.ts';
import type { PairedDiff } from '../../eval/bootstrap.ts';
import { evalTag } from '../../eval/run-eval.ts';
import { writeFileAtomic } from '../../store/index.ts';
import type { RunStore } from '../../store/run-store.ts';
import { aggregateSeeds, pairedTaskDiff, type SeedAggregate, taskOutcomes } from './ablation-stats.ts';
import type { EvalStageResult } from './eval-stage.ts';
import { nameFoldersByRole, repoRoot } from './provenance.ts';
import { STAGE_RECORD } from './stage.ts';

/**
 * The LM student's results table (`lm-student.{md,json}` in the run folder, and in `--results`):
 * one row per kind of student (base, SFT, Salvage-DS, and the ablation's RL rows), pass@1 over
 * its training seeds, the paired bootstrap CI of each row against Salvage-DS (as `ablate` prints
 * them), and where every number came from: the command and commit of each invocation, and each
 * stage's wall time and the invocation that finished it.
 */

/** The rows, in table order, and the evaluation label of each (a seed k > 0 adds `-seed<k>`). */
export const LM_ROWS = [
  { id: 'base', label: 'lm-base', title: 'base LM (no fine-tuning)' },
  { id: 'sft', label: 'lm-sft', title: 'SFT' },
  { id: 'dagger', label: 'lm-dagger', title: 'SFT + relabelling (DAgger)' },
  { id: 'salvage-ds', label: 'lm-salvage-ds', title: 'SFT + Salvage-DS (mined states)' },
  { id: 'nosalvage', label: 'lm-nosalvage', title: 'SFT + Salvage-DS without salvage (mined states)' },
  { id: 'grpo-exact', label: 'lm-grpo-exact', title: 'SFT + GRPO, exact-match reward (mined states)' },
] as const;
export type LmRowId = (typeof LM_ROWS)[number]['id'];
/** The row every other is compared with, as in `ablate`. */
export const LM_REFERENCE: LmRowId = 'salvage-ds';

/** One evaluated student of a row: its training seed offset k, pass@1 and per-task outcomes. */
export interface LmSeedEval {
  k: number;
  label: string;
  pass1: number;
  perTask: ReturnType<typeof taskOutcomes>;
}

export interface LmRow {
  id: LmRowId;
  title: string;
  /** Training seed offsets (seed = the pipeline's seed + k); the base row has none of its own. */
  seeds: LmSeedEval[];
  aggregate: SeedAggregate;
  /** pass@1 of this row minus Salvage-DS, paired by test task over the training seeds both ran. */
  delta: PairedDiff | null;
  /** The training seed offsets the delta paired (empty: the base row, against every Salvage-DS seed). */
  deltaSeeds: number[];
}

/** Row and training seed offset of an evaluation label, or null for a label of no row. */
export function lmRowOf(label: string): { id: LmRowId; k: number } | null {
  const m = /^(.*?)(?:-seed(\d+))?$/.exec(label);
  const row = LM_ROWS.find((r) => r.label === m?.[1]);
  return row ? { id: row.id, k: m?.[2] ? Number(m[2]) : 0 } : null;
}

/**
 * The episodes of the rounds `e`'s summary counts, so that the table's per-task outcomes and the
 * endings read the episodes its pass@1 was computed on.
 */
function ofEvaluation<T extends { round: number }>(episodes: T[], e: EvalStageResult): T[] {
  return episodes.filter((t) => t.round < e.summary.runs);
}

/** The table's rows from the pipeline's evaluations (per-task outcomes read from `store`'s episodes). */
export function lmRows(
  store: RunStore,
  evals: readonly EvalStageResult[],
  o: { seed: number; resamples?: number },
): LmRow[] {
  const byRow = new Map<LmRowId, LmSeedEval[]>();
  for (const e of evals) {
    const at = lmRowOf(e.label);
    if (!at) continue;
    const episodes = ofEvaluation(store.listTrajectorySummaries({ tag: evalTag(e.label) }), e);
    const list = byRow.get(at.id) ?? [];
    list.push({
      k: at.k,
      label: e.label,
      pass1: e.summary.pass1.mean,
      perTask: taskOutcomes(episodes, e.setup.taskIds),
    });
    byRow.set(at.id, list);
  }
  const aggregate = (xs: LmSeedEval[]) =>
    aggregateSeeds(
      xs.map((x) => ({
        seed: x.k,
        label: x.label,
        pass1: { mean: x.pass1, std: 0, min: x.pass1, max: x.pass1, perRun: [x.pass1], tasks: 0 },
        meanStepsSolved: null,
        perTask: x.perTask,
        rollouts: 0,
        rlSeconds: 0,
        trainSeconds: 0,
      })),
    );
  const ref = byRow.get(LM_REFERENCE) ?? [];
  const rows: LmRow[] = [];
  for (const def of LM_ROWS) {
    const seeds = (byRow.get(def.id) ?? []).sort((a, b) => a.k - b.k);
    if (!seeds.length) continue;
    let delta: PairedDiff | null = null;
    let deltaSeeds: number[] = [];
    if (def.id !== LM_REFERENCE && ref.length) {
      // Students of the same training seed start from the same SFT student: pair them seed by seed.
      const shared = def.id === 'base' ? ref : ref.filter((r) => seeds.some((s) => s.k === r.k));
      const mine = def.id === 'base' ? seeds : seeds.filter((s) => shared.some((r) => r.k === s.k));
      if (shared.length && mine.length) {
        delta = pairedTaskDiff(aggregate(mine).perTask, aggregate(shared).perTask, {
          seed: `lm-student:${o.seed}:${def.id}`,
          resamples: o.resamples,
        });
        deltaSeeds = def.id === 'base' ? [] : mine.map((s) => s.k);
      }
    }
    rows.push({ id: def.id, title: def.title, seeds, aggregate: aggregate(seeds), delta, deltaSeeds });
  }
  return rows;
}

/**
 * How one evaluation's episodes ended: the diagnosis behind a pass@1 (a student that never
 * answers `done`, or that loops on one element, scores 0 either way). `meanScore` is the
 * verifier's partial credit (the share of its conditions met); some conditions hold for an agent
 * that does nothing, so it means something only against the base model's.
 */
export interface LmEndings {
  label: string;
  episodes: number;
  /** Declared the task done, successfully or not (the verifier then judged it). */
  declaredDone: number;
  /** Wrote no usable action, so the agent gave up at that step. */
  unusable: number;
  /** Ended by the loop guard (the same action on an unchanged page). */
  loop: number;
  /** Ran out of steps. */
  maxSteps: number;
  /** Ended otherwise (error, timeout, aborted). */
  other: number;
  meanSteps: number;
  meanScore: number;
}

/** The endings of each evaluation in `evals` that belongs to a row, read from `store`'s episodes. */
export function lmEndings(store: RunStore, evals: readonly EvalStageResult[]): LmEndings[] {
  const out: LmEndings[] = [];
  for (const e of evals) {
    if (!lmRowOf(e.label)) continue;
    const episodes = ofEvaluation(store.listTrajectories({ tag: evalTag(e.label) }), e);
    if (!episodes.length) continue;
    const n = (f: (t: (typeof episodes)[number]) => boolean) => episodes.filter(f).length;
    const unusable = (t: (typeof episodes)[number]) => {
      const last = t.steps.at(-1);
      return t.endReason === 'done' && last !== undefined && gaveUpOnReply(last.output);
    };
    const mean = (f: (t: (typeof episodes)[number]) => number) =>
      episodes.reduce((a, t) => a + f(t), 0) / episodes.length;
    out.push({
      label: e.label,
      episodes: episodes.length,
      declaredDone: n((t) => t.endReason === 'done' && !unusable(t)),
      unusable: n(unusable),
      loop: n((t) => t.endReason === 'loop'),
      maxSteps: n((t) => t.endReason === 'max_steps'),
      other: n((t) => !['done', 'loop', 'max_steps'].includes(t.endReason)),
      meanSteps: mean((t) => t.steps.length),
      meanScore: mean((t) => t.verdict?.score ?? 0),
    });
  }
  return out;
}

/** The markdown table of `lmEndings`. */
export function lmEndingsTable(endings: readonly LmEndings[]): string {
  const out = [
    '| evaluation | episodes | declared done | unusable reply | loop guard | out of steps | other | mean steps | mean verifier score |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const e of endings)
    out.push(
      `| ${e.label} | ${e.episodes} | ${e.declaredDone} | ${e.unusable} | ${e.loop} | ${e.maxSteps} | ${e.other} | ${e.meanSteps.toFixed(1)} | ${e.meanScore.toFixed(2)} |`,
    );
  return out.join('\n');
}

/** One invocation of the demo on a run folder: what ran, from which commit. */
export interface LmInvocation {
  startedAt: string;
  command: string;
  commit: string | null;
  dirty: boolean;
}

const INVOCATIONS = 'lm-invocations';

/** Appends this invocation to the folder's list (before any stage runs) and returns the list. */
export function recordInvocation(store: RunStore, inv: LmInvocation): LmInvocation[] {
  const list = [...(store.getRecord<LmInvocation[]>('pipeline', INVOCATIONS) ?? []), inv];
  store.putRecord('pipeline', INVOCATIONS, list);
  return list;
}

/** A finished stage: wall time, when it finished, and the invocation (commit) that ran it. */
export interface LmStageTime {
  stage: string;
  seconds: number;
  finishedAt: string | null;
  commit: string | null;
  /** False when the stage finished before this folder recorded its invocations. */
  attributed: boolean;
}

/** Each stage of `timings` with the invocation that finished it (the last one started before). */
export function stageTimes(
  store: RunStore,
  timings: Record<string, number>,
  invocations: readonly LmInvocation[],
): LmStageTime[] {
  return Object.entries(timings).map(([stage, seconds]) => {
    const rec = store.getRecord<{ finishedAt?: string }>(STAGE_RECORD, stage);
    const finishedAt = rec?.finishedAt ?? null;
    const by = finishedAt ? invocations.filter((i) => i.startedAt <= finishedAt).at(-1) : invocations.at(-1);
    return {
      stage,
      seconds,
      finishedAt,
      commit: by ? by.commit : null,
      attributed: Boolean(by),
    };
  });
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pts = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} pts`;

/** The markdown table of the rows (pass@1 over seeds, each seed's value, paired CI vs Salvage-DS). */
export function lmRowsTable(rows: readonly LmRow[], seed: number): string {
  const out = [
    '| student | training seeds | pass@1 (mean ± sd over seeds) | per seed | Δ vs Salvage-DS [95% CI], paired by task |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const a = r.aggregate.pass1;
    const seeds = r.id === 'base' ? '-' : r.seeds.map((s) => seed + s.k).join(', ');
    const sd = r.seeds.length > 1 ? ` ± ${(100 * a.std).toFixed(1)}` : '';
    const delta =
      r.id === LM_REFERENCE
        ? 'reference'
        : r.delta
          ? `${pts(r.delta.diff)} [${pts(r.delta.lo)}, ${pts(r.delta.hi)}]${r.deltaSeeds.length && r.deltaSeeds.length < r.seeds.length ? ` (seeds ${r.deltaSeeds.map((k) => seed + k).join(', ')})` : ''}`
          : 'n/a';
    out.push(
      `| ${r.title} | ${seeds} | ${pct(a.mean)}${sd} | ${r.seeds.map((s) => pct(s.pass1)).join(', ')} | ${delta} |`,
    );
  }
  return out.join('\n');
}

/** What the results files hold besides the rows. */
export interface LmStudentReport {
  title: string;
  lead: string;
  /** Lines of setup and training (the report's LM student section). */
  lines: string[];
  rows: LmRow[];
  /** How each evaluation's episodes ended (empty: none recorded). */
  endings: LmEndings[];
  stages: LmStageTime[];
  invocations: LmInvocation[];
  seed: number;
  worldSeed: number;
  preset: unknown;
  tasks: number;
  /** The base model's path (named by role, or relative to the repo, in the results copy). */
  model: string;
}

/** Writes `lm-student.{md,json}` in `root`, and in `resultsDir` with machine paths named by role. */
export function writeLmStudent(
  root: string,
  r: LmStudentReport,
  resultsDir?: string,
): { markdown: string; json: string; results?: { markdown: string; json: string } } {
  const total = r.stages.reduce((a, s) => a + s.seconds, 0);
  const commits = [...new Set(r.stages.map((s) => (s.attributed ? (s.commit ?? 'unknown') : 'unrecorded')))];
  const stageLines = r.stages.map(
    (s) =>
      `| ${s.stage} | ${s.seconds.toFixed(0)} | ${(s.seconds / 60).toFixed(1)} | ${s.attributed ? (s.commit?.slice(0, 7) ?? 'unknown') : 'unrecorded'} | ${s.finishedAt ?? '-'} |`,
  );
  const trainSeeds = [...new Set(r.rows.flatMap((x) => x.seeds.map((s) => r.seed + s.k)))].sort(
    (a, b) => a - b,
  );
  const md = [
    `# ${r.title}`,
    '',
    r.lead,
    '',
    `pass@1 on ${r.tasks} held-out world test tasks, one perturbed run per evaluation (each evaluation under its own perturbation seed, the same seeds for every row, so rows pair by task). The CI is a paired bootstrap over test tasks (10,000 resamples), of the row minus Salvage-DS; a row's per-task success is averaged over the training seeds it shares with Salvage-DS (the base row: over every Salvage-DS seed).`,
    '',
    lmRowsTable(r.rows, r.seed),
    '',
    ...(r.endings.length
      ? [
          '## How the episodes ended',
          '',
          "Each evaluation's episodes by how they ended, with the verifier's mean partial score: the share of a task's conditions met, some of which (nothing deleted, say) hold for an agent that does nothing, so compare it with the base row's.",
          '',
          lmEndingsTable(r.endings),
          '',
        ]
      : []),
    '## Training',
    '',
    ...r.lines,
    '',
    '## Stages',
    '',
    '| stage | wall s | min | commit | finished |',
    '|---|---|---|---|---|',
    ...stageLines,
    `| **sum** | ${total.toFixed(0)} | ${(total / 60).toFixed(1)} | | |`,
    '',
    '## Provenance',
    '',
    ...r.invocations.map(
      (i) =>
        `- ${i.startedAt}: \`${i.command}\` at ${i.commit ?? 'unknown commit'}${i.dirty ? ' (with uncommitted changes)' : ''}`,
    ),
    ...(r.stages.some((s) => !s.attributed)
      ? [
          '- stages marked "unrecorded" finished before the folder recorded its invocations (their commit is not in the store)',
        ]
      : []),
    `- seeds: pipeline seed ${r.seed}, training seeds ${trainSeeds.join(', ') || '-'}, world seed ${r.worldSeed}`,
    `- commits of the stages: ${commits.map((c) => c.slice(0, 7)).join(', ')}`,
    `- wall time: ${total.toFixed(0)} s (${(total / 3600).toFixed(2)} h) over all stages, as measured by the runs that finished them`,
    '',
  ].join('\n');
  const json = `${JSON.stringify(
    {
      title: r.title,
      lead: r.lead,
      tasks: r.tasks,
      seed: r.seed,
      trainingSeeds: trainSeeds,
      worldSeed: r.worldSeed,
      rows: r.rows.map(({ seeds, ...row }) => ({
        ...row,
        seeds: seeds.map(({ perTask: _perTask, ...s }) => ({ ...s, seed: r.seed + s.k })),
        aggregate: { ...row.aggregate, perTask: undefined },
        perTask: row.aggregate.perTask,
      })),
      endings: r.endings,
      stages: r.stages,
      wallSeconds: total,
      invocations: r.invocations,
      preset: r.preset,
      lines: r.lines,
    },
    null,
    2,
  )}\n`;
  const files: ReturnType<typeof writeLmStudent> = {
    markdown: join(root, 'lm-student.md'),
    json: join(root, 'lm-student.json'),
  };
  writeFileAtomic(files.markdown, md);
  writeFileAtomic(files.json, json);
  if (resultsDir) {
    mkdirSync(resultsDir, { recursive: true });
    files.results = {
      markdown: join(resultsDir, 'lm-student.md'),
      json: join(resultsDir, 'lm-student.json'),
    };
    // The results copy is committed: the run folder's machine path becomes its role.
    const folders = [
      { dir: root, role: "the lm demo's data folder" },
      { dir: r.model, role: 'the base model' },
      { dir: resultsDir, role: 'the results folder' },
    ];
    const repo = repoRoot(resultsDir);
    const command = r.invocations.at(-1)?.command ?? '';
    writeFileAtomic(files.results.markdown, nameFoldersByRole(md, command, folders, repo).text);
    writeFileAtomic(
      files.results.json,
      nameFoldersByRole(json, JSON.stringify(command).slice(1, -1), folders, repo).text,
    );
  }
  return files;
}
