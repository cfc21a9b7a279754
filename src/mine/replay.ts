import type { Agent, AgentDecision, AgentInput, HistoryEntry } from '../agent/agent.ts';
import {
  type Action,
  type Element,
  elementAt,
  elementsEquivalent,
  formatAction,
  makeAgentOutput,
  normalizeText,
  type Observation,
  type Step,
  type Trajectory,
} from '../core/index.ts';
import { type ComparabilityWeights, comparability } from './comparability.ts';
import { Interner, trajectoryFeatures } from './state-features.ts';

/**
 * Replaying a success run's prefix in a fresh world session: the recorded actions re-targeted to the
 * live page, the state reached checked against the recorded one, then the branch action taken and
 * the episode handed to the continuation policy (see verify.ts for the whole check).
 */

/**
 * Default threshold on the comparability total between the replayed and the recorded state. Higher
 * than the miner's alignment threshold (0.7): these are two visits of one run's own state under the
 * same seeds, not two runs that merely face the same decision.
 */
export const DEFAULT_REPLAY_THRESHOLD = 0.9;

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
 * to the live one). The recorded page is first moved to the live page's origin (`onOrigin`), so a run
 * recorded on another port of the world still matches its links. Null when no element matches.
 */
export function mapAction(action: Action, recorded: Observation, to: Observation): Action | null {
  const from = onOrigin(recorded, to.url);
  if (!('index' in action) || action.index === undefined || action.index === null)
    return rebase(action, recorded, to);
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

/**
 * The recorded page as if served at the live page's origin. The run was recorded on another port of
 * the world, and mine's element matching resolves links against the page URL: a link to the same
 * path would otherwise differ by its port and match nothing.
 */
export function onOrigin(recorded: Observation, liveUrl: string): Observation {
  let origin: string;
  try {
    origin = new URL(liveUrl).origin;
  } catch {
    return recorded;
  }
  const move = (url: string): string => {
    try {
      const u = new URL(url);
      return u.protocol.startsWith('http') ? `${origin}${u.pathname}${u.search}${u.hash}` : url;
    } catch {
      return url;
    }
  };
  return {
    ...recorded,
    url: move(recorded.url),
    tabs: recorded.tabs.map((t) => ({ ...t, url: move(t.url) })),
  };
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
 * message starts with REPLAY_DIVERGED, so the trajectory alone tells a prefix that did not
 * reproduce from an episode that broke (see `branchResultFromTrajectory`).
 */
class ReplayDiverged extends Error {
  constructor(detail: string) {
    super(`${REPLAY_DIVERGED}${detail}`);
  }
}

/** The start of a ReplayDiverged message (and so of the episode's endDetail, after runEpisode's prefix). */
export const REPLAY_DIVERGED = 'replay diverged: ';

const BELOW = /^state \d+ replayed at comparability (\d+(?:\.\d+)?) < /;

/** The detail of a state replayed below the threshold; `divergedComparability` reads the number back. */
function belowThreshold(k: number, c: number, threshold: number): string {
  return `state ${k} replayed at comparability ${c.toFixed(3)} < ${threshold}`;
}

/**
 * The comparability a diverged replay reached, read off its detail: the state it was measured on
 * ends the episode unrecorded, so the trajectory cannot recompute it. 0 for an action that had no
 * counterpart (no state was compared).
 */
export function divergedComparability(detail: string): number {
  const m = BELOW.exec(detail);
  return m ? Number(m[1]) : 0;
}

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
  /** Set once the branch action is taken: every later step is the continuation's. */
  private handedOver = false;
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
    if (this.handedOver || k > this.i) return this.continuation.act(input);
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
        throw new ReplayDiverged(`step ${k}: ${formatAction(rec.action)} has no counterpart on ${obs.url}`);
      }
      this.waitsBefore = input.history.length - k;
      return { output: makeAgentOutput(rec.output, [mapped]), actions: [mapped] };
    }
    const c = replayComparability(this.success, this.i, history, obs, this.weights);
    if (c < this.threshold && waited < MAX_REPLAY_WAITS) return wait();
    if (c < this.threshold) throw new ReplayDiverged(belowThreshold(k, c, this.threshold));
    const mapped = mapAction(this.branch.action, this.branch.from, obs);
    const action = mapped ?? ({ ...this.branch.action, index: missingIndex(obs) } as Action);
    this.handedOver = true;
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
 * the branch action, then hands over to `continuation`. Queue workers and this process's
 * branches (branches.ts) run the same agent.
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
