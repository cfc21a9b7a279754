import { type Action, formatAction } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { ModelApiError, TimeoutError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { Observation } from '../core/observation.ts';
import { agentView, type Task } from '../core/task.ts';
import type { ActionResult, EndReason, Step, Trajectory, Usage, Verdict } from '../core/trajectory.ts';
import type { Agent, HistoryEntry } from './agent.ts';
import { LoopDetector } from './fingerprint.ts';

/** Step budget of an episode unless the caller gives one. */
export const DEFAULT_MAX_STEPS = 30;

/** The part of BrowserEnv the episode loop drives. */
export interface EpisodeEnv {
  reset(
    task: { startUrl: string },
    opts?: { cookies?: Array<{ name: string; value: string; url: string }> },
  ): Promise<Observation>;
  step(action: Action): Promise<Observation>;
  /**
   * How the last `step` split its time, when the environment measures it (BrowserEnv does): the
   * episode records `observeMs` from it and counts the rest of the step as acting.
   */
  readonly lastStepTiming?: { observeMs: number };
}

export interface RunEpisodeOptions {
  agent: Agent;
  env: EpisodeEnv;
  task: Task;
  /** Reflection notes injected into every observation of this attempt. */
  notes?: string[];
  /** Step budget (default DEFAULT_MAX_STEPS). */
  maxSteps?: number;
  /** Deadline for one agent decision, ms (default 120 s). */
  stepTimeoutMs?: number;
  /** The same action on the same page fingerprint this many times ends the episode (default 3). */
  loopK?: number;
  /**
   * Opens the task; default `env.reset({ startUrl: task.startUrl })`. World episodes bind a session
   * here, rendered under `ctx.perturb` (and hand back the perturbation seed they applied).
   */
  start?: (
    env: EpisodeEnv,
    task: Task,
    ctx?: { perturb: number },
  ) => Promise<{ observation: Observation; sessionId?: string; objective?: string; perturb?: number }>;
  /**
   * Asked after every executed action: true when the environment itself says the episode is over
   * (MiniWoB's WOB_DONE_GLOBAL). The episode then ends with reason `done`.
   */
  isTerminal?: (env: EpisodeEnv, sessionId: string | undefined) => Promise<boolean>;
  /** Verifies the finished trajectory (programmatic world verifier or a judge). */
  verify?: (trajectory: Trajectory) => Promise<Verdict>;
  round?: number;
  tags?: string[];
  seed?: number;
  /** World perturbation seed passed to `start` (0 or absent: today's pages). */
  perturb?: number;
  signal?: AbortSignal;
  onStep?: (step: Step) => void;
  /**
   * Relabelling (DAgger): at every step this agent is also asked what it would do, on the same
   * history but with its own notes; its action is recorded as `expertAction` and never executed.
   */
  expert?: { agent: Agent; notes?: string[] };
}

function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    costUsd: a.costUsd + b.costUsd,
    calls: a.calls + b.calls,
  };
}

async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one episode: reset, then observe -> act -> step until done, the step budget, a loop, or an
 * error. A failed browser action never ends the episode: it comes back as lastActionError in the
 * next observation. An agent that throws ends it with reason `error`; a model endpoint that keeps
 * failing (ModelApiError) and a lost browser throw out of the episode instead: the episode could
 * not be run, which is not the agent's failure.
 */
