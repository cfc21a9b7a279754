import { readFile } from 'node:fs/promises';
import type { Action } from '../core/action.ts';
import { CriticalState } from '../core/critical-state.ts';
import { describeZodIssues, InputError } from '../core/errors.ts';
import type { Observation } from '../core/observation.ts';
import { agentView } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import type { FeaturizerConfig } from '../policy/featurizer.ts';
import { labelStep, type SkipReason } from '../policy/step-label.ts';
import { trajectoryStepState } from '../policy/step-state.ts';
import type { PolicyState } from '../policy/types.ts';
import { RunStore } from '../store/index.ts';

/** One RL training example: a state the policy acts in and the ground-truth action there. */
export interface RlExample {
  /** Critical-state id, or `<trajectoryId>#<step>` in full-corpus mode. */
  id: string;
  state: PolicyState;
  truth: Action;
}

// Reflection notes are injected for the teacher's retry only: no training record may carry them.
function withoutNotes(o: Observation): Observation {
  return o.notes.length ? { ...o, notes: [] } : o;
}

/** The success side of a critical state as an RL example (only the success side enters RL). */
export function criticalStateExample(cs: CriticalState): RlExample {
  return {
    id: cs.id,
    state: {
      task: agentView(cs.task),
      observation: withoutNotes(cs.success.observation),
      history: cs.success.history,
      historyUrls: cs.success.historyUrls,
    },
    truth: cs.success.action,
  };
}

/** What to keep of a critical-states file. */
export interface CriticalFilter {
  /** Only states the causal check (`rmsweb mine --verify`) labelled `confirmed`. */
  confirmedOnly?: boolean;
}

/**
 * The canonical sort key of a critical state: its content (task, label, both sides' step indices
 * and actions, comparability, then the success side's state), never its ids. State and trajectory
 * ids are random per run and the miner's output order follows the store's episode order, so two
 * bases that mined the same states (the same ledger hash) could list them in different orders, and
 * RL, which draws its batches by position, would then train on different batches from one seed.
 */
export function criticalStateKey(cs: CriticalState): string {
  return JSON.stringify([
    cs.task.id,
    cs.label,
    cs.success.stepIndex,
    cs.success.action,
    cs.failure.stepIndex,
    cs.failure.action,
    cs.comparability,
    cs.success.observation,
    cs.success.history,
    cs.success.historyUrls ?? null,
  ]);
}

/** Sorts critical states by {@link criticalStateKey} (stable: equal keys keep their order). */
export function canonicalOrder(states: readonly CriticalState[]): CriticalState[] {
  return states
    .map((cs) => ({ cs, key: criticalStateKey(cs) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((x) => x.cs);
}

/**
 * Parses critical-state JSONL text into RL examples in canonical order ({@link canonicalOrder}),
 * whatever order the file lists them in; errors name the file, the 1-based line and the failing field.
 */
export function parseCriticalStates(
  text: string,
  file = '<input>',
  filter: CriticalFilter = {},
): RlExample[] {
  const states: CriticalState[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not valid JSON (${(e as Error).message})`, { file, line: i + 1 }, e);
    }
    const r = CriticalState.safeParse(json);
    if (!r.success) {
      throw new InputError(`not a critical state: ${describeZodIssues(r.error.issues)}`, {
        file,
        line: i + 1,
        field: r.error.issues[0]?.path.join('.') || undefined,
      });
    }
    if (filter.confirmedOnly && r.data.verification?.label !== 'confirmed') continue;
    states.push(r.data);
  }
  return canonicalOrder(states).map(criticalStateExample);
}

/** Loads a critical-states JSONL file (as written by `rmsweb mine`). */
export async function loadCriticalStates(file: string, filter: CriticalFilter = {}): Promise<RlExample[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read critical states (${(e as Error).message})`, { file }, e);
  }
  const out = parseCriticalStates(text, file, filter);
  if (out.length === 0)
    throw new InputError(
      filter.confirmedOnly
        ? 'no confirmed critical states in file (verify them first: rmsweb mine --verify)'
        : 'no critical states in file',
      { file },
    );
  return out;
}

/**
 * Full-corpus mode (the ablation "same RL on the full corpus"): every step of every verified-success
 * trajectory as (state, ground truth), history = the earlier actions of that trajectory, the
 * trajectories in a canonical order (task id, then their actions).
 */
export function trajectoryExamples(trajectories: readonly Trajectory[]): RlExample[] {
  const out: RlExample[] = [];
  // By content, like the mined states: a store lists episodes in the order parallel workers
  // finished them, and trajectory ids are random per run.
  const keyed = trajectories.map((t) => ({
    t,
    key: JSON.stringify([t.task.id, t.steps.map((s) => s.action)]),
  }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { t } of keyed) {
    if (t.verdict?.success !== true) continue;
    const task = agentView(t.task);
    t.steps.forEach((s, i) => {
      out.push({
        id: `${t.id}#${s.index}`,
        state: trajectoryStepState(t, i, task),
        truth: s.action,
      });
    });
  }
  return out;
}

/** Every step of the verified-success trajectories of a run folder. */
export function loadFullCorpus(runDir: string): RlExample[] {
  const store = RunStore.open(runDir, { create: false, readonly: true });
  try {
    const out = trajectoryExamples(store.listTrajectories({ success: true }));
    if (out.length === 0)
      throw new InputError('no verified-success trajectories in run folder', { file: runDir });
    return out;
  } finally {
    store.close();
  }
}

/** What `labelRlExamples` kept and why it dropped the rest (the same counts SFT reports). */
export interface RlLabelReport {
  kept: RlExample[];
  relabeled: number;
  partial: number;
  skipped: Record<SkipReason, number>;
}

/**
 * Labels RL examples exactly as SFT labels its steps (`labelStep`): a composed `done` answer becomes
 * the span the policy can express, and a truth the policy can never produce (an action type it
 * cannot emit, a give-up, an element the featurizer did not keep) is dropped instead of costing
 * rollouts whose reward can never reach it.
 */
export function labelRlExamples(examples: readonly RlExample[], featurizer: FeaturizerConfig): RlLabelReport {
  const skipped: Record<SkipReason, number> = {
    'unsupported-type': 0,
    'gave-up': 0,
    'type-unavailable': 0,
    'element-not-kept': 0,
  };
  let relabeled = 0;
  let partial = 0;
  const kept: RlExample[] = [];
  for (const e of examples) {
    const l = labelStep(e.state, e.truth, featurizer);
    if (!l.ok) {
      skipped[l.reason]++;
      continue;
    }
    if (l.relabeled) relabeled++;
    if (l.partial) partial++;
    kept.push(l.action === e.truth ? e : { ...e, truth: l.action });
  }
  return { kept, relabeled, partial, skipped };
}
