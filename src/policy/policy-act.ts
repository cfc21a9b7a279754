import type { HistoryEntry } from '../agent/agent.ts';
import { actionMemory } from '../agent/memory.ts';
import { type Action, formatAction } from '../core/action.ts';
import { type AgentOutput, makeAgentOutput } from '../core/agent-output.ts';
import type { Rng } from '../core/rng.ts';
import type { PolicyState, StudentPolicy } from './types.ts';

export interface PolicyActOptions {
  /** Greedy decoding (default). When false, samples with `temperature` from `rng`. */
  greedy?: boolean;
  temperature?: number;
  /** Required when sampling. */
  rng?: Rng;
}

export interface PolicyActResult {
  action: Action;
  /** log p(action) under the policy (temperature 1). */
  logProb: number;
  /** The action wrapped in Browser Use's output schema, with a running memory. */
  output: AgentOutput;
}

function describe(action: Action, state: PolicyState): string {
  if ('index' in action && typeof action.index === 'number') {
    const el = state.observation.elements.find((e) => e.index === action.index);
    const label = (el?.text || el?.name || el?.attributes.placeholder || '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 60);
    if (label) return `${formatAction(action)} on "${label}"`;
  }
  return formatAction(action);
}

/**
 * One decision of a student policy in a state, as an agent output. The memory is the agents'
 * shared action memory (agent/memory.ts: "Steps taken: N. <last three actions>"), the same shape
 * the teacher writes, so memory features look the same at rollout time as in the teacher's data.
 */
export function policyAct(
  policy: StudentPolicy,
  state: PolicyState,
  opts: PolicyActOptions = {},
): PolicyActResult {
  const batch = policy.encode([state]);
  let sample: ReturnType<StudentPolicy['greedy']>[number];
  try {
    if (opts.greedy === false) {
      if (!opts.rng) throw new Error('policyAct: sampling needs an rng');
      sample = policy.sample(batch, 1, { temperature: opts.temperature ?? 1, rng: opts.rng })[0][0];
    } else {
      sample = policy.greedy(batch)[0];
    }
  } finally {
    batch.dispose();
  }
  const { history, observation } = state;
  const last = history.at(-1);
  const next = describe(sample.action, state);
  // Earlier failures are not known from actions alone (the last one shows as lastActionError).
  const remembered = [...history, sample.action].map(
    (action) => ({ action, result: { error: null } }) as HistoryEntry,
  );
  const memory = actionMemory(remembered);
  const output = makeAgentOutput(
    {
      evaluation_previous_goal: observation.lastActionError
        ? `Failed: ${observation.lastActionError}`
        : last
          ? `Done: ${formatAction(last)}`
          : 'Starting the task.',
      memory,
      next_goal: next,
    },
    [sample.action],
  );
  return { action: sample.action, logProb: sample.logProb, output };
}
