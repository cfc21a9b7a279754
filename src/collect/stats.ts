import type { RunStore, TrajectorySummary } from '../store/run-store.ts';

/** Counts for one slice of a run (the whole run, or one site). */
export interface SliceStats {
  tasks: number;
  attempts: number;
  successfulAttempts: number;
  tasksSolved: number;
  taskSuccessRate: number;
  steps: number;
}

/** The collection run summary printed by `rmsweb stats`. */
export interface RunStats {
  overall: SliceStats;
  perSite: Record<string, SliceStats>;
  /** Per round: attempts made in that round and the share that succeeded. */
  byRound: Array<{
    round: number;
    attempts: number;
    successes: number;
    successRate: number;
    /** Of those, the attempts that carried a reflection note, and their successes. */
    withNotes: { attempts: number; successes: number };
  }>;
  /** Share of solved tasks whose first success came after at least one reflection. */
  solvedOnlyAfterReflection: number;
  /** Share of tasks solved in round 0 (no notes). */
  firstRoundSolveRate: number;
  /** Of tasks that failed round 0 and had a round 1, the share solved in round 1 (with notes). */
  secondRoundSolveRateAfterFailure: number;
  /** Mean actions of successful attempts without notes and with notes, and the relative change. */
  meanActionsSolved: { withoutNotes: number | null; withNotes: number | null; relativeChange: number | null };
  /** Mean actions per task, on tasks solved both without and with notes (paired, fairer). */
  pairedMeanActions: {
    tasks: number;
    withoutNotes: number | null;
    withNotes: number | null;
    relativeChange: number | null;
  };
}

function slice(rows: TrajectorySummary[]): SliceStats {
  const tasks = new Set(rows.map((r) => r.taskId));
  const solved = new Set(rows.filter((r) => r.success).map((r) => r.taskId));
  return {
    tasks: tasks.size,
    attempts: rows.length,
    successfulAttempts: rows.filter((r) => r.success).length,
    tasksSolved: solved.size,
    taskSuccessRate: tasks.size ? solved.size / tasks.size : 0,
    steps: rows.reduce((a, r) => a + r.steps, 0),
  };
}

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const rel = (a: number | null, b: number | null): number | null => (a && b !== null ? (b - a) / a : null);

/** Computes the run summary from the store's trajectory summaries (tag filters the stage). */
export function computeRunStats(store: Pick<RunStore, 'listTrajectorySummaries'>, tag = 'collect'): RunStats {
  const rows = store.listTrajectorySummaries({ tag });
  const perSite: Record<string, SliceStats> = {};
  for (const site of [...new Set(rows.map((r) => r.site))].sort())
    perSite[site] = slice(rows.filter((r) => r.site === site));
  const maxRound = rows.reduce((m, r) => Math.max(m, r.round), -1);
  const byRound = [];
  for (let round = 0; round <= maxRound; round++) {
    const rr = rows.filter((r) => r.round === round);
    const s = rr.filter((r) => r.success).length;
    const rn = rr.filter((r) => r.notes > 0);
    byRound.push({
      round,
      attempts: rr.length,
      successes: s,
      successRate: rr.length ? s / rr.length : 0,
      withNotes: { attempts: rn.length, successes: rn.filter((r) => r.success).length },
    });
  }
  const byTask = new Map<string, TrajectorySummary[]>();
  for (const r of rows) byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), r]);
  let solved = 0;
  let afterReflection = 0;
  let firstRound = 0;
  let failedFirst = 0;
  let solvedSecond = 0;
  const pairedWithout: number[] = [];
  const pairedWith: number[] = [];
  for (const attempts of byTask.values()) {
    attempts.sort((a, b) => a.round - b.round);
    const first = attempts.find((a) => a.success);
    if (first) {
      solved++;
      if (first.round > 0) afterReflection++;
    }
    const r0 = attempts.find((a) => a.round === 0);
    const r1 = attempts.find((a) => a.round === 1);
    if (r0?.success) firstRound++;
    if (r0 && !r0.success && r1) {
      failedFirst++;
      if (r1.success) solvedSecond++;
    }
    const okWithout = attempts.filter((a) => a.success && a.notes === 0).map((a) => a.steps);
    const okWith = attempts.filter((a) => a.success && a.notes > 0).map((a) => a.steps);
    if (okWithout.length && okWith.length) {
      pairedWithout.push(mean(okWithout)!);
      pairedWith.push(mean(okWith)!);
    }
  }
  const without = mean(rows.filter((r) => r.success && r.notes === 0).map((r) => r.steps));
  const withNotes = mean(rows.filter((r) => r.success && r.notes > 0).map((r) => r.steps));
  const pw = mean(pairedWithout);
  const pn = mean(pairedWith);
  return {
    overall: slice(rows),
    perSite,
    byRound,
    solvedOnlyAfterReflection: solved ? afterReflection / solved : 0,
    firstRoundSolveRate: byTask.size ? firstRound / byTask.size : 0,
    secondRoundSolveRateAfterFailure: failedFirst ? solvedSecond / failedFirst : 0,
    meanActionsSolved: { withoutNotes: without, withNotes, relativeChange: rel(without, withNotes) },
    pairedMeanActions: {
      tasks: pairedWith.length,
      withoutNotes: pw,
      withNotes: pn,
      relativeChange: rel(pw, pn),
    },
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Renders the run summary as plain text. */
export function formatRunStats(s: RunStats): string {
  const lines: string[] = [];
  const o = s.overall;
  lines.push(
    `tasks ${o.tasks}  attempts ${o.attempts}  successful attempts ${o.successfulAttempts}  tasks solved ${o.tasksSolved} (${pct(o.taskSuccessRate)})  steps ${o.steps}`,
  );
  lines.push('', 'per site:');
  for (const [site, x] of Object.entries(s.perSite)) {
    lines.push(
      `  ${site.padEnd(10)} tasks ${String(x.tasks).padStart(4)}  attempts ${String(x.attempts).padStart(5)}  solved ${String(x.tasksSolved).padStart(4)} (${pct(x.taskSuccessRate)})  steps ${x.steps}`,
    );
  }
  lines.push('', 'success by round:');
  for (const r of s.byRound)
    lines.push(
      `  round ${r.round}: ${r.successes}/${r.attempts} attempts succeeded (${pct(r.successRate)})` +
        (r.withNotes.attempts
          ? `; with a note ${r.withNotes.successes}/${r.withNotes.attempts}, without ${r.successes - r.withNotes.successes}/${r.attempts - r.withNotes.attempts}`
          : ''),
    );
  lines.push('');
  lines.push(`tasks solved in round 0 (no notes): ${pct(s.firstRoundSolveRate)}`);
  lines.push(
    `round-1 success after a round-0 failure (with notes): ${pct(s.secondRoundSolveRateAfterFailure)}`,
  );
  lines.push(`solved tasks solved only after reflection: ${pct(s.solvedOnlyAfterReflection)}`);
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
  const m = s.meanActionsSolved;
  lines.push(
    `mean actions on successful attempts: without notes ${f(m.withoutNotes)}, with notes ${f(m.withNotes)} (${m.relativeChange === null ? 'n/a' : pct(m.relativeChange)})`,
  );
  const p = s.pairedMeanActions;
  lines.push(
    `  paired over ${p.tasks} tasks solved both ways: without ${f(p.withoutNotes)}, with ${f(p.withNotes)} (${p.relativeChange === null ? 'n/a' : pct(p.relativeChange)})`,
  );
  return lines.join('\n');
}
