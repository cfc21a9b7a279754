import type { HistoryEntry } from '../agent/agent.ts';
import { lmReplyText, renderLmObservation } from '../agent/lm-prompt.ts';
import { isGiveUp } from '../core/action.ts';
import {
  type AgentOutput,
  agentView,
  type Observation,
  renderNote,
  type Trajectory,
  toBrowserUse,
} from '../core/index.ts';
import type { RunStore, TrajectoryFilter } from '../store/index.ts';
import { NoteScrubber } from './note-scrub.ts';
import { stepMessages } from './prompt.ts';

/** One supervised example, independent of any trainer's file format. */
export interface SftExample {
  /** `<trajectoryId>:<stepIndex>`. */
  id: string;
  trajectoryId: string;
  taskId: string;
  site: string;
  stepIndex: number;
  system: string;
  /** The user message; ends with IMAGE_SLOT when `imageHash` is set. */
  user: string;
  /** Content address of the step's screenshot in the run store, or null. */
  imageHash: string | null;
  /** The assistant turn: the step's AgentOutput as JSON, note-scrubbed, with the executed action. */
  assistant: string;
}

export interface FlattenOptions {
  /** Reflection notes to strip besides those recorded on the trajectory (e.g. the task's reflections). */
  extraNotes?: string[];
  /**
   * The prompt layout: the LLM agent's Browser Use prompt with the whole AgentOutput as the target
   * (default), or the compact layout of a language-model student (src/agent/lm-prompt.ts) within
   * `promptTokens`, with the executed action alone as the target and no screenshot.
   */
  layout?: { kind: 'browser-use' } | { kind: 'lm'; promptTokens: number };
}

export interface FlattenResult {
  examples: SftExample[];
  /** Steps dropped whole because note text survived in agent-written text or action arguments. */
  droppedNoteLeak: number;
  /**
   * Relabelled steps left out because the expert's label was to give up (`done` with success
   * false; `relabeled` only).
   */
  droppedGiveUp: number;
}

/** Every note an attempt could have seen: the trajectory's, each observation's, and extras. */
export function visibleNotes(t: Trajectory, extra: readonly string[] = []): string[] {
  const all = new Set<string>([...t.notes, ...extra]);
  for (const s of t.steps) for (const n of s.observation.notes) all.add(n);
  return [...all];
}

/** An observation with its agent-written fields scrubbed and its notes removed. */
export function scrubObservation(o: Observation, scrub: NoteScrubber): Observation {
  return { ...o, memory: scrub.scrub(o.memory), progress: scrub.scrub(o.progress), notes: [] };
}

/**
 * A trajectory's steps as the agent's history entries, under the note-stripping rule: agent text
 * scrubbed, notes removed, and only the executed action kept as the output's action (later
 * actions of a multi-action output never ran, so they are not a verified target).
 */
export function scrubbedHistory(t: Trajectory, scrub: NoteScrubber): HistoryEntry[] {
  return t.steps.map((s) => {
    const o = s.output;
    const thinking = o.thinking !== undefined ? scrub.scrub(o.thinking) : undefined;
    const output: AgentOutput = {
      ...(thinking ? { thinking } : {}),
      evaluation_previous_goal: scrub.scrub(o.evaluation_previous_goal),
      memory: scrub.scrub(o.memory),
      next_goal: scrub.scrub(o.next_goal),
      action: [toBrowserUse(s.action)] as AgentOutput['action'],
    };
    return {
      stepIndex: s.index,
      url: s.observation.url,
      observation: scrubObservation(s.observation, scrub),
      output,
      action: s.action,
      result: s.result,
    };
  });
}

/** Agent-written strings of a prompt and target: what the last-guard leak check looks at. */
function agentText(observation: Observation, history: HistoryEntry[], output?: AgentOutput): string[] {
  return [
    observation.memory,
    observation.progress,
    ...(output ? [JSON.stringify(output)] : []),
    ...history.map((h) => JSON.stringify(h.output)),
  ];
}

/**
 * The prompt (system + user) for step `stepIndex` of `t` under the note-stripping rule, plus the
 * scrubbed target output. `observation` overrides the step's own (a critical state's copy).
 */
