import { z } from 'zod';
import { type Action, BrowserUseActionSchema, fromBrowserUse, toBrowserUse } from './action.ts';
import { describeZodIssues, InputError } from './errors.ts';

/**
 * What an agent returns at each step: Browser Use's output schema, so records are compatible
 * with that harness. `action` holds actions in Browser Use's wire shape (`{ "click": {"index": 3} }`).
 */
export const AgentOutput = z.object({
  thinking: z.string().optional(),
  evaluation_previous_goal: z.string().default(''),
  memory: z.string().default(''),
  next_goal: z.string().default(''),
  action: z.array(BrowserUseActionSchema).min(1),
});
export type AgentOutput = z.infer<typeof AgentOutput>;

/** Builds an AgentOutput from internal actions. */
export function makeAgentOutput(
  fields: { thinking?: string; evaluation_previous_goal?: string; memory?: string; next_goal?: string },
  actions: Action[],
): AgentOutput {
  return {
    ...(fields.thinking !== undefined ? { thinking: fields.thinking } : {}),
    evaluation_previous_goal: fields.evaluation_previous_goal ?? '',
    memory: fields.memory ?? '',
    next_goal: fields.next_goal ?? '',
    action: actions.map(toBrowserUse) as AgentOutput['action'],
  };
}

/** Parses an AgentOutput (from a model's JSON) and converts its actions to internal ones. */
export function parseAgentOutput(input: unknown): { output: AgentOutput; actions: Action[] } {
  const r = AgentOutput.safeParse(input);
  if (!r.success)
    throw new InputError(`invalid agent output: ${describeZodIssues(r.error.issues)}`, {
      field: String(r.error.issues[0]?.path.join('.')),
    });
  const actions = r.data.action.map((a, i) => {
    try {
      return fromBrowserUse(a);
    } catch (e) {
      throw new InputError(`invalid agent output: action[${i}]: ${(e as Error).message}`, {
        field: `action.${i}`,
      });
    }
  });
  return { output: r.data, actions };
}
