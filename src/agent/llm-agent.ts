import { z } from 'zod';
import { ACTION_PARAMS, ACTION_TYPES, type Action, fromBrowserUse } from '../core/action.ts';
import {
  type AgentOutput,
  AgentOutput as AgentOutputSchema,
  parseAgentOutput,
} from '../core/agent-output.ts';
import type { ChatModel } from '../models/chat-model.ts';
import { generateObject } from '../models/generate-object.ts';
import type { Agent, AgentDecision, AgentInput } from './agent.ts';
import { agentMessages } from './prompt.ts';

export interface LlmAgentOptions {
  model: ChatModel;
  /**
   * Send the screenshot (default true; turn off for text-only models). A model that refuses images
   * (ChatModel.acceptsImages false) gets none either way: the page's text view carries the step.
   */
  vision?: boolean;
  temperature?: number;
  maxTokens?: number;
}

/** AgentOutput whose actions must also have valid parameters, so the repair round covers bad actions too. */
const StrictAgentOutput = AgentOutputSchema.superRefine((o, ctx) => {
  o.action.forEach((a, i) => {
    try {
      fromBrowserUse(a);
    } catch (e) {
      ctx.addIssue({ code: 'custom', path: ['action', i], message: (e as Error).message });
    }
  });
});

let requestSchema: Record<string, unknown> | null = null;

/**
 * The JSON Schema LlmAgent asks for: AgentOutput's fields in order, and one action written as one
 * of the registry's actions with its own parameters. Tighter than AgentOutput's schema (whose
 * action is any single-key object), so a server that enforces the schema by grammar (rmsweb
 * serve-model, vLLM, llama.cpp) can only produce an action that parses.
 */
export function agentOutputRequestSchema(): Record<string, unknown> {
  if (requestSchema) return requestSchema;
  const actions = ACTION_TYPES.map((name) => {
    const params = z.toJSONSchema(ACTION_PARAMS[name], { io: 'input' }) as Record<string, unknown>;
    delete params.$schema;
    return {
      type: 'object',
      properties: { [name]: params },
      required: [name],
      additionalProperties: false,
    };
  });
  requestSchema = {
    type: 'object',
    properties: {
      evaluation_previous_goal: { type: 'string' },
      memory: { type: 'string' },
      next_goal: { type: 'string' },
      action: { type: 'array', items: { anyOf: actions }, minItems: 1, maxItems: 1 },
    },
    required: ['evaluation_previous_goal', 'memory', 'next_goal', 'action'],
    additionalProperties: false,
  };
  return requestSchema;
}

/**
 * An agent backed by any OpenAI-compatible chat model, with a Browser Use style prompt. The reply
 * is validated as AgentOutput; an invalid reply gets one repair round (generateObject), and an
 * action that names an unknown action or bad parameters fails the step with a clear error.
 */
export class LlmAgent implements Agent {
  readonly id: string;
  constructor(private readonly opts: LlmAgentOptions) {
    this.id = `${opts.model.provider}:${opts.model.id}`;
  }

  async act(input: AgentInput): Promise<AgentDecision> {
    const shot = input.observation.screenshot;
    const screenshotUrl =
      (this.opts.vision ?? true) && this.opts.model.acceptsImages !== false && shot?.data
        ? `data:${shot.mime};base64,${shot.data}`
        : null;
    const messages = agentMessages({ ...input, includeNotes: true, screenshotUrl });
    const r = await generateObject(this.opts.model, StrictAgentOutput, {
      messages,
      schemaName: 'agent_output',
      jsonSchema: agentOutputRequestSchema(),
      temperature: this.opts.temperature ?? 0,
      maxTokens: this.opts.maxTokens ?? 1024,
    });
    const { output, actions } = parseAgentOutput(r.object as AgentOutput);
    const first: Action[] = actions.slice(0, 1);
    return {
      output: { ...output, action: output.action.slice(0, 1) },
      actions: first,
      usage: r.usage,
      ...(r.repaired ? { repaired: true } : {}),
    };
  }
}
