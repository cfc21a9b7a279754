import type { Agent, AgentDecision, AgentInput, HistoryEntry } from '../agent/agent.ts';
import { actionMemory } from '../agent/memory.ts';
import { formatAction } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { Rng } from '../core/rng.ts';
import type { AgentTask } from '../core/task.ts';
import { loadStudentPolicy } from './student-policy.ts';
import type { StudentPolicy } from './types.ts';

export interface PolicyAgentOptions {
  /** Greedy decoding (default) or sampling at `temperature`. */
  greedy?: boolean;
  temperature?: number;
  seed?: number;
}

/**
 * The local student as an agent (`--agent policy:DIR`). It sees what every agent sees - the task,
 * the observation, its own earlier actions and memory - and records the exact log-probability of
 * the action it takes. Memory is a running list of what it did, the same shape the teacher writes.
 */
export class PolicyAgent implements Agent {
  readonly id: string;
  private rng: Rng;

  constructor(
    private readonly policy: StudentPolicy,
    private readonly opts: PolicyAgentOptions = {},
    id?: string,
  ) {
    this.id = id ?? `policy:${policy.id}`;
    this.rng = new Rng(opts.seed ?? 0);
  }

  reset(task: AgentTask): void {
    this.rng = new Rng(`${this.opts.seed ?? 0}:${task.id}`);
  }

  async act({ task, observation, history }: AgentInput): Promise<AgentDecision> {
    // Notes are for agents that read them; the student was trained without them (they are
    // stripped from training data), so it acts on the same view it learned from.
    const state = {
      task,
      observation: { ...observation, notes: [] },
      history: history.map((h) => h.action),
      historyUrls: history.map((h) => h.observation?.url ?? h.url),
    };
    const batch = this.policy.encode([state]);
    try {
      const sample =
        (this.opts.greedy ?? true)
          ? this.policy.greedy(batch)[0]
          : this.policy.sample(batch, 1, { temperature: this.opts.temperature ?? 1, rng: this.rng })[0][0];
      const memory = actionMemory([
        ...history,
        { action: sample.action, result: { error: null } } as HistoryEntry,
      ]);
      const output = makeAgentOutput({ memory, next_goal: formatAction(sample.action) }, [sample.action]);
      return { output, actions: [sample.action], logProb: sample.logProb };
    } finally {
      batch.dispose();
    }
  }

  close(): void {
    this.policy.dispose();
  }
}

/** Loads a checkpoint folder as an agent. */
export async function loadPolicyAgent(dir: string, opts: PolicyAgentOptions = {}): Promise<PolicyAgent> {
  const policy = await loadStudentPolicy(dir);
  return new PolicyAgent(policy, opts, `policy:${dir}`);
}