export function stepPrompt(
  t: Trajectory,
  stepIndex: number,
  opts: FlattenOptions & {
    scrubber?: NoteScrubber;
    history?: HistoryEntry[];
    observation?: Observation;
  } = {},
): { system: string; user: string; output: AgentOutput; agentText: string[]; imageHash: string | null } {
  const scrub = opts.scrubber ?? new NoteScrubber(visibleNotes(t, opts.extraNotes));
  const all = opts.history ?? scrubbedHistory(t, scrub);
  const observation = opts.observation
    ? scrubObservation(opts.observation, scrub)
    : all[stepIndex].observation;
  const history = all.slice(0, stepIndex);
  const output = all[stepIndex].output;
  if (opts.layout?.kind === 'lm') {
    const r = renderLmObservation(
      { task: agentView(t.task), observation, history },
      opts.layout.promptTokens,
    );
    return {
      system: r.system,
      user: r.user,
      output,
      agentText: agentText(observation, history, output),
      imageHash: null,
    };
  }
  const imageHash = observation.screenshot?.hash ?? null;
  const { system, user } = stepMessages({
    task: agentView(t.task),
    observation,
    history,
    withImage: imageHash !== null,
  });
  return { system, user, output, agentText: agentText(observation, history, output), imageHash };
}

/**
 * One example per step of `t` (callers pass verified successes only). With `relabeled`, one per
 * step that holds an expert's label (`rollout --relabel`, DAgger): the prompt is the state the
 * agent reached with its own history, the target the expert's action; steps without a label are
 * left out, and so are the expert's give-ups (`done` with success false). The heuristic teacher gives
 * up where its rules find nothing to do, often on a page the student strayed to; a student that
 * copied that would end its episode as a failure, so it is no label, as in the tfjs student's
 * DAgger (src/policy/step-label.ts). Only the lm layout takes it, since its target is the action alone.
 */
export function flattenTrajectory(
  t: Trajectory,
  opts: FlattenOptions & { relabeled?: boolean } = {},
): FlattenResult {
  const scrubber = new NoteScrubber(visibleNotes(t, opts.extraNotes));
  const history = scrubbedHistory(t, scrubber);
  const examples: SftExample[] = [];
  let droppedNoteLeak = 0;
  let droppedGiveUp = 0;
  for (let i = 0; i < t.steps.length; i++) {
    const label = opts.relabeled ? t.steps[i].expertAction : t.steps[i].action;
    if (!label) continue;
    if (opts.relabeled && isGiveUp(label)) {
      droppedGiveUp++;
      continue;
    }
    const p = stepPrompt(t, i, { scrubber, history, layout: opts.layout });
    if (p.agentText.some((x) => scrubber.leaks(x))) {
      droppedNoteLeak++;
      continue;
    }
    examples.push({
      id: `${t.id}:${t.steps[i].index}`,
      trajectoryId: t.id,
      taskId: t.task.id,
      site: t.task.site,
      stepIndex: t.steps[i].index,
      system: p.system,
      user: p.user,
      imageHash: p.imageHash,
      assistant: opts.layout?.kind === 'lm' ? lmReplyText(label) : JSON.stringify(p.output),
    });
  }
  return { examples, droppedNoteLeak, droppedGiveUp };
}

/** Notes of all reflections the store holds for a task, rendered as they were injected. */
export function reflectionNotes(store: RunStore, taskId: string): string[] {
  return store.listReflections(taskId).flatMap((r) => [r.text, renderNote(r)]);
}

/**
 * Walks the trajectories of several run stores that match `filter`, in order, one in memory at a
 * time, skipping ids already seen in an earlier store.
 */
export function* storeTrajectories(
  stores: RunStore[],
  filter: TrajectoryFilter,
): Generator<{ store: RunStore; trajectory: Trajectory }> {
  const seen = new Set<string>();
  for (const store of stores) {
    for (const s of store.listTrajectorySummaries(filter)) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      const trajectory = store.getTrajectory(s.id);
      if (trajectory) yield { store, trajectory };
    }
  }
}

/** The verified successes (verdict.success true) of several run stores: {@link storeTrajectories}. */
export function successfulTrajectories(
  stores: RunStore[],
): Generator<{ store: RunStore; trajectory: Trajectory }> {
  return storeTrajectories(stores, { success: true });
}

/** For states whose trajectory is not at hand: history entries from the actions alone. */
export function actionOnlyHistory(
  actions: HistoryEntry['action'][],
  observation: Observation,
): HistoryEntry[] {
  return actions.map((action, i) => ({
    stepIndex: i,
    url: observation.url,
    observation,
    output: {
      evaluation_previous_goal: '',
      memory: '',
      next_goal: '',
      action: [toBrowserUse(action)] as AgentOutput['action'],
    },
    action,
    result: { error: null, isDone: false, success: null, extractedContent: null },
  }));
}
