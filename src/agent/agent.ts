import type { Action } from '../core/action.ts';
import type { AgentOutput } from '../core/agent-output.ts';
import type { Observation } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import type { ActionResult, Usage } from '../core/trajectory.ts';

/** One earlier step as the agent remembers it. */
export interface HistoryEntry {
  stepIndex: number;
  url: string;
  /** The observation the action was chosen on (element indices refer to it). */
  observation: Observation;
  output: AgentOutput;
  action: Action;
  result: ActionResult;
}

/** Everything an agent may see at one step. Never the verifier, the world's data or server state. */
export interface AgentInput {
  task: AgentTask;
  /** Current observation, with notes, memory and stepIndex filled in by the episode loop. */
  observation: Observation;
  history: HistoryEntry[];
}

/** An agent's decision at one step. */
export interface AgentDecision {
  output: AgentOutput;
  /** The parsed actions of output.action; the loop executes the first. */
  actions: Action[];
  usage?: Usage;
  /** Log-probability of actions[0] under the agent's policy, when known. */
  logProb?: number;
  /** The model's first reply failed its schema and a repair round fixed it (LlmAgent). */
  repaired?: boolean;
}

/** A browsing agent: decides the next action from the task, the observation and its history. */
export interface Agent {
  /** Identifies the agent in records, e.g. `heuristic`, `openai:gpt-4o`, `policy:models/sft`. */
  readonly id: string;
  /** Called before each episode. */
  reset?(task: AgentTask): void | Promise<void>;
  act(input: AgentInput): Promise<AgentDecision>;
  /** Releases resources (models, tensors). */
  close?(): void | Promise<void>;
}
