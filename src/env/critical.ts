import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Agent, AgentDecision, AgentInput } from '../agent/agent.ts';
import type { Action } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { CriticalState } from '../core/critical-state.ts';
import { InputError } from '../core/errors.ts';
import type { AgentTask } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import {
  DEFAULT_COMPARABILITY_WEIGHTS,
  DEFAULT_REPLAY_THRESHOLD,
  mapAction,
  REPLAY_DIVERGED,
  replayComparability,
} from '../mine/index.ts';
import { RunStore } from '../store/index.ts';
import type { ReplayReport } from './protocol.ts';

/**
 * Critical-state resets: an episode that starts at a mined state. The state names a step of a
 * verified success run; the success side's actions before it are replayed in a fresh world session
 * under the run's perturbation seed, re-targeted to the live page (mine's `mapAction`), and the page
 * reached is checked against the recorded one by the miner's comparability (`replayComparability`),
 * as `mine --verify` does. The client then acts from that state on.
 */

/** A critical state ready to replay: the success run (cut at the state) and its position in it. */
export interface ReplayableState {
  id: string;
  success: Trajectory;
  /** Position of the state in `success.steps`. */
  i: number;
  /** The world seed the state was verified under, when `mine --verify` recorded one. */
  worldSeed?: number;
}

/** The mined states of a critical.jsonl, with the success runs they were mined from. */
export interface CriticalStore {
  file: string;
  states: Map<string, ReplayableState>;
  /** States that cannot be replayed here, with the reason (a live-web task, a run not found). */
  skipped: Array<{ id: string; reason: string }>;
}

/**
 * The run folders beside a critical file's folder (`<demo>/mined/critical.jsonl` -> `<demo>/collect`,
 * `<demo>/rollout`, ...): where `mine` read the runs, in the layout the demo and the README use.
 */
export function siblingRuns(criticalFile: string): string[] {
  const root = dirname(dirname(criticalFile));
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, d.name, 'store.sqlite')))
    .map((d) => join(root, d.name))
    .sort();
}

/**
 * Reads a critical.jsonl (one CriticalState a line, as `rmsweb mine` writes it) and finds each
 * state's success run in `runs`. A missing file or an invalid line is an input error naming the line.
 */
export function loadCriticalStore(file: string, runs: readonly string[]): CriticalStore {
  if (!existsSync(file)) throw new InputError(`${file} does not exist`, { file, field: '--critical' });
  const states: CriticalState[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, n) => {
      if (!line.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        throw new InputError('not JSON', { file, line: n + 1 });
      }
      const r = CriticalState.safeParse(raw);
      if (!r.success)
        throw new InputError(`not a critical state: ${r.error.issues[0]?.message}`, {
          file,
          line: n + 1,
          field: r.error.issues[0]?.path.join('.'),
        });
      states.push(r.data);
    });
  const wanted = new Set(states.map((s) => s.success.trajectoryId));
  const found = new Map<string, Trajectory>();
  for (const dir of runs) {
    const store = RunStore.open(dir, { create: false, readonly: true });
    try {
      for (const id of wanted) {
        if (found.has(id)) continue;
        const t = store.getTrajectory(id);
        if (t) found.set(id, t);
      }
    } finally {
      store.close();
    }
  }
  const out: CriticalStore = { file, states: new Map(), skipped: [] };
  for (const cs of states) {
    if (cs.task.suite !== 'world') {
      out.skipped.push({ id: cs.id, reason: `suite ${cs.task.suite}: only world tasks can be replayed` });
      continue;
    }
    const success = found.get(cs.success.trajectoryId);
    if (!success) {
      out.skipped.push({
        id: cs.id,
        reason: `its success run ${cs.success.trajectoryId} is not in the runs read`,
      });
      continue;
    }
    const i = success.steps.findIndex((s) => s.index === cs.success.stepIndex);
    if (i < 0) {
      out.skipped.push({ id: cs.id, reason: `step ${cs.success.stepIndex} is not in its success run` });
      continue;
    }
    out.states.set(cs.id, {
      id: cs.id,
      success: { ...success, steps: success.steps.slice(0, i + 1) },
      i,
      ...(cs.verification?.worldSeed !== undefined ? { worldSeed: cs.verification.worldSeed } : {}),
    });
  }
  return out;
}

/** Thrown inside the episode when the prefix does not reproduce: it ends the episode at once. */
class ReplayDiverged extends Error {
  constructor(detail: string) {
    super(`${REPLAY_DIVERGED}${detail}`);
  }
}

/** Waits granted for a recorded element not on the page yet (as `mine --verify` allows: 2). */
const MAX_REPLAY_WAITS = 2;

/**
 * Replays `state.success` up to the state, checks the page reached, then hands every later
 * decision to `client`. `report` is set once the replay is decided; `replayed` counts the episode
 * steps the replay took (its waits included), which the client's step count leaves out.
 */
export class CriticalReplayAgent implements Agent {
  readonly id: string;
  report: ReplayReport | null = null;
  replayed = 0;
  private waits = 0;
  private readonly weights = { ...DEFAULT_COMPARABILITY_WEIGHTS };

  constructor(
    private readonly state: ReplayableState,
    private readonly client: Agent,
    private readonly threshold = DEFAULT_REPLAY_THRESHOLD,
  ) {
    this.id = client.id;
  }

  reset(task: AgentTask): void | Promise<void> {
    return this.client.reset?.(task);
  }

  async act(input: AgentInput): Promise<AgentDecision> {
    if (this.report) return this.client.act(input);
    const { success, i } = this.state;
    const recorded = input.history.filter((h) => h.output.next_goal !== WAIT_GOAL);
    const k = recorded.length;
    const obs = input.observation;
    const wait = (): AgentDecision => {
      this.waits++;
      this.replayed++;
      const a: Action = { type: 'wait', seconds: 1 };
      return { output: makeAgentOutput({ next_goal: WAIT_GOAL }, [a]), actions: [a] };
    };
    if (k < i) {
      const rec = success.steps[k];
      const mapped = mapAction(rec.action, rec.observation, obs);
      if (!mapped) {
        if (this.waits < MAX_REPLAY_WAITS) return wait();
        return this.diverged(`step ${k}: the recorded action has no counterpart on ${obs.url}`, 0);
      }
      this.waits = 0;
      this.replayed++;
      // The recorded output is replayed too, so the memory the client inherits is the run's.
      return { output: makeAgentOutput(success.steps[k].output, [mapped]), actions: [mapped] };
    }
    const c = replayComparability(success, i, recorded, obs, this.weights);
    if (c < this.threshold && this.waits < MAX_REPLAY_WAITS) return wait();
    if (c < this.threshold)
      return this.diverged(`state ${k} replayed at comparability ${c.toFixed(3)} < ${this.threshold}`, c);
    this.report = {
      critical_state_id: this.state.id,
      matched: true,
      comparability: c,
      threshold: this.threshold,
      steps: i,
      detail: '',
    };
    return this.client.act(input);
  }

  private diverged(detail: string, comparability: number): never {
    this.report = {
      critical_state_id: this.state.id,
      matched: false,
      comparability,
      threshold: this.threshold,
      steps: this.state.i,
      detail,
    };
    throw new ReplayDiverged(detail);
  }
}

/** The `next_goal` of a wait the replay inserted (not a recorded step). */
const WAIT_GOAL = 'replay: waiting for the recorded element to appear';
