import type { Agent, AgentDecision, AgentInput, HistoryEntry } from '../agent/agent.ts';
import { type EpisodeEnv, type RunEpisodeOptions, runEpisode } from '../agent/episode.ts';
import {
  type Action,
  actionsEquivalent,
  type CriticalState,
  type CriticalVerification,
  type Element,
  elementAt,
  elementsEquivalent,
  type FailureLabel,
  formatAction,
  makeAgentOutput,
  normalizeText,
  type Observation,
  Rng,
  type Step,
  stableId,
  type Task,
  type Trajectory,
  type Verdict,
  type VerificationBranch,
  type VerificationLabel,
} from '../core/index.ts';
import { type ComparabilityWeights, comparability, DEFAULT_COMPARABILITY_WEIGHTS } from './comparability.ts';
import { Interner, trajectoryFeatures } from './state-features.ts';

/**
 * Causal verification of critical states. A critical state claims that at one state of a success
 * run, the success action leads to success and the failure action leads to failure. The offline world
 * is resettable and every task has a verifier, so the claim can be checked: reset a fresh session
 * under the recorded world and perturbation seeds, replay the success side's actions up to the state,
 * check the page reached is the recorded one (by the miner's own comparability), then branch twice,
 * once per action, and let the same continuation policy finish both branches.
 */

/** Who picked the state: the miner, or a baseline on the same pair. */
export type VerifyMethod = 'miner' | 'first-diff' | 'random';
export const VERIFY_METHODS: readonly VerifyMethod[] = ['miner', 'first-diff', 'random'];

/**
 * Default threshold on the comparability total between the replayed and the recorded state. Higher
 * than the miner's alignment threshold (0.7): these are two visits of one run's own state under the
 * same seeds, not two runs that merely face the same decision.
 */
export const DEFAULT_REPLAY_THRESHOLD = 0.9;

