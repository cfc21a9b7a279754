import { ModelApiError, type Usage } from '../core/index.ts';

/**
 * The provider spec every model implementation follows: only types, in the shape of the Vercel AI
 * SDK's language-model spec. Callers (agents, judges, reflectors, rewriters) depend on this file
 * alone; `OpenAIChatModel` is one implementation, scripted test doubles are others.
 */

/** One part of a user message: text, or an image given as a `data:` URL (or an http URL). */
export type ChatContentPart = { type: 'text'; text: string } | { type: 'image'; url: string };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string };

/** Constrains the reply to JSON matching a JSON Schema (OpenAI's `response_format: json_schema`). */
export interface JsonSchemaFormat {
  type: 'json_schema';
  /** A short identifier for the schema, letters, digits, `_` and `-` only. */
  name: string;
  schema: Record<string, unknown>;
  /** Ask the server to enforce the schema strictly (servers that cannot simply ignore it). */
  strict?: boolean;
}

export type ResponseFormat = { type: 'text' } | { type: 'json_object' } | JsonSchemaFormat;

/** The options of one generation request. */
export interface ChatGenerateOptions {
  messages: ChatMessage[];
  /** Number of samples (choices) to draw; default 1. */
  n?: number;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** Ask for token log-probabilities; servers that do not support them return none. */
  logprobs?: boolean;
  /** Alternatives per token, when `logprobs` is on. */
  topLogprobs?: number;
  responseFormat?: ResponseFormat;
  stop?: string[];
  seed?: number;
  /** Cancels the request (and any retry wait). */
  abortSignal?: AbortSignal;
}

/** Log-probability of one generated token. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  top?: Array<{ token: string; logprob: number }>;
}

export interface ChatChoice {
  text: string;
  /** Present only when requested and the server returned them. */
  logprobs?: TokenLogprob[];
  /** Why generation stopped: 'stop', 'length', 'content_filter', ... as the server says. */
  finishReason: string | null;
}

export interface ChatGenerateResult {
  choices: ChatChoice[];
  /**
   * What this call spent (core Usage shape). A disk-cache hit spent nothing: tokens, cost and
   * calls are then 0 and `cached` is true.
   */
  usage: Usage;
  cached: boolean;
  /** The response id the server gave, for tracing. */
  rawId: string | null;
  /** The model name the server reported. */
  modelId: string;
}

/** A chat model: an id, a provider name and one generation method. */
export interface ChatModel {
  /** The model name sent to the server, e.g. `gpt-4o-mini`. */
  readonly id: string;
  /** Provider name, e.g. `openai` (covers any OpenAI-compatible server). */
  readonly provider: string;
  /**
   * False once the model is known to read text only (a server refused image parts): callers then
   * leave screenshots out. Undefined: unknown, images are sent.
   */
  readonly acceptsImages?: boolean;
  doGenerate(opts: ChatGenerateOptions): Promise<ChatGenerateResult>;
}

/** A text part. */
export function textPart(text: string): ChatContentPart {
  return { type: 'text', text };
}

/** An image part from JPEG/PNG bytes or an existing base64 string. */
export function imagePart(image: Uint8Array | string, mime = 'image/jpeg'): ChatContentPart {
  const b64 = typeof image === 'string' ? image : Buffer.from(image).toString('base64');
  return { type: 'image', url: `data:${mime};base64,${b64}` };
}

/** The text of the first choice; throws a ModelApiError when the server returned no choices. */
export function firstText(result: ChatGenerateResult): string {
  const c = result.choices[0];
  if (!c) throw new ModelApiError(`${result.modelId} returned no choices`, { isRetryable: false });
  return c.text;
}
