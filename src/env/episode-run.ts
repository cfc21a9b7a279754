import type { Agent, AgentDecision, AgentInput } from '../agent/agent.ts';
import { type RunEpisodeOptions, runEpisode } from '../agent/episode.ts';
import type { Action } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import type { AgentTask } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';

/**
 * One episode driven from outside: the episode loop of agent/episode.ts runs in the background
 * with a remote agent, whose every decision waits for the client's next step message. So an
 * episode served over the protocol is the same code path as one collected in process (start,
 * loop detection, step budget, verifier), and a critical-state reset only wraps the remote agent in
 * the replay of the success prefix.
 */

/** What the episode needs besides its agent (the runEpisode options minus agent and signal). */
export type EpisodeSetup = Omit<RunEpisodeOptions, 'agent' | 'signal'>;

/** A turn: the loop asks the remote agent for its next action on this input. */
export interface Turn {
  kind: 'turn';
  input: AgentInput;
}

/** The episode ended: its trajectory (verdict attached), or the error it could not run past. */
export interface End {
  kind: 'end';
  trajectory: Trajectory | null;
  error: unknown;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (v: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Thrown into the loop when the client abandons the episode (a new reset, a closed session). */
export class EpisodeAbandoned extends Error {
  constructor() {
    super('episode abandoned by the client');
  }
}

/** The agent whose decisions come from the client. */
export class RemoteAgent implements Agent {
  readonly id = 'env-client';
  private turn = deferred<AgentInput>();
  private pending: { resolve: (d: AgentDecision) => void; reject: (e: Error) => void } | null = null;
  /** Called on every reset of the episode loop (the expert reads the task here). */
  onReset: ((task: AgentTask) => void | Promise<void>) | null = null;

  reset(task: AgentTask): void | Promise<void> {
    return this.onReset?.(task);
  }

  act(input: AgentInput): Promise<AgentDecision> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.turn.resolve(input);
    });
  }

  /** The next turn's input (resolves when the loop asks). */
  nextInput(): Promise<AgentInput> {
    return this.turn.promise;
  }

  /** Whether the loop is waiting for a decision. */
  get waiting(): boolean {
    return this.pending !== null;
  }

  /** Hands the client's action to the waiting loop. */
  decide(action: Action): void {
    const p = this.pending;
    if (!p) throw new Error('no turn is waiting for an action');
    this.pending = null;
    this.turn = deferred();
    p.resolve({ output: makeAgentOutput({ next_goal: 'client action' }, [action]), actions: [action] });
  }

  /** Fails the waiting decision, which ends the loop (reason error, or aborted under the signal). */
  abandon(): void {
    const p = this.pending;
    this.pending = null;
    p?.reject(new EpisodeAbandoned());
  }
}

/**
 * Runs one episode with `agent` (a RemoteAgent, possibly wrapped by the critical-state replay) in
 * the background; `next()` resolves at the next turn of `remote` or at the end.
 */
export class EpisodeRun {
  private readonly abort = new AbortController();
  readonly finished: Promise<End>;
  private ended: End | null = null;

  constructor(
    readonly remote: RemoteAgent,
    agent: Agent,
    setup: EpisodeSetup,
  ) {
    this.finished = runEpisode({ ...setup, agent, signal: this.abort.signal }).then(
      (trajectory): End => ({ kind: 'end', trajectory, error: null }),
      (error: unknown): End => ({ kind: 'end', trajectory: null, error }),
    );
    void this.finished.then((e) => {
      this.ended = e;
    });
  }

  /** The end, once the loop has finished. */
  get end(): End | null {
    return this.ended;
  }

  /** The next turn, or the end of the episode. */
  next(): Promise<Turn | End> {
    return Promise.race([
      this.remote.nextInput().then((input): Turn => ({ kind: 'turn', input })),
      this.finished,
    ]);
  }

  /** Takes the client's action, then waits for the next turn or the end. */
  step(action: Action): Promise<Turn | End> {
    this.remote.decide(action);
    return this.next();
  }

  /** Ends the episode early and waits for the loop to unwind (its verifier still runs, unread). */
  async stop(): Promise<void> {
    this.abort.abort();
    this.remote.abandon();
    await this.finished;
  }
}
