import { randomBytes } from 'node:crypto';
import type { AgentInput } from '../agent/agent.ts';
import { HeuristicAgent } from '../agent/heuristic/heuristic-agent.ts';
import { type BrowserEnv, captureScreenshot } from '../browser/index.ts';
import { RmswebError } from '../core/errors.ts';
import type { Observation } from '../core/observation.ts';
import type { Task } from '../core/task.ts';
import { startWorldEpisode } from '../world/episode.ts';
import { CriticalReplayAgent, type ReplayableState } from './critical.ts';
import { type End, EpisodeAbandoned, EpisodeRun, RemoteAgent, type Turn } from './episode-run.ts';
import {
  fromAction,
  type InfraError,
  ProtocolError,
  parseWireAction,
  ResetOptions,
  type SessionState,
  type StepInfo,
  type StepResult,
  toAction,
  type WireAction,
  wireObservation,
} from './protocol.ts';
import type { EnvRuntime, WorldHandle } from './runtime.ts';

/**
 * One protocol session: one browser context, reused from episode to episode under BrowserEnv's
 * tested reset isolation (no cookie, storage, tab or history survives a reset), and at most one
 * episode at a time. A reset abandons the episode in progress.
 */

/** Step budget of an episode whose reset names none (the collection's). */
export const DEFAULT_ENV_MAX_STEPS = 30;

export interface SessionOptions {
  /** Default step budget (a reset's `max_steps` overrides it). */
  maxSteps?: number;
  /** How long the episode loop waits for the client's next action before it ends the episode (ms). */
  decisionTimeoutMs?: number;
}

interface EpisodeContext {
  id: string;
  task: Task;
  maxSteps: number;
  screenshot: boolean;
  expert: HeuristicAgent | null;
  critical: CriticalReplayAgent | null;
  steps: number;
  done: boolean;
  last: Observation | null;
}

/** An infrastructure failure's kind, from the error the episode could not run past. */
export function classifyInfraError(e: unknown): InfraError {
  const message = e instanceof Error ? e.message : String(e);
  const code = RmswebError.isInstance(e) ? e.code : '';
  if (code === 'TARGET_CLOSED' || code === 'BROWSER_LAUNCH' || code === 'BROWSER_CONNECT')
    return { kind: 'browser', message };
  if (
    /Target (page, context or browser )?(has been )?closed|browser has been closed|Browser closed/i.test(
      message,
    )
  )
    return { kind: 'browser', message };
  if (code === 'NAVIGATION') return { kind: 'navigation', message };
  if (code === 'VERIFY') return { kind: 'world', message };
  return { kind: 'internal', message };
}

export class EnvSession {
  readonly id = `env_${randomBytes(6).toString('hex')}`;
  lastActivity = Date.now();
  private env: BrowserEnv | null = null;
  private envOrigin = '';
  private run: EpisodeRun | null = null;
  private episode: EpisodeContext | null = null;
  private episodes = 0;
  private closed = false;
  private inFlight = 0;
  private readonly maxSteps: number;
  private readonly decisionTimeoutMs: number;

  constructor(
    private readonly runtime: EnvRuntime,
    o: SessionOptions = {},
  ) {
    this.maxSteps = o.maxSteps ?? DEFAULT_ENV_MAX_STEPS;
    this.decisionTimeoutMs = o.decisionTimeoutMs ?? 600_000;
  }

  /** Starts an episode (abandoning any in progress) and returns its first observation. */
  reset(raw: unknown): Promise<StepResult> {
    return this.working(() => this.startEpisode(raw));
  }

  /** Takes one action of the episode in progress. */
  step(raw: unknown): Promise<StepResult> {
    return this.working(() => this.takeStep(raw));
  }

  /** Runs one request, marked busy so the reaper leaves the session alone while it runs. */
  private async working<T>(f: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.lastActivity = Date.now();
    try {
      return await f();
    } finally {
      this.inFlight--;
      this.lastActivity = Date.now();
    }
  }

  private async startEpisode(raw: unknown): Promise<StepResult> {
    const parsed = ResetOptions.safeParse(raw ?? {});
    if (!parsed.success)
      throw new ProtocolError('VALIDATION_ERROR', `invalid reset: ${parsed.error.issues[0]?.message}`, {
        errors: parsed.error.issues.map((i) => ({ loc: i.path.map(String), msg: i.message })),
      });
    const o = parsed.data;
    await this.stopEpisode();
    const state = o.critical_state_id ? this.criticalState(o.critical_state_id) : null;
    const world = await this.runtime.world(o.world_seed ?? state?.worldSeed ?? this.runtime.worldSeed);
    const task = state ? state.success.task : this.pickTask(world, o);
    const n = this.episodes++;
    const remote = new RemoteAgent();
    const expert = o.expert ? new HeuristicAgent() : null;
    if (expert) remote.onReset = (t) => expert.reset(t);
    const critical = state ? new CriticalReplayAgent(state, remote) : null;
    const maxSteps = (o.max_steps ?? this.maxSteps) + (state?.i ?? 0);
    this.episode = {
      id: o.episode_id ?? `${this.id}:${n}`,
      task,
      maxSteps,
      screenshot: o.screenshot,
      expert,
      critical,
      steps: 0,
      done: false,
      last: null,
    };
    try {
      await this.ensureEnv(world);
    } catch (e) {
      return this.finish({ kind: 'end', trajectory: null, error: e });
    }
    const env = this.env!;
    this.run = new EpisodeRun(remote, critical ?? remote, {
      env,
      task,
      maxSteps,
      stepTimeoutMs: this.decisionTimeoutMs,
      start: (e, t, ctx) => startWorldEpisode(e, t, world.origin, undefined, { perturb: ctx?.perturb }),
      verify: world.verify,
      perturb: state ? (state.success.perturbSeed ?? 0) : (o.perturbation_seed ?? 0),
      tags: ['env'],
    });
    return this.answer(await this.run.next());
  }

