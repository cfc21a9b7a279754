import { z } from 'zod';
import { describeZodIssues, RmswebError, type Usage } from '../core/index.ts';
import type { ChatGenerateOptions, ChatGenerateResult, ChatMessage, ChatModel } from './chat-model.ts';
import { addUsage, emptyUsage } from './usage-meter.ts';

/** A model replied, but not with what was asked (invalid JSON, or JSON failing the schema). */
export class ModelOutputError extends RmswebError {
  /** The last reply text (truncated), for diagnostics. */
  readonly reply: string;
  /** What the failed attempts spent, so callers can still account for it. */
  readonly usage: Usage;
  constructor(message: string, reply: string, usage: Usage) {
    super(message, { code: 'MODEL_OUTPUT', isRetryable: false, details: { reply: reply.slice(0, 500) } });
    this.name = 'ModelOutputError';
    this.reply = reply.slice(0, 2000);
    this.usage = usage;
  }
  static override isInstance(e: unknown): e is ModelOutputError {
    return RmswebError.isInstance(e) && e.code === 'MODEL_OUTPUT';
  }
}

/**
 * Pulls a JSON value out of a reply: the whole text, else a fenced ```json block, else the span
 * from the first `{`/`[` to the last `}`/`]`. Throws a SyntaxError with the parser's message.
 */
export function extractJson(text: string): unknown {
  const t = text.trim();
  const attempts = [t];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(t);
  if (fence) attempts.push(fence[1].trim());
  const start = t.search(/[{[]/);
  const end = Math.max(t.lastIndexOf('}'), t.lastIndexOf(']'));
  if (start >= 0 && end > start) attempts.push(t.slice(start, end + 1));
  let firstError: unknown;
  for (const a of attempts) {
    try {
      return JSON.parse(a);
    } catch (e) {
      firstError ??= e;
    }
  }
  throw firstError instanceof SyntaxError ? firstError : new SyntaxError('no JSON found in reply');
}

export interface GenerateObjectOptions extends Omit<ChatGenerateOptions, 'responseFormat' | 'n'> {
  /** Name of the schema in `response_format` (letters, digits, `_`, `-`). Default `output`. */
  schemaName?: string;
  /**
   * Send the JSON Schema as `response_format` (default true). Turn off for servers that reject
   * it; the schema is then only described in the prompt and checked here.
   */
  useResponseFormat?: boolean;
  /**
   * The JSON Schema to send, when it can say more than the zod schema's own (one object per
   * action name, say). The reply is still validated against the zod schema.
   */
  jsonSchema?: Record<string, unknown>;
}

export interface GenerateObjectResult<T> {
  object: T;
  /** The reply text the object was parsed from. */
  text: string;
  /** Usage of every call made (two when a repair was needed). */
  usage: Usage;
  /** True when the first reply failed and the repair reply succeeded. */
  repaired: boolean;
  /** The last raw result. */
  result: ChatGenerateResult;
}

function check<S extends z.ZodType>(
  schema: S,
  text: string,
): { ok: true; value: z.output<S> } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = extractJson(text);
  } catch (e) {
    return { ok: false, error: `the reply is not valid JSON (${(e as Error).message})` };
  }
  const r = schema.safeParse(json);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, error: `the JSON does not match the schema: ${describeZodIssues(r.error.issues)}` };
}

/**
 * Asks for JSON matching a zod schema and validates the reply. When the reply fails, the model is
 * shown its reply and the validation error and asked once more; a second failure throws
 * ModelOutputError (carrying the usage spent).
 */
export async function generateObject<S extends z.ZodType>(
  model: ChatModel,
  schema: S,
  opts: GenerateObjectOptions,
): Promise<GenerateObjectResult<z.output<S>>> {
  const { schemaName = 'output', useResponseFormat = true, jsonSchema: given, ...rest } = opts;
  const jsonSchema =
    given ?? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
  delete jsonSchema.$schema;
  const request: ChatGenerateOptions = {
    ...rest,
    ...(useResponseFormat
      ? { responseFormat: { type: 'json_schema', name: schemaName, schema: jsonSchema } }
      : {}),
  };
  let usage = emptyUsage();
  const first = await model.doGenerate(request);
  usage = addUsage(usage, first.usage);
  const firstText = first.choices[0]?.text ?? '';
  const c1 = check(schema, firstText);
  if (c1.ok) return { object: c1.value, text: firstText, usage, repaired: false, result: first };

  const repairMessages: ChatMessage[] = [
    ...rest.messages,
    { role: 'assistant', content: firstText },
    {
      role: 'user',
      content:
        `Your previous reply could not be used: ${c1.error}.\n` +
        `Reply again with only a JSON value that satisfies this JSON Schema, and nothing else:\n${JSON.stringify(jsonSchema)}`,
    },
  ];
  const second = await model.doGenerate({ ...request, messages: repairMessages });
  usage = addUsage(usage, second.usage);
  const secondText = second.choices[0]?.text ?? '';
  const c2 = check(schema, secondText);
  if (c2.ok) return { object: c2.value, text: secondText, usage, repaired: true, result: second };
  throw new ModelOutputError(
    `${model.id}: reply failed its schema twice; last error: ${c2.error}`,
    secondText,
    usage,
  );
}
