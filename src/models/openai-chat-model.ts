import OpenAI from 'openai';
import { z } from 'zod';
import { InputError, ModelApiError, type Usage } from '../core/index.ts';
import { toModelApiError } from './api-error.ts';
import type {
  ChatChoice,
  ChatGenerateOptions,
  ChatGenerateResult,
  ChatMessage,
  ChatModel,
  TokenLogprob,
} from './chat-model.ts';
import { DiskCache } from './disk-cache.ts';
import { DEFAULT_BASE_URL, type ModelRole, parseModelSpec, resolveEndpoint } from './model-spec.ts';
import { costOf, DEFAULT_PRICES, type PriceTable } from './pricing.ts';
import { redact, registerSecret } from './redact.ts';
import { type RetryOptions, withRetries } from './retry.ts';
import { Semaphore } from './semaphore.ts';
import type { UsageMeter } from './usage-meter.ts';

/** Options of an OpenAI-compatible chat model. Every field but `model` has a default. */
export interface OpenAIChatModelOptions {
  /** Model name sent to the server. */
  model: string;
  /** Role this model plays; picks `RMSWEB_<ROLE>_BASE_URL` / `_API_KEY` and labels usage. */
  role?: ModelRole;
  /** Overrides every environment source. */
  baseURL?: string;
  /** Overrides every environment source. Never logged, cached or put in an error. */
  apiKey?: string;
  /** Environment to read (default `process.env`); tests pass their own. */
  env?: NodeJS.ProcessEnv;
  /** Per-request timeout; default 120 s. */
  timeoutMs?: number;
  /** Retry policy on 408/429/5xx, timeouts, connection errors and garbled bodies. */
  retry?: Omit<RetryOptions, 'signal'>;
  /** Concurrent requests allowed from this model; default 4. Ignored when `limiter` is given. */
  concurrency?: number;
  /** A semaphore shared with other models, to cap requests to one endpoint across roles. */
  limiter?: Semaphore;
  /** Opt-in response cache directory. */
  cacheDir?: string;
  /** Price table (USD per 1M tokens); default DEFAULT_PRICES. */
  prices?: PriceTable;
  /** Receives every call's usage under `role` (or 'default'). */
  meter?: UsageMeter;
  /**
   * Which request field carries maxTokens. Default: `max_completion_tokens` for OpenAI reasoning
   * models (o1, o3, o4, gpt-5), which reject `max_tokens`; `max_tokens` otherwise, which every
   * OpenAI-compatible server reads.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

// Only the fields we read; servers differ in what else they send.
const CompletionBody = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z.array(
    z.object({
      index: z.number().nullish(),
      message: z.object({ content: z.string().nullish() }).nullish(),
      finish_reason: z.string().nullish(),
      logprobs: z
        .object({
          content: z
            .array(
              z.object({
                token: z.string(),
                logprob: z.number(),
                top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })).nullish(),
              }),
            )
            .nullish(),
        })
        .nullish(),
    }),
  ),
  usage: z
    .object({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});
type CompletionBody = z.infer<typeof CompletionBody>;

interface CachedReply {
  choices: ChatChoice[];
  rawId: string | null;
  modelId: string;
}

/**
 * A ChatModel over any OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, SGLang,
 * Ollama, ...), with retries, timeouts, a concurrency cap, an opt-in disk cache and cost
 * accounting. The key stays inside the underlying client; errors and cache entries are redacted.
 */
export class OpenAIChatModel implements ChatModel {
  readonly id: string;
  readonly provider = 'openai';
  readonly baseURL: string;
  readonly role: ModelRole | undefined;
  // ES private fields: not enumerable, so JSON.stringify, loggers and util.inspect never see the key.
  readonly #client: OpenAI;
  readonly #apiKey: string | null;
  private readonly timeoutMs: number;
  private readonly retry: Omit<RetryOptions, 'signal'>;
  private readonly limiter: Semaphore;
  private readonly cache: DiskCache | null;
  private readonly prices: PriceTable;
  private readonly meter: UsageMeter | undefined;
  private readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  #acceptsImages: boolean | undefined;

