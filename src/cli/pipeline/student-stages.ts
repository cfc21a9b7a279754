import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type EpisodeJob, runEpisodePool } from '../../collect/episode-pool.ts';
import { actionsEquivalent } from '../../core/action-equivalence.ts';
import { CriticalState, describeZodIssues, InputError, RmswebError } from '../../core/index.ts';
import type { Task } from '../../core/task.ts';
import type { Trajectory } from '../../core/trajectory.ts';
import { type MineStats, mineCriticalStates, rulesTagger } from '../../mine/index.ts';
import { initPolicyBackend } from '../../policy/backend.ts';
import { loadRelabeledTrajectories, loadSuccessfulTrajectories } from '../../policy/run-data.ts';
import { type EpochMetrics, type SftDataReport, trainSft } from '../../policy/sft-trainer.ts';
import { loadStudentPolicy } from '../../policy/student-policy.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { RunStore } from '../../store/run-store.ts';
import { resolveWorldUrl, WORLD_ORIGIN } from '../../world/tasks.ts';
import { episodesNotRun } from '../episode-errors.ts';
import { resolveAgent } from '../runtime.ts';
import type { PipelineContext } from './context.ts';
import type { StageScope } from './stage.ts';

export interface SftStageResult {
  dir: string;
  data: SftDataReport;
  final: EpochMetrics | null;
  /** Seconds spent in training epochs (summed from the checkpoint's metrics, resumed parts included). */
  trainSeconds: number;
  /** Set when the stage continued an earlier checkpoint instead of training from scratch. */
  warm?: { from: string; epochs: number; lr: number };
}

function previousEpochs(dir: string): EpochMetrics[] {
  const path = join(dir, 'metrics.json');
  if (!existsSync(path)) return [];
  const m = JSON.parse(readFileSync(path, 'utf8')) as { epochs?: EpochMetrics[] };
  // metrics.json writes NaN (no validation split) as null.
  return (m.epochs ?? []).map((e) => ({
    ...e,
    valLoss: e.valLoss ?? Number.NaN,
    valStepAccuracy: e.valStepAccuracy ?? Number.NaN,
    valEquivalentAccuracy: e.valEquivalentAccuracy ?? Number.NaN,
  }));
}

/**
 * SFT of the local student on the verified successes of `runDir` into checkpoint folder `dir`
 * (as `rmsweb train sft`). The checkpoint is written after every epoch, so an interrupted stage
 * resumes from its last finished epoch.
 */
export async function sftStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: {
    runDir: string;
    dir: string;
    relabeled?: string[];
    /** Seed of the weights, split and shuffles; default the pipeline's seed. */
    seed?: number;
    /**
     * Warm start: continue this checkpoint for `warm.epochs` epochs at `warm.lr` instead of
     * training from scratch (DAgger rounds, whose aggregated data grows every round).
     */
    warm?: { from: string; epochs: number; lr: number };
  },
): Promise<SftStageResult> {
  const p = o.warm ? { ...ctx.preset.sft, epochs: o.warm.epochs, lr: o.warm.lr } : ctx.preset.sft;
  const seed = o.seed ?? ctx.settings.seed;
  await initPolicyBackend();
  const trajectories = loadSuccessfulTrajectories([o.runDir]);
  const relabeled = o.relabeled?.length ? loadRelabeledTrajectories(o.relabeled) : [];
  if (trajectories.length === 0) {
    throw new RmswebError(
      `the teacher solved no task in ${o.runDir}: there is nothing to train the student on (try a larger preset)`,
      { code: 'NO_DATA' },
    );
  }
  const resumed = existsSync(join(o.dir, 'config.json')) ? previousEpochs(o.dir) : [];
  const policy = resumed.length
    ? await loadStudentPolicy(o.dir)
    : o.warm
      ? await loadStudentPolicy(o.warm.from)
      : undefined;
  if (policy && resumed.length >= p.epochs) {
    const m = JSON.parse(readFileSync(join(o.dir, 'metrics.json'), 'utf8')) as { data: SftDataReport };
    policy.dispose();
    return {
      dir: o.dir,
      data: m.data,
      final: resumed.at(-1) ?? null,
      trainSeconds: resumed.reduce((a, e) => a + e.seconds, 0),
      ...(o.warm ? { warm: o.warm } : {}),
    };
  }
  const meta = {
    command: `${ctx.settings.command} (sft)`,
    runs: [o.runDir],
    relabeled: o.relabeled ?? [],
    seed,
    epochs: p.epochs,
    batch: p.batch,
    lr: p.lr,
    ...(o.warm ? { warmStartFrom: o.warm.from } : {}),
  };
  if (resumed.length) scope.log(`resuming after epoch ${resumed.length}`);
  else if (policy && o.warm) {
    // The checkpoint this one continues describes its own training; this one records its own.
    for (const k of Object.keys(policy.meta)) delete policy.meta[k];
    Object.assign(policy.meta, meta);
    scope.log(`continuing ${o.warm.from} for ${p.epochs} epochs at lr ${p.lr}`);
  }
  let bar: ReturnType<StageScope['progress']> | null = null;
  const r = await trainSft(trajectories, {
    epochs: p.epochs,
    batchSize: p.batch,
    lr: p.lr,
    seed,
    policy,
    relabeled,
    startEpoch: resumed.length,
    previousEpochs: resumed,
    outDir: o.dir,
    meta,
    onData: (d) =>
      scope.log(
        `${d.trajectories} successful trajectories, ${d.steps} steps${relabeled.length ? ` + ${relabeled.length} relabelled rollouts` : ''} -> ${d.examples} examples (train ${d.train}, val ${d.val})`,
      ),
    onBatch: ({ epoch, batch, batches, loss }) => {
      bar ??= scope.progress(batches * (p.epochs - resumed.length));
      bar.update((epoch - resumed.length - 1) * batches + batch, { epoch, loss });
    },
    onEpoch: (m) => {
      const val = Number.isFinite(m.valStepAccuracy)
        ? ` val acc ${(100 * m.valStepAccuracy).toFixed(1)}%`
        : '';
      if (!process.stderr.isTTY)
        scope.log(
          `epoch ${m.epoch}/${p.epochs} loss ${m.trainLoss.toFixed(3)} train acc ${(100 * m.trainStepAccuracy).toFixed(1)}%${val}`,
        );
    },
  });
  r.policy.dispose();
  return {
    dir: o.dir,
    data: r.data,
    final: r.epochs.at(-1) ?? null,
    trainSeconds: r.epochs.reduce((a, e) => a + e.seconds, 0),
    ...(o.warm ? { warm: o.warm } : {}),
  };
}