/** One state to check: a position on a success run and the failure action to branch on. */
export interface VerifyTarget {
  method: VerifyMethod;
  /** The critical state's id (miner), or one derived from it (baselines). */
  id: string;
  /** The miner's critical state on the same pair (its label and site group every method's rows). */
  stateId: string;
  success: Trajectory;
  /** Position in `success.steps`. */
  i: number;
  failure: Trajectory;
  /** Position in `failure.steps`: its action is the one branched on. */
  j: number;
  label: FailureLabel;
  site: string;
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

/** Where finished branches are kept between runs. */
export interface BranchJournal {
  get(key: string): BranchResult | undefined;
  put(result: BranchResult): void;
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
 * throws when the branch could not run (a rerun retries it). `workers` branches are in flight at once.
 */
export type RemoteBranchRunner = (job: BranchJob) => Promise<BranchResult>;

export type VerifyOptions = (LocalBranchRunner | { runBranch: RemoteBranchRunner }) & VerifyCommon;

interface VerifyCommon {
  policyId: string;
  /** The notes the continuation reads on a task: those of the attempt that solved it. */
  notesFor: (task: Task) => string[];
  /** Step budget of a whole branch episode, prefix included (the collection's; default 30). */
  maxSteps?: number;
  replayThreshold?: number;
  weights?: Partial<ComparabilityWeights>;
  worldSeed?: number;
  workers?: number;
  /** Retries of a branch whose episode threw (a browser that died), default 1. */
  retries?: number;
  journal?: BranchJournal;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  onError?: (key: string, error: Error) => void;
}

/** The verification of one target, with its method. */
export interface VerifiedTarget {
  target: VerifyTarget;
  verification: CriticalVerification;
  /** True when a branch could not run (an episode error): not journaled, a rerun retries it. */
  errored: boolean;
}

// ---------------------------------------------------------------------------------------------
// Mapping recorded actions onto the replayed page
// ---------------------------------------------------------------------------------------------

function labelOf(e: Element): string {
  return normalizeText(e.name || e.text || e.attributes['aria-label'] || e.attributes.placeholder || '');
}

/**
 * The action recorded on page `from`, re-targeted to the same element on page `to` (element indices
 * are valid for one observation only). Elements match by core `elementsEquivalent` across the two
 * pages; among several, the one with the same node key and label wins, then the same label, then
 * the same index. Actions without an element pass through (a navigate recorded on another port of the world is moved
 * to the live one). Null when no element matches.
 */
export function mapAction(action: Action, from: Observation, to: Observation): Action | null {
  if (!('index' in action) || action.index === undefined || action.index === null)
    return rebase(action, from, to);
  const src = elementAt(from, action.index);
  // An index the recorded page did not have failed there too: keep it, it fails the same way.
  if (!src) return action;
  let best: Element | null = null;
  let bestScore = -1;
  const label = labelOf(src);
  for (const e of to.elements) {
    if (!elementsEquivalent(src, e, from, to)) continue;
    const score =
      (e.nodeKey === src.nodeKey ? 4 : 0) + (labelOf(e) === label ? 2 : 0) + (e.index === src.index ? 1 : 0);
    if (score > bestScore) {
      best = e;
      bestScore = score;
    }
  }
  return best ? ({ ...action, index: best.index } as Action) : null;
}

/** `http://127.0.0.1:7311/shop/p/2?x=1` -> `/shop/p/2?x=1`; a URL that does not parse is kept. */
function withoutOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** A navigate recorded on another origin of the same world (another port) is moved to the live one. */
function rebase(action: Action, from: Observation, to: Observation): Action {
  if (action.type !== 'navigate') return action;
  try {
    const target = new URL(action.url, from.url);
    const recorded = new URL(from.url);
    const live = new URL(to.url);
    if (target.origin !== recorded.origin || recorded.origin === live.origin) return action;
    return { ...action, url: `${live.origin}${target.pathname}${target.search}${target.hash}` };
  } catch {
    return action;
  }
}

/** An index no element of the page has: the action then fails in the browser as a no-op. */
function missingIndex(obs: Observation): number {
  return obs.elements.reduce((m, e) => Math.max(m, e.index), 0) + 1000;
}

// ---------------------------------------------------------------------------------------------
// The replaying agent
// ---------------------------------------------------------------------------------------------

/**
 * Thrown inside the episode when the prefix does not reproduce: it ends the episode at once. Its
 * message starts with REPLAY_DIVERGED, so a trajectory run elsewhere tells a prefix that did not
 * reproduce from an episode that broke (see `branchResultFromTrajectory`).
 */
class ReplayDiverged extends Error {
  constructor(detail: string) {
    super(`${REPLAY_DIVERGED}${detail}`);
  }
}

/** The start of a ReplayDiverged message (and so of the episode's endDetail, after runEpisode's prefix). */
export const REPLAY_DIVERGED = 'replay diverged: ';

/**
 * How often the replay waits for a recorded element that is not on the page yet (an autocomplete
 * suggestion appears a moment after typing) before it calls the prefix not reproduced. Below the
 * episode's loop detector (3 repeats of one action on one page), which would end the episode.
 */
export const MAX_REPLAY_WAITS = 2;

/** The `next_goal` of a wait the replay inserted: such steps are not part of the recorded prefix. */
export const REPLAY_WAIT_GOAL = 'replay: waiting for the recorded element to appear';

/** Whether a step of a branch episode is a wait the replay inserted (see MAX_REPLAY_WAITS). */
export function isReplayWait(step: Pick<Step, 'action' | 'output'>): boolean {
  return step.action.type === 'wait' && step.output.next_goal === REPLAY_WAIT_GOAL;
}

/** Comparability total between the recorded state `i` of `success` and the replayed one. */
export function replayComparability(
  success: Trajectory,
  i: number,
  history: readonly HistoryEntry[],
  observation: Observation,
  weights: ComparabilityWeights,
): number {
  const interner = new Interner();
  // The world may serve on another port than when the run was recorded: pages compare by path.
  const local = (s: Step): Step => ({
    ...s,
    observation: { ...s.observation, url: withoutOrigin(s.observation.url) },
  });
  const recordedSteps = success.steps.slice(0, i + 1).map(local);
  const recorded = trajectoryFeatures({ ...success, steps: recordedSteps }, interner).states[i];
  const rec = success.steps[i];
  const steps: Step[] = [
    // By position, not the episode's step index: waits the replay inserted are not in `history`.
    ...history.map((h, k) => ({
      index: k,
      observation: h.observation,
      output: h.output,
      action: h.action,
      result: h.result,
      timing: { modelMs: 0, actMs: 0, observeMs: 0 },
    })),
    { ...rec, observation },
  ];
  const replayed = trajectoryFeatures({ ...success, steps: steps.map(local) }, interner).states[i];
  return comparability(recorded, replayed, weights).total;
}

/**
 * Replays the success side's actions (re-targeted to the live page) for the first `i` steps, checks
 * the state reached at step `i`, takes the branch action there, then hands over to the continuation.
 * The recorded outputs are replayed too, so the agent memory the continuation inherits is the run's.
 */
class ReplayBranchAgent implements Agent {
  readonly id: string;
  replay: { reproduced: boolean; comparability: number; detail: string } | null = null;
  branchAction: Action | null = null;
  applicable = true;
  /** Position in the episode of the branch step (after any waits the replay inserted). */
  branchStep = -1;
  /** Waits inserted before the current recorded step (the count of earlier ones is not this step's). */
  private waitsBefore = 0;

