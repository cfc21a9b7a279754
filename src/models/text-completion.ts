import OpenAI from 'openai';
import { z } from 'zod';
import { InputError, ModelApiError, type Usage } from '../core/index.ts';
import { toModelApiError } from './api-error.ts';
import { DEFAULT_BASE_URL, type ModelRole, parseModelSpec, resolveEndpoint } from './model-spec.ts';
import type { OpenAIChatModelOptions } from './openai-chat-model.ts';
import { redact, registerSecret } from './redact.ts';
import { type RetryOptions, withRetries } from './retry.ts';
import { Semaphore } from './semaphore.ts';

/**
 * A model that continues a plain text: what a pretrained base model without a chat template is
 * (rmsweb's LM student, `src/agent/lm-prompt.ts`). A spec only of types, like ChatModel.
 */
export interface TextCompletionModel {
  readonly id: string;
  readonly provider: string;
  complete(opts: TextCompletionOptions): Promise<TextCompletionResult>;
}

export interface TextCompletionOptions {
  prompt: string;
  maxTokens: number;
  /** Greedy (0) unless given. */
  temperature?: number;
  /** Generation stops before any of these. */
  stop?: string[];
  abortSignal?: AbortSignal;
}

export interface TextCompletionResult {
  text: string;
  finishReason: string | null;
  usage: Usage;
}

// Only the fields read; servers differ in what else they send.
const CompletionBody = z.object({
  model: z.string().nullish(),
  choices: z.array(z.object({ text: z.string().nullish(), finish_reason: z.string().nullish() })).min(1),
  usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});

/** The chat model's connection options, which a completions endpoint reads the same way. */
export type OpenAICompletionModelOptions = Pick<
  OpenAIChatModelOptions,
  'model' | 'role' | 'baseURL' | 'apiKey' | 'env' | 'timeoutMs' | 'retry' | 'concurrency'
>;

/**
 * A TextCompletionModel over an OpenAI-compatible `/completions` endpoint (the legacy completions
 * API, which vLLM, SGLang, llama.cpp's server and `rmsweb serve-model` serve), with the chat
 * model's retries, timeout, concurrency cap and redaction. Cost is not priced: local models only.
 */
export class OpenAICompletionModel implements TextCompletionModel {
  readonly id: string;
  readonly provider = 'openai';
  readonly baseURL: string;
  readonly #client: OpenAI;
  readonly #apiKey: string | null;
  private readonly timeoutMs: number;
  private readonly retry: Omit<RetryOptions, 'signal'>;
  private readonly limiter: Semaphore;

  constructor(opts: OpenAICompletionModelOptions) {
    if (!opts.model) throw new InputError('a model name is required', { field: 'model' });
    const ep = resolveEndpoint({
      role: opts.role,
      baseURL: opts.baseURL,
      apiKey: opts.apiKey,
      env: opts.env,
    });
    if (!ep.apiKey && ep.baseURL === DEFAULT_BASE_URL)
      throw new InputError(`no API key for ${DEFAULT_BASE_URL}: set OPENAI_API_KEY`, { field: 'apiKey' });
    registerSecret(ep.apiKey);
    this.id = opts.model;
    this.baseURL = ep.baseURL;
    this.#apiKey = ep.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.retry = opts.retry ?? {};
    this.limiter = new Semaphore(opts.concurrency ?? 4);
    this.#client = new OpenAI({
      apiKey: ep.apiKey ?? 'EMPTY',
      baseURL: ep.baseURL,
      maxRetries: 0,
      timeout: this.timeoutMs,
      logLevel: 'off',
    });
  }

  async complete(opts: TextCompletionOptions): Promise<TextCompletionResult> {
    const body = {
      model: this.id,
      prompt: opts.prompt,
      max_tokens: opts.maxTokens,
      temperature: opts.temperature ?? 0,
      ...(opts.stop?.length ? { stop: opts.stop } : {}),
    };
    const where = {
      model: this.id,
      baseURL: this.baseURL,
      timeoutMs: this.timeoutMs,
      secrets: [this.#apiKey],
    };
    const reply = await this.limiter.run(() =>
      withRetries(
        async () => {
          let raw: unknown;
          try {
            raw = await this.#client.completions.create(body, {
              timeout: this.timeoutMs,
              maxRetries: 0,
              ...(opts.abortSignal ? { signal: opts.abortSignal } : {}),
            });
          } catch (e) {
            throw toModelApiError(e, where);
          }
          const parsed = CompletionBody.safeParse(raw);
          if (!parsed.success) {
            const preview = JSON.stringify(raw ?? null).slice(0, 120);
            throw new ModelApiError(
              redact(`${this.id} at ${this.baseURL}: malformed completion body: ${preview}`, [this.#apiKey]),
              { url: this.baseURL, isRetryable: true },
            );
          }
          return parsed.data;
        },
        { ...this.retry, signal: opts.abortSignal },
      ),
    );
    const c = reply.choices[0];
    return {
      text: c.text ?? '',
      finishReason: c.finish_reason ?? null,
      usage: {
        promptTokens: Math.max(0, Math.round(reply.usage?.prompt_tokens ?? 0)),
        completionTokens: Math.max(0, Math.round(reply.usage?.completion_tokens ?? 0)),
        costUsd: 0,
        calls: 1,
      },
    };
  }
}

/** Builds a completion model from `openai:<model>[@<url>]`. */
export function createCompletionModel(
  spec: string,
  opts: { role?: ModelRole; env?: NodeJS.ProcessEnv } = {},
) {
  const s = parseModelSpec(spec, 'agent');
  return new OpenAICompletionModel({ model: s.model, baseURL: s.baseURL, role: opts.role, env: opts.env });
}
