import { type Action, type AgentOutput, InputError, toBrowserUse } from '../core/index.ts';
import type { TextCompletionModel } from '../models/text-completion.ts';
import type { Agent, AgentDecision, AgentInput } from './agent.ts';
import { DEFAULT_PROMPT_TOKENS, lmPromptText, parseLmAction, renderLmObservation } from './lm-prompt.ts';

export interface LmAgentOptions {
  model: TextCompletionModel;
  /** The compact observation's budget; must be the one the student was trained with. */
  promptTokens?: number;
  /** Reply budget in tokens: one action as compact JSON (default 64). */
  maxTokens?: number;
  /** 0 (greedy, the default) for evaluation. */
  temperature?: number;
}

/** How a step's `next_goal` starts when the model's reply held no usable action (the agent then gives up). */
const UNUSABLE_REPLY = 'unusable reply';

/** Whether the lm agent gave up at this step because the model's reply held no usable action. */
export function gaveUpOnReply(output: Pick<AgentOutput, 'next_goal'>): boolean {
  return output.next_goal.startsWith(UNUSABLE_REPLY);
}

/**
 * A language-model student acting in its own compact layout (src/agent/lm-prompt.ts): the same
 * renderer the `export sft --format lm` rows were written with, a plain-text prompt (no chat
 * template), one action as compact JSON back. Notes are never shown, as in training.
 *
 * A reply that holds no valid action is the model's outcome, not an infrastructure error: the step
 * ends the episode with `done(success=false)` and says why in `next_goal`, so it is scored as a
 * failure. An endpoint that cannot be reached throws (ModelApiError), which the episode loop treats
 * as an error and leaves out of pass@1.
 */
export class LmAgent implements Agent {
  readonly id: string;
  private readonly promptTokens: number;
  constructor(private readonly opts: LmAgentOptions) {
    this.id = `lm:${opts.model.provider}:${opts.model.id}`;
    this.promptTokens = opts.promptTokens ?? DEFAULT_PROMPT_TOKENS;
  }

  async act(input: AgentInput): Promise<AgentDecision> {
    const r = renderLmObservation(
      { task: input.task, observation: { ...input.observation, notes: [] }, history: input.history },
      this.promptTokens,
    );
    const reply = await this.opts.model.complete({
      prompt: lmPromptText(r),
      maxTokens: this.opts.maxTokens ?? 64,
      temperature: this.opts.temperature ?? 0,
      stop: ['\n'],
    });
    let action: Action;
    let note = '';
    try {
      action = parseLmAction(reply.text);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      action = { type: 'done', text: '', success: false };
      note = `${UNUSABLE_REPLY} (${e.message}): ${reply.text.slice(0, 120)}`;
    }
    const output: AgentOutput = {
      evaluation_previous_goal: '',
      memory: '',
      next_goal: note,
      action: [toBrowserUse(action)] as AgentOutput['action'],
    };
    return { output, actions: [action], usage: reply.usage };
  }
}
