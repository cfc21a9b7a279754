import type { Agent } from '../agent/agent.ts';
import type { EpisodeEnv, RunEpisodeOptions } from '../agent/episode.ts';
import { countEpisodeErrors, type EpisodeJob, runEpisodePool } from '../collect/episode-pool.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';
import type { RunStore } from '../store/run-store.ts';
import { runPerturbSeed } from '../world/perturb.ts';
import { storedLedger } from './ledger.ts';
import { type EvalSummary, summarizeEval } from './metrics.ts';

export interface RunEvalOptions {
  /** Label of what is evaluated (stage name or agent spec); keys episodes so several agents share a store. */
  label: string;
  agentId: string;
  suite: string;
  tasks: Task[];
  store: RunStore;
  makeAgent: () => Agent | Promise<Agent>;
  makeEnv: () => Promise<EpisodeEnv & { close(): Promise<void> }>;
  start?: RunEpisodeOptions['start'];
  verify: (trajectory: Trajectory) => Promise<Verdict>;
  isTerminal?: RunEpisodeOptions['isTerminal'];
  /** Independent runs over the task list (pass@1 is averaged over them). Default DEFAULT_RUNS. */
  runs?: number;
  /**
   * World suite only: give run r its own world perturbation seed, derived from `evalSeed` and r, so
   * the runs differ as visits to a live site do (listing order, page size, overlays). Default true.
   */
  perturb?: boolean;
  /** Seed the runs' perturbation seeds derive from (the evaluation's seed). Default 0. */
  evalSeed?: number;
  /**
   * The agent decides the same way on the same page (greedy student, heuristic, seeded random).
   * With an unperturbed world such runs cannot differ, so the evaluation runs once.
   */
  deterministicAgent?: boolean;
  workers?: number;
  maxSteps?: number;
  signal?: AbortSignal;
  onEpisode?: (done: number, total: number, successRate: number) => void;
  /** An episode that could not be run (its browser kept failing); it is retried on the next run. */
  onError?: (taskId: string, error: Error) => void;
}

/** Runs of an evaluation unless told otherwise (the paper's pass@1 is averaged over 3). */
export const DEFAULT_RUNS = 3;

/** Tag that marks evaluation trajectories of one label. */
export function evalTag(label: string): string {
  return `eval:${label}`;
}

/**
 * Evaluates an agent: every task once per run, `runs` runs (the run index is the trajectory's
 * round), episodes saved under idempotent keys so an interrupted evaluation resumes. Returns
 * pass@1 averaged over runs with its spread.
 */
export async function runEval(o: RunEvalOptions): Promise<EvalSummary & { complete: boolean }> {
  const plan = planEvalRuns(o);
  const tag = evalTag(o.label);
  const jobs = evalJobs(o.label, o.tasks, plan.runs, plan.perturbSeeds);
  const total = jobs.length;
  let done = jobs.filter((j) => o.store.hasEpisode(j.key)).length;
  let ok = o.store.listTrajectorySummaries({ tag, success: true }).length;
  const res = await runEpisodePool({
    jobs,
    store: o.store,
    makeAgent: o.makeAgent,
    makeEnv: o.makeEnv,
    start: o.start,
    verify: o.verify,
    isTerminal: o.isTerminal,
    workers: o.workers,
    maxSteps: o.maxSteps,
    signal: o.signal,
    onEpisode: ({ trajectory }) => {
      done++;
      if (trajectory.verdict?.success) ok++;
      o.onEpisode?.(done, total, done ? ok / done : 0);
    },
    onError: ({ job, error }) => o.onError?.(job.task.id, error),
  });
  return summarizeStoredEval({ ...o, runs: plan.runs }, res.errors, plan);
}

/** How many runs an evaluation makes and what perturbation seed each run's world gets. */
export interface EvalRunPlan {
  runs: number;
  requestedRuns: number;
  /** Perturbation seed of run r (0: today's pages); empty when the suite has no world. */
  perturbSeeds: number[];
  /** Set when runs were cut because they could not differ. */
  note: string | null;
}

/**
 * Plans an evaluation's runs. On the world suite each run gets its own perturbation seed unless
 * perturbation is off; then a deterministic agent would repeat run 0 exactly, so it runs once and
 * the note says why. Live suites keep every run (the web itself changes between visits).
 */
export function planEvalRuns(
  o: Pick<RunEvalOptions, 'runs' | 'perturb' | 'evalSeed' | 'deterministicAgent' | 'suite'>,
): EvalRunPlan {
  const requestedRuns = o.runs ?? DEFAULT_RUNS;
  if (o.suite !== 'world') return { runs: requestedRuns, requestedRuns, perturbSeeds: [], note: null };
  const perturb = o.perturb ?? true;
  if (!perturb && o.deterministicAgent && requestedRuns > 1) {
    return {
      runs: 1,
      requestedRuns,
      perturbSeeds: [0],
      note: `ran once instead of ${requestedRuns} times: the world is unperturbed and the agent deterministic, so every run would repeat the first`,
    };
  }
  const perturbSeeds = Array.from({ length: requestedRuns }, (_, r) =>
    runPerturbSeed(o.evalSeed ?? 0, r, perturb),
  );
  return { runs: requestedRuns, requestedRuns, perturbSeeds, note: null };
}

/**
 * The episode jobs of an evaluation: every task once per run, keyed so a rerun resumes. Run r's
 * episodes render the world under `perturbSeeds[r]` (absent or 0: unperturbed).
 */
export function evalJobs(
  label: string,
  tasks: Task[],
  runs: number,
  perturbSeeds: number[] = [],
): EpisodeJob[] {
  const tag = evalTag(label);
  const jobs: EpisodeJob[] = [];
  for (let r = 0; r < runs; r++) {
    const perturb = perturbSeeds[r] ?? 0;
    for (const task of tasks)
      jobs.push({
        task,
        key: `${tag}:${task.id}#${r}`,
        round: r,
        tags: ['eval', tag],
        seed: r,
        ...(perturb ? { perturb } : {}),
      });
  }
  return jobs;
}

/** Summarizes an evaluation from the episodes in the store (shared by in-process and queued runs). */
export function summarizeStoredEval(
  o: Pick<RunEvalOptions, 'label' | 'agentId' | 'suite' | 'tasks' | 'store' | 'runs'>,
  errors: number,
  plan?: EvalRunPlan,
): EvalSummary & { complete: boolean } {
  const runs = o.runs ?? DEFAULT_RUNS;
  const ids = new Set(o.tasks.map((t) => t.id));
  const trajs = o.store
    .listTrajectories({ tag: evalTag(o.label) })
    .filter((t) => ids.has(t.task.id) && t.round < runs);
  const summary = summarizeEval(trajs, { agentId: o.agentId, suite: o.suite });
  const keys = evalJobs(o.label, o.tasks, runs).map((j) => j.key);
  const errored = countEpisodeErrors(o.store, keys);
  return {
    ...summary,
    errored,
    ledger: storedLedger(o.store, { trajectories: trajs, errorKeys: keys }),
    ...(plan?.note ? { runsNote: plan.note, requestedRuns: plan.requestedRuns } : {}),
    complete: trajs.length === o.tasks.length * runs && errors === 0 && errored === 0,
  };
}