export async function runEpisode(opts: RunEpisodeOptions): Promise<Trajectory> {
  const { agent, env, task } = opts;
  const notes = opts.notes ?? [];
  const maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
  const stepTimeoutMs = opts.stepTimeoutMs ?? 120_000;
  const loops = new LoopDetector(opts.loopK ?? 3);
  const startedAt = new Date().toISOString();
  const steps: Step[] = [];
  const history: HistoryEntry[] = [];
  let usage: Usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 };
  let endReason: EndReason = 'max_steps';
  let endDetail = `reached the step budget of ${maxSteps}`;
  let finalAnswer: string | null = null;
  let sessionId: string | undefined;

  const started: { observation: Observation; sessionId?: string; objective?: string; perturb?: number } =
    opts.start
      ? await opts.start(env, task, { perturb: opts.perturb ?? 0 })
      : { observation: await env.reset({ startUrl: task.startUrl }) };
  // Environments that generate the instruction at start (MiniWoB) hand it back here.
  const episodeTask: Task = started.objective ? { ...task, objective: started.objective } : task;
  const view = agentView(episodeTask);
  await agent.reset?.(view);
  await opts.expert?.agent.reset?.(view);
  let obs = started.observation;
  sessionId = started.sessionId;
  let memory = '';

  for (let i = 0; i < maxSteps; i++) {
    if (opts.signal?.aborted) {
      endReason = 'aborted';
      endDetail = 'aborted';
      break;
    }
    obs = { ...obs, stepIndex: i, memory, notes, progress: `step ${i + 1} of at most ${maxSteps}` };
    const t0 = Date.now();
    let decision: Awaited<ReturnType<Agent['act']>>;
    try {
      decision = await withDeadline(
        agent.act({ task: view, observation: obs, history }),
        stepTimeoutMs,
        `agent ${agent.id} deciding step ${i}`,
      );
    } catch (e) {
      if (opts.signal?.aborted) {
        endReason = 'aborted';
        endDetail = 'aborted';
        break;
      }
      // A model endpoint that stays down after its retries is the infrastructure failing, not the
      // agent: the episode is not recorded as an attempt (callers count it as an error and the next
      // run retries it), so it never reaches pass@1, the reflector or any training set.
      if (ModelApiError.isInstance(e)) throw e;
      endReason = TimeoutError.isInstance(e) ? 'timeout' : 'error';
      endDetail = `agent failed at step ${i}: ${(e as Error).message}`;
      break;
    }
    const modelMs = Date.now() - t0;
    usage = addUsage(usage, decision.usage);
    const action = decision.actions[0];
    let expertAction: Action | undefined;
    if (opts.expert) {
      // Asked on the observation the agent saw, before its action changes the page.
      const d = await withDeadline(
        opts.expert.agent.act({
          task: view,
          observation: { ...obs, notes: opts.expert.notes ?? [] },
          history,
        }),
        stepTimeoutMs,
        `expert ${opts.expert.agent.id} labelling step ${i}`,
      );
      expertAction = d.actions[0];
    }
    const t1 = Date.now();
    let result: ActionResult;
    let next: Observation;
    let observeMs = 0;
    if (action.type === 'done') {
      finalAnswer = action.text;
      result = { error: null, isDone: true, success: action.success, extractedContent: action.text };
      next = obs;
    } else {
      next = await env.step(action);
      observeMs = Math.round(env.lastStepTiming?.observeMs ?? 0);
      result = {
        error: next.lastActionError,
        ...(next.lastActionErrorKind ? { errorKind: next.lastActionErrorKind } : {}),
        isDone: false,
        success: null,
        extractedContent: null,
      };
    }
    const stepMs = Date.now() - t1;
    const step: Step = {
      index: i,
      observation: obs,
      output: decision.output ?? makeAgentOutput({}, decision.actions),
      action,
      result,
      timing: { modelMs, actMs: Math.max(0, stepMs - observeMs), observeMs },
      ...(decision.usage ? { usage: decision.usage } : {}),
      ...(decision.logProb !== undefined ? { logProb: decision.logProb } : {}),
      ...(expertAction ? { expertAction } : {}),
      ...(decision.repaired ? { repaired: true } : {}),
    };
    steps.push(step);
    opts.onStep?.(step);
    history.push({ stepIndex: i, url: obs.url, observation: obs, output: step.output, action, result });
    memory = decision.output.memory ?? memory;
    if (action.type === 'done') {
      endReason = 'done';
      endDetail = action.success ? 'agent declared the task done' : 'agent gave up';
      break;
    }
    if (opts.isTerminal && (await opts.isTerminal(env, sessionId))) {
      endReason = 'done';
      endDetail = 'the environment signalled the end of the episode';
      break;
    }
    if (loops.record(obs, action)) {
      endReason = 'loop';
      endDetail = `repeated ${formatAction(action)} on the same page ${opts.loopK ?? 3} times`;
      break;
    }
    obs = next;
  }

  const trajectory: Trajectory = {
    schemaVersion: 1,
    id: newId('traj'),
    task: episodeTask,
    agentId: agent.id,
    round: opts.round ?? 0,
    notes,
    steps,
    finalAnswer,
    endReason,
    endDetail,
    verdict: null,
    usage,
    ...(sessionId ? { sessionId } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(started.perturb ? { perturbSeed: started.perturb } : {}),
    startedAt,
    endedAt: new Date().toISOString(),
    tags: opts.tags ?? [],
  };
  if (opts.verify) trajectory.verdict = await opts.verify(trajectory);
  return trajectory;
}
