import { ModelApiError } from '../core/index.ts';
import {
  type ChatContentPart,
  type ChatGenerateResult,
  type ChatModel,
  extractJson,
  firstText,
} from '../models/index.ts';
import { maxTokensForSchema } from '../models/schema-budget.ts';

/** What a judge reply that must end in a verdict line came to. */
export interface VerdictReply {
  /** The reply, with the verdict line appended when it had to be asked for separately. */
  text: string;
  /** True when the reply hit its token budget before its verdict line. */
  cutOff: boolean;
  /** True when the verdict line came from the follow-up question (only after a cut-off). */
  followedUp: boolean;
  /** Why the follow-up gave no verdict (the server refused it, or its reply was unreadable). */
  followUpError?: string;
}

export interface AskVerdictOptions<V extends string | number> {
  system: string;
  content: string | ChatContentPart[];
  maxTokens: number;
  /** True when a reply already holds a readable verdict line. */
  hasVerdict: (reply: string) => boolean;
  /** The verdict values the prompt allows, e.g. `['success', 'failure']`. */
  values: readonly V[];
  /** The verdict line for a value, as the prompt asks for it and the judge's parser reads it. */
  line: (value: V) => string;
  /** The follow-up question, naming the line(s) to write. */
  followUp: string;
}

/**
 * Asks for a free-text judgement that ends in a verdict line (`Status: success`, `Score: 4`). A
 * reply that ran into `maxTokens` before that line - a small model rambles to any budget, and a
 * caller may set a small one to bound the cost - is not thrown away: the judge is asked once more,
 * in the same conversation after its cut-off reasoning, for the verdict alone, as JSON whose only
 * field is one of `values` (a grammar-enforcing server can only answer a valid one). The follow-up
 * is skipped when the reply finished on its own: a finished reply without a verdict is the model's
 * fault and stays unparseable. A server that refuses the follow-up (HTTP 4xx) leaves the reply
 * unparseable too; an endpoint that is down still throws, as every judge call does.
 */
export async function askVerdict<V extends string | number>(
  model: ChatModel,
  o: AskVerdictOptions<V>,
): Promise<VerdictReply> {
  const messages = [
    { role: 'system' as const, content: o.system },
    { role: 'user' as const, content: o.content },
  ];
  const result = await model.doGenerate({ messages, temperature: 0, maxTokens: o.maxTokens });
  const reply = firstText(result);
  const cutOff = result.choices[0]?.finishReason === 'length';
  if (!cutOff || o.hasVerdict(reply)) return { text: reply, cutOff, followedUp: false };

  const schema = {
    type: 'object',
    properties: {
      verdict: { type: typeof o.values[0] === 'number' ? 'integer' : 'string', enum: [...o.values] },
    },
    required: ['verdict'],
    additionalProperties: false,
  };
  let follow: ChatGenerateResult;
  try {
    follow = await model.doGenerate({
      messages: [
        ...messages,
        { role: 'assistant', content: reply },
        { role: 'user', content: `${o.followUp} Reply with JSON {"verdict": ...}.` },
      ],
      temperature: 0,
      maxTokens: maxTokensForSchema(schema, 'the verdict follow-up'),
      responseFormat: { type: 'json_schema', name: 'verdict', schema },
    });
  } catch (e) {
    if (ModelApiError.isInstance(e) && !e.isRetryable)
      return { text: reply, cutOff, followedUp: false, followUpError: e.message };
    throw e;
  }
  const answer = firstText(follow);
  let value: unknown;
  try {
    value = (extractJson(answer) as { verdict?: unknown } | null)?.verdict;
  } catch {
    // A server that ignores response_format may still have written the verdict line itself.
    if (o.hasVerdict(answer)) return { text: `${reply}\n${answer.trim()}`, cutOff, followedUp: true };
  }
  const chosen = o.values.find((v) => v === value);
  if (chosen === undefined)
    return {
      text: reply,
      cutOff,
      followedUp: false,
      followUpError: `the follow-up reply named no verdict: ${answer.trim().slice(0, 100)}`,
    };
  return { text: `${reply}\n${o.line(chosen)}`, cutOff, followedUp: true };
}