  constructor(
    private readonly success: Trajectory,
    private readonly i: number,
    private readonly branch: { action: Action; from: Observation },
    private readonly continuation: Agent,
    private readonly threshold: number,
    private readonly weights: ComparabilityWeights,
  ) {
    this.id = `replay+${continuation.id}`;
  }

  reset(task: Parameters<NonNullable<Agent['reset']>>[0]): void | Promise<void> {
    return this.continuation.reset?.(task);
  }

  async act(input: AgentInput): Promise<AgentDecision> {
    // Waits the replay inserted are not recorded steps: count them out of the position and the history.
    const history = input.history.filter((h) => !isReplayWait(h));
    const k = history.length;
    const obs = input.observation;
    if (this.replay || k > this.i) return this.continuation.act(input);
    // A page that is not there yet (a list rendered a moment after typing) gets a few waits.
    const waited = input.history.length - k - this.waitsBefore;
    const wait = (): AgentDecision => {
      const a: Action = { type: 'wait', seconds: 1 };
      const memory = k > 0 ? this.success.steps[k - 1].output.memory : '';
      return { output: makeAgentOutput({ memory, next_goal: REPLAY_WAIT_GOAL }, [a]), actions: [a] };
    };
    if (k < this.i) {
      const rec = this.success.steps[k];
      const mapped = mapAction(rec.action, rec.observation, obs);
      if (!mapped) {
        if (waited < MAX_REPLAY_WAITS) return wait();
        const detail = `step ${k}: ${formatAction(rec.action)} has no counterpart on ${obs.url}`;
        this.replay = { reproduced: false, comparability: 0, detail };
        throw new ReplayDiverged(detail);
      }
      this.waitsBefore = input.history.length - k;
      return { output: makeAgentOutput(rec.output, [mapped]), actions: [mapped] };
    }
    const c = replayComparability(this.success, this.i, history, obs, this.weights);
    if (c < this.threshold && waited < MAX_REPLAY_WAITS) return wait();
    const reproduced = c >= this.threshold;
    this.replay = {
      reproduced,
      comparability: c,
      detail: reproduced ? '' : `state ${k} replayed at comparability ${c.toFixed(3)} < ${this.threshold}`,
    };
    if (!reproduced) throw new ReplayDiverged(this.replay.detail);
    const mapped = mapAction(this.branch.action, this.branch.from, obs);
    this.applicable = mapped !== null;
    const action = mapped ?? ({ ...this.branch.action, index: missingIndex(obs) } as Action);
    this.branchAction = action;
    this.branchStep = input.history.length;
    const rec = this.success.steps[k];
    return { output: makeAgentOutput(rec.output, [action]), actions: [action] };
  }

