import type { Agent, HistoryEntry } from '../agent/agent.ts';
import { type EpisodeEnv, type RunEpisodeOptions, runEpisode } from '../agent/episode.ts';
import {
  type Action,
  formatAction,
  type Observation,
  type Trajectory,
  type Verdict,
  type VerificationBranch,
} from '../core/index.ts';
import type { ComparabilityWeights } from './comparability.ts';
import {
  type BranchSpec,
  divergedComparability,
  isReplayWait,
  mapAction,
  REPLAY_DIVERGED,
  replayBranchAgent,
  replayComparability,
} from './replay.ts';

/**
 * One branch of a verification: a fresh episode that replays a success prefix, takes one action
 * and lets the continuation finish. Whether it runs in this process or on a queue worker, the
 * episode's agent is `replayBranchAgent` and its result is read off the trajectory by
 * `branchResultFromTrajectory`, so the two places cannot disagree.
 */

/** One distinct branch to run: replay `success` to step `i`, take `action` (recorded on `from`). */
export interface BranchJob {
  key: string;
  success: Trajectory;
  i: number;
  action: Action;
  from: Observation;
}

/** The result of running one branch (journaled, so a rerun resumes). */
export interface BranchResult {
  key: string;
  reproduced: boolean;
  comparability: number;
  detail: string;
  /** Null when the prefix did not reproduce (the branch action was never taken). */
  branch: VerificationBranch | null;
  wallMs: number;
}

/** Runs branches in this process: a browser env per worker and the continuation policy. */
export interface LocalBranchRunner {
  makeEnv: () => Promise<EpisodeEnv & { close(): Promise<void> }>;
  /** Opens a fresh world session for the task under the given perturbation seed. */
  start: NonNullable<RunEpisodeOptions['start']>;
  verify: (trajectory: Trajectory) => Promise<Verdict>;
  /** The continuation policy, one instance per worker (e.g. the heuristic teacher). */
  makeAgent: () => Agent | Promise<Agent>;
}

/**
 * Runs one branch elsewhere (queue workers, see src/queue/queued-verify.ts) and returns its result;
 * throws when the branch could not run (a rerun retries it).
 */
export type RemoteBranchRunner = (job: BranchJob) => Promise<BranchResult>;

/** The success run cut after step `i`, without screenshot bytes: what a queue job carries. */
export function branchSpecOf(job: BranchJob, threshold: number, weights: ComparabilityWeights): BranchSpec {
  const steps = job.success.steps.slice(0, job.i + 1).map((s) => {
    const screenshot = s.observation.screenshot ? { ...s.observation.screenshot } : null;
    if (screenshot) delete screenshot.data;
    return { ...s, observation: { ...s.observation, screenshot } };
  });
  return {
    success: { ...job.success, steps },
    i: job.i,
    action: job.action,
    from: job.from,
    threshold,
    weights,
  };
}

/** Whether a branch episode ended because its prefix did not reproduce. */
function diverged(trajectory: Pick<Trajectory, 'endDetail'>): boolean {
  return trajectory.endDetail.includes(REPLAY_DIVERGED);
}

/**
 * Reads a branch result off a branch episode (run here or on a queue worker): a run that stopped
 * before step `i` with the replay-diverged detail did not reproduce; a run that went past `i`
 * reproduced (the agent checked it), and its comparability and re-targeted action are recomputed
 * from the recorded steps. Throws for a run that broke before step `i` for another reason (a browser
 * error): not a result, the branch is retried.
 */
export function branchResultFromTrajectory(
  job: BranchJob,
  trajectory: Trajectory,
  weights: ComparabilityWeights,
): BranchResult {
  const wallMs = Math.max(0, Date.parse(trajectory.endedAt) - Date.parse(trajectory.startedAt)) || 0;
  const at = trajectory.endDetail.indexOf(REPLAY_DIVERGED);
  // The branch step is the i-th step that is not a wait the replay inserted.
  let branchStep = -1;
  for (let p = 0, recorded = 0; p < trajectory.steps.length; p++) {
    if (isReplayWait(trajectory.steps[p])) continue;
    if (recorded++ === job.i) {
      branchStep = p;
      break;
    }
  }
  if (branchStep < 0) {
    if (at < 0)
      throw new Error(`branch ended before step ${job.i}: ${trajectory.endReason} (${trajectory.endDetail})`);
    const detail = trajectory.endDetail.slice(at + REPLAY_DIVERGED.length);
    return {
      key: job.key,
      reproduced: false,
      comparability: divergedComparability(detail),
      detail,
      branch: null,
      wallMs,
    };
  }
  const history: HistoryEntry[] = trajectory.steps
    .slice(0, branchStep)
    .filter((s) => !isReplayWait(s))
    .map((s) => ({
      stepIndex: s.index,
      url: s.observation.url,
      observation: s.observation,
      output: s.output,
      action: s.action,
      result: s.result,
    }));
  const here = trajectory.steps[branchStep];
  const comparability = replayComparability(job.success, job.i, history, here.observation, weights);
  const verdict = trajectory.verdict;
  return {
    key: job.key,
    reproduced: true,
    comparability,
    detail: '',
    branch: {
      action: here.action,
      applicable: mapAction(job.action, job.from, here.observation) !== null,
      success: verdict?.success ?? false,
      score: verdict?.score ?? 0,
      reason: verdict?.reason ?? '',
      endReason: trajectory.endReason,
      steps: trajectory.steps
        .slice(branchStep)
        .map((s) => ({ url: s.observation.url, action: formatAction(s.action) })),
      wallMs,
    },
    wallMs,
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * Runs one branch in this process on `env` with `continuation` finishing it. A prefix that did not
 * reproduce is not judged: the branch never happened. Throws when the episode was aborted or broke
 * before the state (the caller retries it).
 */
export async function runLocalBranch(
  job: BranchJob,
  env: EpisodeEnv,
  continuation: Agent,
  o: {
    start: LocalBranchRunner['start'];
    verify: LocalBranchRunner['verify'];
    notes: string[];
    maxSteps: number;
    threshold: number;
    weights: ComparabilityWeights;
    signal?: AbortSignal;
  },
): Promise<BranchResult> {
  const trajectory = await runEpisode({
    agent: replayBranchAgent(branchSpecOf(job, o.threshold, o.weights), continuation),
    env,
    task: job.success.task,
    notes: o.notes,
    maxSteps: Math.max(o.maxSteps, job.i + 1),
    start: o.start,
    verify: async (t) =>
      diverged(t)
        ? { success: false, score: 0, reason: 'not run', verifierId: 'none', failedConditions: [] }
        : o.verify(t),
    perturb: job.success.perturbSeed ?? 0,
    tags: ['verify'],
    signal: o.signal,
  });
  if (trajectory.endReason === 'aborted') throw new Error('aborted');
  return branchResultFromTrajectory(job, trajectory, o.weights);
}