export interface RolloutResult {
  episodes: number;
  successes: number;
  errors: number;
  /** DAgger rounds: states the expert labelled, and how many of them it would have acted differently on. */
  relabeled?: { steps: number; disagreements: number };
}

/**
 * Greedy student rollouts on train tasks into a rollout run folder (keyed, so resumable). With
 * `expertNotes` (DAgger), the teacher reads the note that solved each task in the collection and
 * labels every state the student reaches; tasks the teacher never solved are left out.
 */
export async function rolloutStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: {
    tasks: Task[];
    checkpoint: string;
    dir?: string;
    maxSteps?: number;
    /** Tag naming the student in the run (default `student-sft`). */
    student?: string;
    expertNotes?: Map<string, string[]>;
    /** Seed of the episodes and agents; default the pipeline's seed. */
    seed?: number;
  },
): Promise<RolloutResult> {
  const p = ctx.preset.rollout;
  const seed = o.seed ?? ctx.settings.seed;
  const agentSpec = `policy:${o.checkpoint}`;
  const student = o.student ?? 'student-sft';
  const relabel = o.expertNotes ? '+relabel:heuristic' : '';
  const runs = o.expertNotes ? 1 : p.runs;
  const tasks = o.expertNotes ? o.tasks.filter((t) => o.expertNotes?.has(t.id)) : o.tasks;
  if (tasks.length < o.tasks.length)
    scope.log(
      `${o.tasks.length - tasks.length} of ${o.tasks.length} tasks left out (the teacher never solved them)`,
    );
  const jobs: EpisodeJob[] = [];
  for (let r = 0; r < runs; r++) {
    for (const task of tasks) {
      jobs.push({
        task,
        key: `rollout:${student}${relabel}:${task.id}#${r}`,
        round: r,
        tags: ['rollout', 'student', `agent:${student}`, ...(relabel ? ['relabel:heuristic'] : [])],
        seed: seed + r,
        ...(o.expertNotes ? { expertNotes: o.expertNotes.get(task.id) } : {}),
      });
    }
  }
  const store = RunStore.open(o.dir ?? ctx.paths.rollout);
  try {
    const rt = await ctx.world(false);
    let done = jobs.filter((j) => store.hasEpisode(j.key)).length;
    const bar = scope.progress(jobs.length);
    bar.update(done);
    const res = await runEpisodePool({
      jobs,
      store,
      makeAgent: () => resolveAgent(agentSpec, { seed }),
      ...(o.expertNotes ? { makeExpert: () => resolveAgent('heuristic', { seed }) } : {}),
      makeEnv: rt.makeEnv,
      start: rt.start,
      verify: rt.verify,
      workers: ctx.preset.workers,
      maxSteps: o.maxSteps ?? p.maxSteps,
      signal: scope.signal,
      onEpisode: () => {
        done++;
        bar.update(done, {
          success: store.countTrajectories({ tag: 'rollout', success: true }) / Math.max(1, done),
        });
      },
      onError: ({ job, error }) => scope.log(`${job.key}: ${error.message}`),
    });
    const episodes = store.countTrajectories({ tag: 'rollout' });
    const successes = store.countTrajectories({ tag: 'rollout', success: true });
    const out: RolloutResult = { episodes, successes, errors: res.errors };
    if (o.expertNotes) {
      const { steps, disagreements } = relabelStats(store.listTrajectories({ tag: 'rollout' }));
      out.relabeled = { steps, disagreements };
      scope.log(
        `${successes}/${episodes} student rollouts succeeded; the teacher labelled ${steps} states and would have acted differently on ${disagreements} (${((100 * disagreements) / Math.max(1, steps)).toFixed(1)}%)`,
      );
    } else scope.log(`${successes}/${episodes} student rollouts succeeded`);
    // Left unfinished, so the rerun retries the episodes that could not be run.
    if (res.errors && !scope.signal.aborted) throw episodesNotRun('rollout stage', res.errors, jobs.length);
    return out;
  } finally {
    store.close();
  }
}

