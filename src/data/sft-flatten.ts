import {
  type AgentOutput,
  type Observation,
  renderNote,
  type Trajectory,
  toBrowserUse,
} from '../core/index.ts';
import type { RunStore } from '../store/index.ts';
import { NoteScrubber } from './note-scrub.ts';
import { type HistoryItem, historyText, systemPrompt, userText } from './prompt.ts';

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
  /** How many previous steps the history shows (default 20). */
  maxHistory?: number;
}

export interface FlattenResult {
  examples: SftExample[];
  /** Steps dropped whole because note text survived in agent-written text or action arguments. */
  droppedNoteLeak: number;
}

/** Every note an attempt could have seen: the trajectory's, each observation's, and extras. */
export function visibleNotes(t: Trajectory, extra: readonly string[] = []): string[] {
  const all = new Set<string>([...t.notes, ...extra]);
  for (const s of t.steps) for (const n of s.observation.notes) all.add(n);
  return [...all];
}

/** The scrubbed per-step texts the prompt and the target are built from. */
interface StepTexts {
  history: HistoryItem;
  output: AgentOutput;
  memory: string;
  progress: string;
}

function scrubbedSteps(t: Trajectory, scrub: NoteScrubber): StepTexts[] {
  return t.steps.map((s) => {
    const o = s.output;
    const thinking = o.thinking !== undefined ? scrub.scrub(o.thinking) : undefined;
    const output: AgentOutput = {
      ...(thinking ? { thinking } : {}),
      evaluation_previous_goal: scrub.scrub(o.evaluation_previous_goal),
      memory: scrub.scrub(o.memory),
      next_goal: scrub.scrub(o.next_goal),
      // Only the executed action is a verified target; later actions of a multi-action output never ran.
      action: [toBrowserUse(s.action)] as AgentOutput['action'],
    };
    return {
      output,
      history: {
        evaluation: output.evaluation_previous_goal,
        memory: output.memory,
        nextGoal: output.next_goal,
        action: s.action,
        result: s.result,
      },
      memory: scrub.scrub(s.observation.memory),
      progress: scrub.scrub(s.observation.progress),
    };
  });
}

/**
 * Builds the prompt (system + user) for step `stepIndex` of `t` under the note-stripping rule,
 * plus the scrubbed target output. Shared by SFT flattening and RL export so both see one prompt.
 */
export function stepPrompt(
  t: Trajectory,
  stepIndex: number,
  opts: FlattenOptions & { scrubber?: NoteScrubber; texts?: StepTexts[]; observation?: Observation } = {},
): { system: string; user: string; output: AgentOutput; agentText: string[]; imageHash: string | null } {
  const scrub = opts.scrubber ?? new NoteScrubber(visibleNotes(t, opts.extraNotes));
  const texts = opts.texts ?? scrubbedSteps(t, scrub);
  // A caller holding its own copy of the step's observation (a critical state) has it rendered.
  const observation = opts.observation ?? t.steps[stepIndex].observation;
  const cur = texts[stepIndex];
  const memory = opts.observation ? scrub.scrub(observation.memory) : cur.memory;
  const progress = opts.observation ? scrub.scrub(observation.progress) : cur.progress;
  const history = texts.slice(0, stepIndex).map((x) => x.history);
  const imageHash = observation.screenshot?.hash ?? null;
  const user = userText({
    objective: t.task.objective,
    history: historyText(history, opts.maxHistory ?? 20),
    observation,
    memory,
    progress,
    withImage: imageHash !== null,
  });
  const agentText = [
    memory,
    progress,
    JSON.stringify(cur.output),
    ...history.map(
      (h) => `${h.evaluation}\n${h.memory}\n${h.nextGoal}\n${JSON.stringify(toBrowserUse(h.action))}`,
    ),
  ];
  return { system: systemPrompt(), user, output: cur.output, agentText, imageHash };
}

/** One example per step of `t` (callers pass verified successes only). */
export function flattenTrajectory(t: Trajectory, opts: FlattenOptions = {}): FlattenResult {
  const scrubber = new NoteScrubber(visibleNotes(t, opts.extraNotes));
  const texts = scrubbedSteps(t, scrubber);
  const examples: SftExample[] = [];
  let droppedNoteLeak = 0;
  for (let i = 0; i < t.steps.length; i++) {
    const p = stepPrompt(t, i, { ...opts, scrubber, texts });
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
      assistant: JSON.stringify(p.output),
    });
  }
  return { examples, droppedNoteLeak };
}

/** Notes of all reflections the store holds for a task, rendered as they were injected. */
export function reflectionNotes(store: RunStore, taskId: string): string[] {
  return store.listReflections(taskId).flatMap((r) => [r.text, renderNote(r)]);
}

/**
 * Walks the verified successes (verdict.success true) of several run stores in order, one
 * trajectory in memory at a time, skipping ids already seen in an earlier store.
 */
export function* successfulTrajectories(
  stores: RunStore[],
): Generator<{ store: RunStore; trajectory: Trajectory }> {
  const seen = new Set<string>();
  for (const store of stores) {
    for (const s of store.listTrajectorySummaries({ success: true })) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      const trajectory = store.getTrajectory(s.id);
      if (trajectory) yield { store, trajectory };
    }
  }
}
