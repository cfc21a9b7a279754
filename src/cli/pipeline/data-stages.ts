import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { collect } from '../../collect/collect.ts';
import { computeRunStats, type RunStats } from '../../collect/stats.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import { type ExportSftSummary, exportSft } from '../../data/index.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { RunStore } from '../../store/run-store.ts';
import { rewriteRawQueryOffline, worldRawQueries } from '../../world/rewriter.ts';
import { generateWorldTasks } from '../../world/tasks.ts';
import { World } from '../../world/world.ts';
import { episodesNotRun } from '../episode-errors.ts';
import { recordStage } from '../manifest.ts';
import { resolveAgent, resolveReflector } from '../runtime.ts';
import type { PipelineContext } from './context.ts';
import type { StageScope } from './stage.ts';

/** What the synthesis stage measured about the offline rewriter on the world's raw-query corpus. */
export interface SynthResult {
  corpus: number;
  queries: number;
  /** Queries rewritten into an executable, verifiable task. */
  grounded: number;
  /** Queries rejected with a reason (written beside the tasks). */
  dropped: number;
  /** Grounded tasks whose template is the one the query was written for. */
  templateAgrees: number;
  /** Grounded tasks whose template and parameter values are exactly the query's. */
  exact: number;
  /** Grounded tasks per split (a test-split task must never be trained on). */
  train: number;
  test: number;
  /** Grounded train-split tasks equal (template and parameters) to a generated world train task. */
  inTrainPool: number;
  topDropReasons: Array<{ reason: string; count: number }>;
}

function sameParams(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return false;
  return true;
}

function taskKey(t: Task): string {
  const v = t.verifier as { template?: string; params?: Record<string, unknown> };
  const params = v.params ?? {};
  return `${v.template}|${JSON.stringify(
    Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]),
  )}`;
}

function writeJsonl(file: string, rows: unknown[]): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, rows.length ? `${rows.map((r) => JSON.stringify(r)).join('\n')}\n` : '');
}

/**
 * Task synthesis: the offline rewriter turns a seeded sample of the world's messy raw queries into
 * executable tasks (or drops them with a reason), exactly as `rmsweb tasks synth --model offline`.
 * The collection pool stays the generated world train tasks; this stage measures the rewriter
 * (grounded, dropped, agreement with the query's known grounding) and writes the tasks it made.
 */
export async function synthStage(ctx: PipelineContext, scope: StageScope): Promise<SynthResult> {
  const world = new World(ctx.settings.worldSeed);
  const corpus = worldRawQueries(world);
  const sample = new Rng(`synth:${ctx.settings.seed}`).shuffle(corpus).slice(0, ctx.preset.synthQueries);
  const pool = new Set(
    generateWorldTasks({ split: 'train', seed: ctx.settings.worldSeed, world }).map(taskKey),
  );
  const bar = scope.progress(sample.length);
  const tasks: Task[] = [];
  const dropped: Array<{ query: string; site: string; reason: string }> = [];
  const r: SynthResult = {
    corpus: corpus.length,
    queries: sample.length,
    grounded: 0,
    dropped: 0,
    templateAgrees: 0,
    exact: 0,
    train: 0,
    test: 0,
    inTrainPool: 0,
    topDropReasons: [],
  };
  for (let i = 0; i < sample.length; i++) {
    if (scope.signal.aborted) break;
    const q = sample[i];
    const out = rewriteRawQueryOffline(q, world);
    if (out.feasible) {
      tasks.push(out.task);
      r.grounded++;
      const v = out.task.verifier as { template?: string; params?: Record<string, unknown> };
      if (v.template === q.grounding.template) {
        r.templateAgrees++;
        if (sameParams(v.params ?? {}, q.grounding.params)) r.exact++;
      }
      if (out.task.split === 'test') r.test++;
      else {
        r.train++;
        if (pool.has(taskKey(out.task))) r.inTrainPool++;
      }
    } else {
      r.dropped++;
      dropped.push({ query: q.text, site: q.site, reason: out.reason });
    }
    bar.update(i + 1, { grounded: r.grounded / (i + 1) });
    // The rewriter is synchronous: yield so Ctrl-C and the bar get a turn.
    if (i % 25 === 24) await new Promise((res) => setImmediate(res));
  }
  const reasons = new Map<string, number>();
  // Reasons name the template first ("shop.x: ..."); group by what was wrong, not by template.
  for (const d of dropped) {
    const why = d.reason.replace(/^[\w.-]+: /, '');
    reasons.set(why, (reasons.get(why) ?? 0) + 1);
  }
  r.topDropReasons = [...reasons.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([reason, count]) => ({ reason, count }));
  writeJsonl(ctx.paths.synthTasks, tasks);
  writeJsonl(ctx.paths.synthDropped, dropped);
  scope.log(
    `${r.grounded}/${r.queries} queries grounded (${r.exact} exactly as written, ${r.inTrainPool} equal to a world train task), ${r.dropped} dropped -> ${ctx.paths.synthTasks}`,
  );
  return r;
}