  constructor(opts: OpenAIChatModelOptions) {
    if (!opts.model) throw new InputError('a model name is required', { field: 'model' });
    const ep = resolveEndpoint({
      role: opts.role,
      baseURL: opts.baseURL,
      apiKey: opts.apiKey,
      env: opts.env,
    });
    if (!ep.apiKey && ep.baseURL === DEFAULT_BASE_URL) {
      const roleVar = opts.role ? `RMSWEB_${opts.role.toUpperCase()}_API_KEY or ` : '';
      throw new InputError(`no API key for ${DEFAULT_BASE_URL}: set ${roleVar}OPENAI_API_KEY`, {
        field: 'apiKey',
      });
    }
    registerSecret(ep.apiKey);
    this.id = opts.model;
    this.role = opts.role;
    this.baseURL = ep.baseURL;
    this.#apiKey = ep.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.retry = opts.retry ?? {};
    this.limiter = opts.limiter ?? new Semaphore(opts.concurrency ?? 4);
    this.cache = opts.cacheDir ? new DiskCache(opts.cacheDir) : null;
    this.prices = opts.prices ?? DEFAULT_PRICES;
    this.meter = opts.meter;
    this.maxTokensField =
      opts.maxTokensField ?? (/^(o\d|gpt-5)/.test(opts.model) ? 'max_completion_tokens' : 'max_tokens');
    // Self-hosted servers usually take no key, but the client insists on one; 'EMPTY' is the vLLM convention.
    this.#client = new OpenAI({
      apiKey: ep.apiKey ?? 'EMPTY',
      baseURL: ep.baseURL,
      maxRetries: 0,
      timeout: this.timeoutMs,
      logLevel: 'off',
    });
  }

  /** False once the server refused image parts (a text-only model); see ChatModel.acceptsImages. */
  get acceptsImages(): boolean | undefined {
    return this.#acceptsImages;
  }

  /** What a log line may show about this model. */
  toJSON(): { id: string; provider: string; baseURL: string; role: string | null } {
    return { id: this.id, provider: this.provider, baseURL: this.baseURL, role: this.role ?? null };
  }

  /** The request body sent for `opts` (exported for tests and for cache keys; holds no key). */
  buildRequestBody(opts: ChatGenerateOptions): Record<string, unknown> {
    const body: Record<string, unknown> = { model: this.id, messages: opts.messages.map(toWireMessage) };
    if (opts.n !== undefined && opts.n !== 1) body.n = opts.n;
    if (opts.temperature !== undefined) body.temperature = opts.temperature;
    if (opts.topP !== undefined) body.top_p = opts.topP;
    if (opts.maxTokens !== undefined) body[this.maxTokensField] = opts.maxTokens;
    if (opts.stop?.length) body.stop = opts.stop;
    if (opts.seed !== undefined) body.seed = opts.seed;
    if (opts.logprobs) {
      body.logprobs = true;
      if (opts.topLogprobs !== undefined) body.top_logprobs = opts.topLogprobs;
    }
    const rf = opts.responseFormat;
    if (rf && rf.type === 'json_schema') {
      body.response_format = {
        type: 'json_schema',
        json_schema: {
          name: rf.name,
          schema: rf.schema,
          ...(rf.strict !== undefined ? { strict: rf.strict } : {}),
        },
      };
    } else if (rf) {
      body.response_format = { type: rf.type };
    }
    return body;
  }

  async doGenerate(opts: ChatGenerateOptions): Promise<ChatGenerateResult> {
    if (this.#acceptsImages === false && hasImages(opts.messages))
      return this.doGenerate({ ...opts, messages: withoutImages(opts.messages) });
    try {
      return await this.generateOnce(opts);
    } catch (e) {
      // A text-only server (rmsweb serve-model, many local runtimes) refuses image parts; the
      // request is worth making without them, and so is every later one.
      if (!(hasImages(opts.messages) && isImageRefusal(e))) throw e;
      this.#acceptsImages = false;
      process.stderr.write(
        `rmsweb: ${this.id} at ${this.baseURL} reads text only; images are left out of its requests from now on\n`,
      );
      return this.generateOnce({ ...opts, messages: withoutImages(opts.messages) });
    }
  }

  private async generateOnce(opts: ChatGenerateOptions): Promise<ChatGenerateResult> {
    const body = this.buildRequestBody(opts);
    const cacheKey = this.cache ? DiskCache.keyOf({ baseURL: this.baseURL, body }) : null;
    if (this.cache && cacheKey) {
      const hit = this.cache.get<CachedReply>(cacheKey);
      if (hit) {
        const usage: Usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 };
        this.meter?.add(this.role ?? 'default', usage);
        return { choices: hit.choices, usage, cached: true, rawId: hit.rawId, modelId: hit.modelId };
      }
    }
    const reply = await this.limiter.run(() =>
      withRetries(() => this.requestOnce(body, opts.abortSignal), {
        ...this.retry,
        signal: opts.abortSignal,
      }),
    );
    const result = this.toResult(reply);
    this.meter?.add(this.role ?? 'default', result.usage);
    if (this.cache && cacheKey) {
      this.cache.set(cacheKey, {
        choices: result.choices,
        rawId: result.rawId,
        modelId: result.modelId,
      } satisfies CachedReply);
    }
    return result;
  }

  private async requestOnce(body: Record<string, unknown>, signal?: AbortSignal): Promise<CompletionBody> {
    const where = {
      model: this.id,
      baseURL: this.baseURL,
      timeoutMs: this.timeoutMs,
      secrets: [this.#apiKey],
    };
    let raw: unknown;
    try {
      raw = await this.#client.chat.completions.create(body as never, {
        timeout: this.timeoutMs,
        maxRetries: 0,
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      throw toModelApiError(e, where);
    }
    const parsed = CompletionBody.safeParse(raw);
    if (!parsed.success) {
      const preview = typeof raw === 'string' ? raw.slice(0, 120) : JSON.stringify(raw ?? null).slice(0, 120);
      // A garbled body is usually a proxy or server hiccup, so it is worth another attempt.
      throw new ModelApiError(
        redact(`${this.id} at ${this.baseURL}: malformed chat completion body: ${preview}`, [this.#apiKey]),
        { url: this.baseURL, isRetryable: true },
      );
    }
    return parsed.data;
  }

  private toResult(reply: CompletionBody): ChatGenerateResult {
    const choices: ChatChoice[] = [...reply.choices]
      .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
      .map((c) => {
        const lp = c.logprobs?.content;
        const logprobs: TokenLogprob[] | undefined = lp
          ? lp.map((t) => ({
              token: t.token,
              logprob: t.logprob,
              ...(t.top_logprobs
                ? { top: t.top_logprobs.map((x) => ({ token: x.token, logprob: x.logprob })) }
                : {}),
            }))
          : undefined;
        return {
          text: c.message?.content ?? '',
          finishReason: c.finish_reason ?? null,
          ...(logprobs ? { logprobs } : {}),
        };
      });
    const promptTokens = Math.max(0, Math.round(reply.usage?.prompt_tokens ?? 0));
    const completionTokens = Math.max(0, Math.round(reply.usage?.completion_tokens ?? 0));
    const cachedPromptTokens = reply.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const modelId = reply.model ?? this.id;
    let cost = costOf(this.id, { promptTokens, completionTokens, cachedPromptTokens }, this.prices);
    if (!cost.priced && modelId !== this.id)
      cost = costOf(modelId, { promptTokens, completionTokens, cachedPromptTokens }, this.prices);
    return {
      choices,
      usage: { promptTokens, completionTokens, costUsd: cost.costUsd, calls: 1 },
      cached: false,
      rawId: reply.id ?? null,
      modelId,
    };
  }
}

function hasImages(messages: ChatMessage[]): boolean {
  return messages.some(
    (m) => m.role === 'user' && typeof m.content !== 'string' && m.content.some((p) => p.type === 'image'),
  );
}

/** The messages with each image part replaced by a note, so the text still reads in order. */
export function withoutImages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m) =>
    m.role === 'user' && typeof m.content !== 'string'
      ? {
          role: 'user',
          content: m.content.map((p) =>
            p.type === 'image' ? { type: 'text', text: '[image left out: this model reads text only]' } : p,
          ),
        }
      : m,
  );
}

/** A 400 whose message says image input is unsupported (rmsweb serve-model's code, or the usual wordings). */
function isImageRefusal(e: unknown): boolean {
  if (!ModelApiError.isInstance(e) || e.status !== 400) return false;
  return /image_input_unsupported|image input (is )?(unsupported|not supported)|does not support (image|vision)|text-only/i.test(
    e.message,
  );
}

function toWireMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role !== 'user' || typeof m.content === 'string') return { role: m.role, content: m.content };
  return {
    role: 'user',
    content: m.content.map((p) =>
      p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: p.url } },
    ),
  };
}

/** Options for `createChatModel`: everything but the model name, which the spec gives. */
export type CreateChatModelOptions = Omit<OpenAIChatModelOptions, 'model'>;

/**
 * Builds a model from a spec string `openai:<model>[@<url>]`; the spec's URL beats the
 * environment but not an explicit `baseURL` option.
 */
export function createChatModel(spec: string, opts: CreateChatModelOptions = {}): OpenAIChatModel {
  const parsed = parseModelSpec(spec);
  return new OpenAIChatModel({ ...opts, model: parsed.model, baseURL: opts.baseURL ?? parsed.baseURL });
}