  close(): void | Promise<void> {
    // The continuation belongs to the worker, which closes it.
  }
}

/** Everything a branch episode needs besides the browser and the continuation (portable: queue jobs carry it). */
export interface BranchSpec {
  /** The success run, cut after step `i` (the replay never reads further). */
  success: Trajectory;
  i: number;
  /** The action branched on, and the page it was recorded on (to re-target it). */
  action: Action;
  from: Observation;
  threshold: number;
  weights: ComparabilityWeights;
}

/**
 * The agent of a branch episode: replays `spec.success` up to step `i`, checks the state, takes
 * the branch action, then hands over to `continuation`. Used by queue workers; in this process
 * `verifyTargets` builds the same agent.
 */
export function replayBranchAgent(spec: BranchSpec, continuation: Agent): Agent {
  return new ReplayBranchAgent(
    spec.success,
    spec.i,
    { action: spec.action, from: spec.from },
    continuation,
    spec.threshold,
    spec.weights,
  );
}

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

/**
 * Reads a branch result off a branch episode run elsewhere, by the same rules the in-process agent
 * applies: a run that stopped before step `i` with the replay-diverged detail did not reproduce; a
 * run that went past `i` reproduced (the agent checked it), and its comparability and re-targeted
 * action are recomputed from the recorded steps. Throws for a run that broke before step `i` for
 * another reason (a browser error): not a result, the branch is retried.
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
    return {
      key: job.key,
      reproduced: false,
      comparability: 0,
      detail: trajectory.endDetail.slice(at + REPLAY_DIVERGED.length),
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
// Targets: the miner's states and the two baselines on the same pairs
// ---------------------------------------------------------------------------------------------

function positionOf(t: Trajectory, stepIndex: number): number {
  const p = t.steps.findIndex((s) => s.index === stepIndex);
  return p;
}

/**
 * The miner's critical states as targets. States whose runs are not among `trajectories` (or whose
 * task is not a world task) are returned in `skipped` with the reason.
 */
export function minerTargets(
  states: readonly CriticalState[],
  trajectories: ReadonlyMap<string, Trajectory>,
): { targets: VerifyTarget[]; skipped: Array<{ id: string; reason: string }> } {
  const targets: VerifyTarget[] = [];
  const skipped: Array<{ id: string; reason: string }> = [];
  for (const cs of states) {
    if (cs.task.suite !== 'world') {
      skipped.push({ id: cs.id, reason: `suite ${cs.task.suite}: only world tasks can be replayed` });
      continue;
    }
    const success = trajectories.get(cs.success.trajectoryId);
    const failure = trajectories.get(cs.failure.trajectoryId);
    if (!success || !failure) {
      skipped.push({ id: cs.id, reason: 'a trajectory of its pair is not in the runs read' });
      continue;
    }
    const i = positionOf(success, cs.success.stepIndex);
    const j = positionOf(failure, cs.failure.stepIndex);
    if (i < 0 || j < 0) {
      skipped.push({ id: cs.id, reason: 'its step is not in the stored trajectory' });
      continue;
    }
    targets.push({
      method: 'miner',
      id: cs.id,
      stateId: cs.id,
      success,
      i,
      failure,
      j,
      label: cs.label,
      site: cs.task.site,
    });
  }
  return { targets, skipped };
}

/** Shared positions (k < both lengths) where the two runs' actions differ. */
function differingSteps(s: Trajectory, f: Trajectory): number[] {
  const out: number[] = [];
  const n = Math.min(s.steps.length, f.steps.length);
  for (let k = 0; k < n; k++) {
    const a = s.steps[k];
    const b = f.steps[k];
    if (!actionsEquivalent(a.action, b.action, a.observation, b.observation)) out.push(k);
  }
  return out;
}

/**
 * The two baselines on each miner target's pair: `first-diff`, the first step where the two runs'
 * actions differ; `random`, a seeded random step shared by both runs (among those where the actions
 * differ: at a step where both runs did the same thing the two branches are one, so it could never be
 * confirmed and would only make the baseline look worse). Both branch at step k of both runs.
 */
export function baselineTargets(miner: readonly VerifyTarget[], seed = 0): VerifyTarget[] {
  const out: VerifyTarget[] = [];
  for (const t of miner) {
    const diffs = differingSteps(t.success, t.failure);
    if (diffs.length === 0) continue;
    const first = diffs[0];
    out.push({ ...t, method: 'first-diff', id: `${t.id}:first-diff`, i: first, j: first });
    const k = new Rng(`verify-random:${seed}:${t.id}`).pick(diffs);
    out.push({ ...t, method: 'random', id: `${t.id}:random`, i: k, j: k });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running branches
// ---------------------------------------------------------------------------------------------

/** One distinct branch to run: replay `success` to step `i`, take `action` (recorded on `from`). */
export interface BranchJob {
  key: string;
  success: Trajectory;
  i: number;
  action: Action;
  from: Observation;
}

function successKey(policy: string, t: VerifyTarget): string {
  return `${policy}|s|${t.success.id}|${t.i}`;
}

function failureKey(policy: string, t: VerifyTarget): string {
  return `${policy}|f|${t.success.id}|${t.i}|${t.failure.id}|${t.j}`;
}

async function runBranch(
  job: BranchJob,
  env: EpisodeEnv,
  continuation: Agent,
  opts: LocalBranchRunner & VerifyCommon,
  weights: ComparabilityWeights,
): Promise<BranchResult> {
  const t0 = performance.now();
  const threshold = opts.replayThreshold ?? DEFAULT_REPLAY_THRESHOLD;
  const agent = new ReplayBranchAgent(
    job.success,
    job.i,
    { action: job.action, from: job.from },
    continuation,
    threshold,
    weights,
  );
  const maxSteps = Math.max(opts.maxSteps ?? 30, job.i + 1);
  const trajectory = await runEpisode({
    agent,
    env,
    task: job.success.task,
    notes: opts.notesFor(job.success.task),
    maxSteps,
    start: opts.start,
    // A replay that diverged is not judged: the branch never happened.
    verify: async (t) =>
      agent.replay?.reproduced
        ? opts.verify(t)
        : { success: false, score: 0, reason: 'not run', verifierId: 'none', failedConditions: [] },
    perturb: job.success.perturbSeed ?? 0,
    tags: ['verify'],
    signal: opts.signal,
  });
  const wallMs = Math.round(performance.now() - t0);
  if (trajectory.endReason === 'aborted') throw new Error('aborted');
  const replay = agent.replay;
  if (!replay) {
    // The episode ended before the state was reached (an agent or browser error on the way).
    throw new Error(`branch ended before step ${job.i}: ${trajectory.endReason} (${trajectory.endDetail})`);
  }
  if (!replay.reproduced || !agent.branchAction) {
    return { key: job.key, ...replay, branch: null, wallMs };
  }
  const after = trajectory.steps.slice(agent.branchStep);
  const verdict = trajectory.verdict;
  return {
    key: job.key,
    ...replay,
    branch: {
      action: agent.branchAction,
      applicable: agent.applicable,
      success: verdict?.success ?? false,
      score: verdict?.score ?? 0,
      reason: verdict?.reason ?? '',
      endReason: trajectory.endReason,
      steps: after.map((s) => ({ url: s.observation.url, action: formatAction(s.action) })),
      wallMs,
    },
    wallMs,
  };
}

function labelFor(s: BranchResult, f: BranchResult): { label: VerificationLabel; reason: string } {
  if (!s.reproduced || !f.reproduced || !s.branch || !f.branch)
    return {
      label: 'replay-failed',
      reason: (s.reproduced ? f.detail : s.detail) || 'the prefix did not reproduce',
    };
  const ok = s.branch.success;
  const bad = f.branch.success;
  if (ok && !bad)
    return {
      label: 'confirmed',
      reason: 'the success action leads to success and the failure action to failure',
    };
  if (ok && bad)
    return {
      label: 'not-causal',
      reason: f.branch.applicable
        ? 'both branches succeed: the continuation recovers from the failure action'
        : 'both branches succeed: the failure action has no counterpart on this page',
    };
  if (!ok && !bad)
    return { label: 'not-causal', reason: 'both branches fail: the continuation cannot finish from here' };
  return { label: 'not-causal', reason: 'only the failure branch succeeds' };
}

/**
 * Verifies targets: runs each distinct branch once (the success branch of a state is shared by every
 * method that picks it), `workers` at a time, skipping branches already in the journal, then labels
 * every target from its two branches. Results come back in target order.
 */
export async function verifyTargets(
  targets: readonly VerifyTarget[],
  opts: VerifyOptions,
): Promise<{ results: VerifiedTarget[]; episodes: number; wallMs: number; fromJournal: number }> {
  const weights: ComparabilityWeights = { ...DEFAULT_COMPARABILITY_WEIGHTS, ...opts.weights };
  const policy = opts.policyId;
  const jobs = new Map<string, BranchJob>();
  for (const t of targets) {
    const sk = successKey(policy, t);
    if (!jobs.has(sk)) {
      const step = t.success.steps[t.i];
      jobs.set(sk, { key: sk, success: t.success, i: t.i, action: step.action, from: step.observation });
    }
    const fk = failureKey(policy, t);
    if (!jobs.has(fk)) {
      const step = t.failure.steps[t.j];
      jobs.set(fk, { key: fk, success: t.success, i: t.i, action: step.action, from: step.observation });
    }
  }
  const done = new Map<string, BranchResult>();
  const errors = new Map<string, string>();
  let fromJournal = 0;
  const pending: BranchJob[] = [];
  for (const job of jobs.values()) {
    const saved = opts.journal?.get(job.key);
    if (saved) {
      done.set(job.key, saved);
      fromJournal++;
    } else pending.push(job);
  }
  let finished = done.size;
  opts.onProgress?.(finished, jobs.size);
  let episodes = 0;
  const started = performance.now();
  /** Runs one job with retries; records it done, or its error. */
  const attempt = async (run: () => Promise<BranchResult>, job: BranchJob, reopen: () => Promise<void>) => {
    for (let n = 0; ; n++) {
      try {
        const r = await run();
        episodes++;
        done.set(job.key, r);
        opts.journal?.put(r);
        return;
      } catch (e) {
        if (opts.signal?.aborted) return;
        if (n < (opts.retries ?? 1)) {
          await reopen();
          continue;
        }
        errors.set(job.key, (e as Error).message);
        opts.onError?.(job.key, e as Error);
        return;
      }
    }
  };
  const remote = 'runBranch' in opts ? opts.runBranch : null;
  const local = 'runBranch' in opts ? null : opts;
  const worker = async () => {
    if (remote) {
      for (;;) {
        if (opts.signal?.aborted) return;
        const job = pending.shift();
        if (!job) return;
        await attempt(
          () => remote(job),
          job,
          async () => {},
        );
        if (opts.signal?.aborted) return;
        opts.onProgress?.(++finished, jobs.size);
      }
    }
    const l = local!;
    let env = await l.makeEnv();
    const agent = await l.makeAgent();
    try {
      for (;;) {
        if (opts.signal?.aborted) return;
        const job = pending.shift();
        if (!job) return;
        await attempt(
          () => runBranch(job, env, agent, { ...opts, ...l }, weights),
          job,
          async () => {
            await env.close().catch(() => {});
            env = await l.makeEnv();
          },
        );
        if (opts.signal?.aborted) return;
        opts.onProgress?.(++finished, jobs.size);
      }
    } finally {
      await env.close().catch(() => {});
      await agent.close?.();
    }
  };
  // Nothing to run (all journaled, or no targets): open no browser at all.
  if (pending.length)
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(opts.workers ?? 2, pending.length)) }, worker),
    );
  const wallMs = Math.round(performance.now() - started);