  private async takeStep(raw: unknown): Promise<StepResult> {
    const wire = parseWireAction(raw);
    const run = this.run;
    if (!run || !this.episode || this.episode.done || !run.remote.waiting)
      throw new ProtocolError(
        'EXECUTION_ERROR',
        this.episode?.done
          ? 'the episode is over: send reset to start another'
          : 'no episode: send reset first',
      );
    this.episode.steps++;
    return this.answer(await run.step(toAction(wire)));
  }

  /** OpenEnv's state: the episode id and the number of steps the client took in it. */
  state(): SessionState {
    const e = this.episode;
    return {
      episode_id: e?.id ?? null,
      step_count: e?.steps ?? 0,
      task_id: e?.task.id ?? null,
      done: e?.done ?? false,
      critical_state_id: e?.critical ? (e.critical.report?.critical_state_id ?? null) : null,
    };
  }

  /** The session's browser page (tests check isolation on it; agents act through step). */
  get page(): import('playwright-core').Page | null {
    try {
      return this.env?.page ?? null;
    } catch {
      return null;
    }
  }

  /** Whether the session is inside a reset or a step (the reaper leaves it alone). */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Ends the episode and frees the browser context. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopEpisode();
    await this.env?.close().catch(() => {});
    this.env = null;
  }

  private criticalState(id: string): ReplayableState {
    const store = this.runtime.critical;
    if (!store)
      throw new ProtocolError(
        'VALIDATION_ERROR',
        'critical_state_id needs a server started with --critical FILE',
      );
    const s = store.states.get(id);
    if (s) return s;
    const why = store.skipped.find((x) => x.id === id)?.reason;
    throw new ProtocolError(
      'VALIDATION_ERROR',
      why ? `critical state ${id} cannot be replayed: ${why}` : `no critical state ${id} in ${store.file}`,
    );
  }

  private pickTask(world: WorldHandle, o: ResetOptions): Task {
    if (o.task_id) {
      const t = world.byId.get(o.task_id);
      if (!t)
        throw new ProtocolError(
          'VALIDATION_ERROR',
          `no world task "${o.task_id}" under world seed ${world.seed}`,
        );
      return t;
    }
    const split = o.split ?? 'train';
    const pool = world.tasks.filter((t) => t.split === split);
    // No task named: the seed (else the session's episode count) picks one, so every choice is seeded.
    const k = o.index ?? o.seed ?? this.episodes;
    return pool[k % pool.length];
  }

  /** The session's env, replaced when its browser died or the episode needs another world's origin. */
  private async ensureEnv(world: WorldHandle): Promise<void> {
    if (this.env && this.runtime.browserUp && this.envOrigin === world.origin) return;
    const old = this.env;
    this.env = null;
    await old?.close().catch(() => {});
    this.env = await this.runtime.newEnv(world);
    this.envOrigin = world.origin;
  }

  private async stopEpisode(): Promise<void> {
    const run = this.run;
    this.run = null;
    if (run) await run.stop();
  }

  private async answer(r: Turn | End): Promise<StepResult> {
    if (r.kind === 'end') return this.finish(r);
    const e = this.episode!;
    e.last = r.input.observation;
    const [screenshot, expert] = await Promise.all([this.screenshot(e), this.expertAction(e, r.input)]);
    return {
      observation: wireObservation(r.input.observation, {
        goal: e.task.objective,
        step: e.steps,
        maxSteps: e.maxSteps - (e.critical?.replayed ?? 0),
        screenshot,
        expert,
        info: this.info(e),
      }),
      reward: 0,
      done: false,
    };
  }

  private finish(r: End): StepResult {
    const e = this.episode!;
    e.done = true;
    const info = this.info(e);
    let reward: number | null = null;
    const t = r.trajectory;
    const replay = e.critical?.report;
    if (r.error && !(r.error instanceof EpisodeAbandoned)) {
      info.infra_error = classifyInfraError(r.error);
      // A context of a browser that died is of no use to the next episode.
      if (info.infra_error.kind === 'browser') {
        void this.env?.close().catch(() => {});
        this.env = null;
      }
    } else if (t) {
      info.end_reason = t.endReason;
      // A replay that did not reach the state ran no episode of the client's: nothing to score.
      if (replay && !replay.matched) info.end_reason = 'replay_failed';
      else if (t.verdict) {
        reward = t.verdict.success ? 1 : 0;
        info.verdict = {
          success: t.verdict.success,
          score: t.verdict.score,
          reason: t.verdict.reason,
          verifier: t.verdict.verifierId,
        };
      }
    }
    return {
      observation: wireObservation(e.last, {
        goal: e.task.objective,
        step: e.steps,
        maxSteps: e.maxSteps - (e.critical?.replayed ?? 0),
        screenshot: null,
        expert: null,
        info,
      }),
      reward,
      done: true,
    };
  }

  private info(e: EpisodeContext): StepInfo {
    return {
      episode_id: e.id,
      task_id: e.task.id,
      ...(e.critical?.report ? { replay: e.critical.report } : {}),
    };
  }

  private async screenshot(e: EpisodeContext): Promise<string | null> {
    if (!e.screenshot || !this.env) return null;
    try {
      return (await captureScreenshot(this.env.page, { quality: 60 }, 5_000)).data;
    } catch {
      // A page between two documents has no frame to capture: the observation goes without one.
      return null;
    }
  }

  private async expertAction(e: EpisodeContext, input: AgentInput): Promise<WireAction | null> {
    if (!e.expert) return null;
    const d = await e.expert.act(input);
    return d.actions[0] ? fromAction(d.actions[0]) : null;
  }
}