/**
 * The states an expert labelled in rollouts, and on how many it would have acted otherwise than
 * the student (action equivalence on the state's own page).
 */
export function relabelStats(rollouts: readonly Trajectory[]): { steps: number; disagreements: number } {
  let steps = 0;
  let disagreements = 0;
  for (const t of rollouts)
    for (const st of t.steps) {
      if (!st.expertAction) continue;
      steps++;
      if (!actionsEquivalent(st.expertAction, st.action, st.observation)) disagreements++;
    }
  return { steps, disagreements };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * World trajectories recorded by different invocations ran against worlds on different ports; the
 * miner compares URLs host and all, so the same page would look like two sites. World tasks are
 * portable across ports (`resolveWorldUrl`): move every loopback URL to the canonical world origin.
 */
export function canonicalWorldUrls(t: Trajectory): Trajectory {
  if (t.task.suite !== 'world') return t;
  const fix = (url: string) => {
    try {
      return LOOPBACK.has(new URL(url).hostname) ? resolveWorldUrl(url, WORLD_ORIGIN) : url;
    } catch {
      return url;
    }
  };
  return {
    ...t,
    steps: t.steps.map((s) => ({
      ...s,
      action: s.action.type === 'navigate' ? { ...s.action, url: fix(s.action.url) } : s.action,
      observation: {
        ...s.observation,
        url: fix(s.observation.url),
        tabs: s.observation.tabs.map((tab) => ({ ...tab, url: fix(tab.url) })),
      },
    })),
  };
}

/**
 * Critical-state mining (as `rmsweb mine --judge rules`) over the teacher's collection (its
 * failures) and the student's rollouts, each paired with the teacher's verified successes.
 * Writes critical.jsonl and its stats, and records the states in the pipeline store for the viewer.
 */
export async function mineStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: { runs: string[]; out: string; statsOut: string },
): Promise<MineStats> {
  const trajectories = o.runs.flatMap((dir) => {
    const s = RunStore.open(dir, { create: false, readonly: true });
    try {
      return s.listTrajectories().map(canonicalWorldUrls);
    } finally {
      s.close();
    }
  });
  let bar: ReturnType<StageScope['progress']> | null = null;
  const result = await mineCriticalStates(trajectories, {
    tagger: rulesTagger,
    onProgress: (done, total) => {
      bar ??= scope.progress(total);
      bar.update(done);
    },
  });
  const lines = result.criticalStates.map((cs, i) => {
    const r = CriticalState.safeParse(cs);
    if (!r.success)
      throw new InputError(`critical state ${cs.id} is invalid: ${describeZodIssues(r.error.issues)}`, {
        file: o.out,
        line: i + 1,
      });
    return JSON.stringify(r.data);
  });
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileAtomic(o.out, lines.length ? `${lines.join('\n')}\n` : '');
  writeFileAtomic(o.statsOut, `${JSON.stringify({ ...result.stats, runs: o.runs, out: o.out }, null, 2)}\n`);
  ctx.store.transaction(() => {
    for (const cs of result.criticalStates) ctx.store.putRecord('critical-state', cs.id, cs);
    ctx.store.putRecord('mine-stats', 'critical.jsonl', result.stats);
  });
  const s = result.stats;
  scope.log(
    `${s.criticalStates} critical states from ${s.pairsConsidered} pairs (${s.failedPairs} failed, ${s.wanderingPairs} wandering); yield ${(100 * s.yield).toFixed(2)}% of ${s.successSteps} success steps`,
  );
  return s;
}