  const now = new Date().toISOString();
  const results: VerifiedTarget[] = [];
  for (const t of targets) {
    const s = done.get(successKey(policy, t));
    const f = done.get(failureKey(policy, t));
    const notes = opts.notesFor(t.success.task).length;
    const common = {
      policy,
      notes,
      ...(opts.worldSeed !== undefined ? { worldSeed: opts.worldSeed } : {}),
      perturbSeed: t.success.perturbSeed ?? 0,
      verifiedAt: now,
    };
    if (!s || !f) {
      const why = errors.get(successKey(policy, t)) ?? errors.get(failureKey(policy, t)) ?? 'not run';
      results.push({
        target: t,
        errored: true,
        verification: {
          ...common,
          label: 'replay-failed',
          reason: `a branch could not run: ${why}`,
          replay: {
            reproduced: false,
            comparability: 0,
            threshold: opts.replayThreshold ?? DEFAULT_REPLAY_THRESHOLD,
            detail: why,
          },
          success: s?.branch ?? null,
          failure: f?.branch ?? null,
          episodes: 0,
          wallMs: 0,
        },
      });
      continue;
    }
    const { label, reason } = labelFor(s, f);
    const replayed = s.reproduced ? f : s;
    results.push({
      target: t,
      errored: false,
      verification: {
        ...common,
        label,
        reason,
        replay: {
          reproduced: s.reproduced && f.reproduced,
          comparability: Math.min(s.comparability, f.comparability),
          threshold: opts.replayThreshold ?? DEFAULT_REPLAY_THRESHOLD,
          detail: replayed.detail,
        },
        success: s.branch,
        failure: f.branch,
        episodes: 2,
        wallMs: s.wallMs + f.wallMs,
      },
    });
  }
  return { results, episodes, wallMs, fromJournal };
}

/** A stable id for a baseline state, so records never collide with the miner's. */
export function targetStateId(t: VerifyTarget): string {
  return t.method === 'miner' ? t.id : stableId('cs', t.method, t.success.id, t.i, t.failure.id, t.j);
}