export interface CollectResult {
  episodes: number;
  errors: number;
  stats: RunStats;
}

/**
 * Teacher collection with reflection (heuristic teacher, rules reflector) into `dir`; resumes from
 * the store's keyed episodes. `maxRounds: 1` is the no-reflection ablation (one round, no notes).
 */
export async function collectStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: { dir: string; tasks: Task[]; maxRounds: number; stopAfter: number; screenshots?: boolean },
): Promise<CollectResult> {
  const p = ctx.preset.collect;
  const store = RunStore.open(o.dir);
  try {
    recordStage(
      store,
      'collect',
      {
        teacher: 'heuristic',
        reflector: 'rules',
        tasks: o.tasks.length,
        maxRounds: o.maxRounds,
        stopAfter: o.stopAfter,
        maxSteps: p.maxSteps,
        preset: ctx.preset.name,
      },
      ctx.settings.seed,
    );
    const rt = await ctx.world(o.screenshots ?? p.screenshots);
    const finished = (id: string) => {
      const s = store.listTrajectorySummaries({ taskId: id, tag: 'collect' });
      return s.filter((x) => x.success).length >= o.stopAfter || s.length >= o.maxRounds;
    };
    const solvedTask = (id: string) =>
      store.countTrajectories({ taskId: id, tag: 'collect', success: true }) > 0;
    const finishedTasks = o.tasks.filter((t) => finished(t.id));
    let done = finishedTasks.length;
    let solved = finishedTasks.filter((t) => solvedTask(t.id)).length;
    const bar = scope.progress(o.tasks.length);
    bar.update(done);
    const r = await collect({
      tasks: o.tasks,
      store,
      makeAgent: () => resolveAgent('heuristic', { seed: ctx.settings.seed }),
      makeEnv: rt.makeEnv,
      start: rt.start,
      verify: rt.verify,
      reflector: resolveReflector('rules'),
      workers: ctx.preset.workers,
      maxRounds: o.maxRounds,
      stopAfter: o.stopAfter,
      maxSteps: p.maxSteps,
      seed: ctx.settings.seed,
      signal: scope.signal,
      onEpisode: ({ task, taskDone }) => {
        if (!taskDone) return;
        done++;
        if (solvedTask(task.id)) solved++;
        bar.update(done, { solved: `${solved}/${done}` });
      },
      onError: ({ task, round, error }) => scope.log(`${task.id} round ${round}: ${error.message}`),
    });
    const stats = computeRunStats(store);
    scope.log(
      `${stats.overall.tasksSolved}/${stats.overall.tasks} tasks solved over ${stats.overall.attempts} attempts (${r.errors} episodes could not be run)`,
    );
    // Left unfinished, so the rerun retries the rounds that could not be run.
    if (r.errors && !scope.signal.aborted) throw episodesNotRun('collect stage', r.errors);
    return { ...r, stats };
  } finally {
    store.close();
  }
}

/** SFT export (TRL format, images beside the JSONL) of the collection's verified successes. */
export async function exportStage(ctx: PipelineContext, scope: StageScope): Promise<ExportSftSummary> {
  const bar = scope.progress(0);
  const s = exportSft({
    runs: [ctx.paths.collect],
    format: 'trl',
    out: ctx.paths.exportTrl,
    onProgress: (done, total) => {
      bar.setTotal(total);
      bar.update(done);
    },
  });
  scope.log(`${s.examples} examples from ${s.trajectories} successes, ${s.images} images -> ${s.file}`);
  return s;
}
