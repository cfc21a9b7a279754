import { RmswebError } from '../../core/errors.ts';

/**
 * What `rmsweb serve-model` asks of a local model runtime: one generation at a time (a chat, or a
 * plain text continued as is), with the sampling knobs of the OpenAI API. The HTTP layer (server.ts) depends on this file only, so it
 * is tested with a scripted backend and the real one (llama-backend.ts) stays optional.
 */

/** One text-only chat message (image parts are refused before a backend sees a request). */
export interface BackendMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The sampling knobs both kinds of request share, already validated. */
export interface BackendSampling {
  /** Samples to draw; each gets seed + i. */
  n: number;
  temperature: number;
  topP?: number;
  /** Generated tokens per choice at most; undefined: what the context leaves. */
  maxTokens?: number;
  seed?: number;
  stop: string[];
  logprobs: boolean;
  /** Alternatives per token when logprobs is on (0 for none). */
  topLogprobs: number;
  signal?: AbortSignal;
}

/** One chat generation request: the messages go through the model's chat template. */
export interface BackendRequest extends BackendSampling {
  messages: BackendMessage[];
  /** Constrains the reply to this JSON Schema by grammar. */
  jsonSchema?: Record<string, unknown>;
  /** Constrains the reply to any JSON object by grammar. */
  jsonObject?: boolean;
}

/**
 * One raw completion request (`/v1/completions`): the prompt is tokenized and continued as is, with
 * no chat template, as a base model without one was trained (the `lm:` agent's plain-text prompt).
 */
export interface BackendCompletionRequest extends BackendSampling {
  prompt: string;
}

/** Log-probability of one generated token, in OpenAI's shape. */
export interface BackendTokenLogprob {
  token: string;
  logprob: number;
  top_logprobs: Array<{ token: string; logprob: number }>;
}

export interface BackendChoice {
  text: string;
  finishReason: 'stop' | 'length';
  completionTokens: number;
  logprobs?: BackendTokenLogprob[];
}

export interface BackendResult {
  choices: BackendChoice[];
  /** Prompt tokens of the request (once, however many choices). */
  promptTokens: number;
  /** Of those, how many were reused from the previous request's cache. */
  cachedPromptTokens: number;
  /** Time spent evaluating prompt tokens (all choices). */
  promptMs: number;
  /** Time spent generating tokens (all choices). */
  generationMs: number;
}

/** A local model runtime. Calls are serialized by the server; a backend need not be reentrant. */
export interface ChatBackend {
  /** The model name the server reports, e.g. the GGUF file's base name. */
  readonly modelId: string;
  /** Tokens the context holds (prompt + reply). */
  readonly contextSize: number;
  generate(req: BackendRequest): Promise<BackendResult>;
  /** Continues `req.prompt` as plain text (the model's BOS token first, if it wants one). */
  complete(req: BackendCompletionRequest): Promise<BackendResult>;
  close(): Promise<void>;
}

/**
 * A request the model cannot serve as asked (too long for the context, a schema the grammar rejects).
 * `code` is the OpenAI-style error code the server answers with (`context_length_exceeded`); as an
 * RmswebError that reaches the CLI it prints its message and exits 1.
 */
export class BackendRequestError extends RmswebError {
  constructor(message: string, code: string) {
    super(message, { code, details: { code } });
    this.name = 'BackendRequestError';
  }
}
