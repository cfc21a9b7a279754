import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { describeZodIssues } from '../../core/errors.ts';
import {
  type BackendMessage,
  BackendRequestError,
  type BackendResult,
  type BackendSampling,
  type BackendTokenLogprob,
  type ChatBackend,
} from './backend.ts';
import {
  abortError,
  DEFAULT_MAX_BODY_BYTES,
  HttpError,
  RequestTimeout,
  readBody,
  send,
  untilAborted,
} from './http.ts';
import {
  capStringLengths,
  checkResponseSchema,
  DEFAULT_SCHEMA_LIMITS,
  type SchemaLimits,
} from './response-schema.ts';

/**
 * The error code and message a text-only model answers to image parts. Clients match the code
 * (OpenAIChatModel then resends the request without its images), people read the message.
 */
export const IMAGE_UNSUPPORTED_CODE = 'image_input_unsupported';

// The OpenAI requests, as far as a local text model can honour them. Unknown fields pass (clients
// send many); fields with a meaning here are checked. These the two routes read the same way:
const Sampling = {
  model: z.string().optional(),
  n: z.number().int().min(1).max(16).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
  seed: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(8)]).optional(),
  stream: z.boolean().optional(),
};
const ContentPart = z.looseObject({ type: z.string() });
const Message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
});
const ChatRequest = z.looseObject({
  ...Sampling,
  messages: z.array(Message).min(1),
  max_completion_tokens: z.number().int().min(1).optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.number().int().min(0).max(20).optional(),
  response_format: z
    .union([
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({
        type: z.literal('json_schema'),
        json_schema: z.looseObject({
          name: z.string().optional(),
          schema: z.record(z.string(), z.unknown()),
        }),
      }),
    ])
    .optional(),
});
type ChatRequest = z.infer<typeof ChatRequest>;

// The legacy completions request (`/v1/completions`): one plain-text prompt, continued as is. A
// batch of prompts or token ids is refused (no client of rmsweb sends one); so are echo and suffix.
const CompletionRequest = z.looseObject({
  ...Sampling,
  prompt: z.union([z.string().min(1), z.array(z.string().min(1)).length(1)]),
  /** Alternatives per token, as the legacy API asks for log-probabilities. */
  logprobs: z.number().int().min(0).max(20).nullable().optional(),
  echo: z.boolean().optional(),
  suffix: z.string().nullable().optional(),
  best_of: z.number().int().min(1).max(16).optional(),
});
type CompletionRequest = z.infer<typeof CompletionRequest>;

/** A JSON body checked against `schema`; a 400 naming the field otherwise. */
function parseBody<T>(raw: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new HttpError(400, `request body is not JSON: ${(e as Error).message}`, 'invalid_json');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new HttpError(400, `invalid request: ${describeZodIssues(parsed.error.issues)}`, 'invalid_request');
  return parsed.data;
}

/** The sampling knobs of either request (log-probabilities off; each route reads its own). */
function samplingOf(r: z.infer<z.ZodObject<typeof Sampling>>): Omit<BackendSampling, 'signal'> {
  if (r.stream)
    throw new HttpError(
      400,
      'stream is not supported by this server; send stream: false',
      'unsupported_stream',
      'stream',
    );
  return {
    n: r.n ?? 1,
    temperature: r.temperature ?? 1,
    ...(r.top_p !== undefined ? { topP: r.top_p } : {}),
    maxTokens: r.max_tokens,
    ...(r.seed !== undefined ? { seed: r.seed } : {}),
    stop: r.stop === undefined ? [] : typeof r.stop === 'string' ? [r.stop] : r.stop,
    logprobs: false,
    topLogprobs: 0,
  };
}

/** Running totals, for `/v1/stats` and the log line of each request. */
export interface ServeStats {
  requests: number;
  errors: number;
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  promptMs: number;
  generationMs: number;
}

/** Tokens per second of a count over milliseconds; 0 when no time passed. */
function perSecond(tokens: number, ms: number): number {
  return ms > 0 ? Math.round((tokens / ms) * 1000 * 10) / 10 : 0;
}

/** What `/v1/stats` answers: totals and throughput (prompt tokens count only those evaluated). */
export function statsView(s: ServeStats): Record<string, number> {
  return {
    ...s,
    promptTokensPerSecond: perSecond(s.promptTokens - s.cachedPromptTokens, s.promptMs),
    generationTokensPerSecond: perSecond(s.completionTokens, s.generationMs),
  };
}

/** Flattens OpenAI content to text; an image part is refused (the model is text-only). */
function toBackendMessages(req: ChatRequest): BackendMessage[] {
  return req.messages.map((m, i) => {
    const role = m.role === 'developer' ? 'system' : m.role;
    if (typeof m.content === 'string' || m.content == null) return { role, content: m.content ?? '' };
    const texts: string[] = [];
    for (const p of m.content) {
      if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
      else if (p.type === 'image_url' || p.type === 'input_image' || p.type === 'image') {
        throw new HttpError(
          400,
          `image input unsupported: this model is text-only and cannot read the image in messages[${i}]; ` +
            'send text only (LlmAgent and the judges do so once they see this error)',
          IMAGE_UNSUPPORTED_CODE,
          `messages[${i}].content`,
        );
      } else {
        throw new HttpError(
          400,
          `unsupported content part type "${p.type}" in messages[${i}]`,
          'invalid_content',
          `messages[${i}].content`,
        );
      }
    }
    return { role, content: texts.join('\n') };
  });
}

/** The `usage` and `timings` of a response, either route. */
function usageOf(out: BackendResult): { usage: Record<string, unknown>; timings: Record<string, number> } {
  const completionTokens = out.choices.reduce((s, c) => s + c.completionTokens, 0);
  return {
    usage: {
      prompt_tokens: out.promptTokens,
      completion_tokens: completionTokens,
      total_tokens: out.promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: out.cachedPromptTokens },
    },
    timings: {
      prompt_ms: out.promptMs,
      generation_ms: out.generationMs,
      prompt_tokens_per_second: perSecond(out.promptTokens - out.cachedPromptTokens, out.promptMs),
      generation_tokens_per_second: perSecond(completionTokens, out.generationMs),
    },
  };
}

/** Log-probabilities in the legacy completions shape: parallel arrays, offsets counted from the prompt's end. */
function legacyLogprobs(lps: BackendTokenLogprob[], promptChars: number): Record<string, unknown> {
  const textOffset: number[] = [];
  let at = promptChars;
  for (const t of lps) {
    textOffset.push(at);
    at += t.token.length;
  }
  return {
    tokens: lps.map((t) => t.token),
    token_logprobs: lps.map((t) => t.logprob),
    top_logprobs: lps.map((t) => Object.fromEntries(t.top_logprobs.map((a) => [a.token, a.logprob]))),
    text_offset: textOffset,
  };
}

export interface ModelServerOptions {
  backend: ChatBackend;
  /** 0 picks a free port. */
  port?: number;
  /** Cap on free strings of a json_schema reply, in characters (0: none); see capStringLengths. */
  maxStringLength?: number;
  /** Bounds on a json_schema; unset fields take DEFAULT_SCHEMA_LIMITS. */
  schemaLimits?: Partial<SchemaLimits>;
  /** Request bodies above this many bytes get a 413; default DEFAULT_MAX_BODY_BYTES (32 MiB). */
  maxBodyBytes?: number;
  /**
   * Milliseconds a request may take, queueing included, before it is answered 504 and its
   * generation stopped (0 or unset: no limit; a client that hangs up always stops it).
   */
  timeoutMs?: number;
  /** One line per request (tokens, tokens/s); default: none. */
  log?: (line: string) => void;
}

/**
 * An OpenAI-compatible `/v1/chat/completions` and `/v1/completions` server over a local backend,
 * bound to 127.0.0.1 only. Requests are served one at a time (one model, one KV cache); others wait in order.
 */
export class ModelServer {
  readonly stats: ServeStats = {
    requests: 0,
    errors: 0,
    promptTokens: 0,
    cachedPromptTokens: 0,
    completionTokens: 0,
    promptMs: 0,
    generationMs: 0,
  };
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inFlight = new Set<AbortController>();

  private constructor(
    private readonly server: Server,
    readonly backend: ChatBackend,
    readonly url: string,
  ) {}

  static async start(o: ModelServerOptions): Promise<ModelServer> {
    let self: ModelServer | null = null;
    const server = createServer((req, res) => {
      if (self) void self.handle(req, res, o);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    self = new ModelServer(server, o.backend, `http://127.0.0.1:${port}/v1`);
    return self;
  }

  private async handle(req: IncomingMessage, res: ServerResponse, o: ModelServerOptions): Promise<void> {
    const log = o.log;
    // A client that gave up (timeout, Ctrl-C), or a request past the server's deadline, frees the
    // model: the backend stops within a prompt chunk or a token.
    const ac = new AbortController();
    this.inFlight.add(ac);
    const timer = o.timeoutMs
      ? setTimeout(() => ac.abort(new RequestTimeout(o.timeoutMs!)), o.timeoutMs)
      : null;
    res.on('close', () => {
      this.inFlight.delete(ac);
      if (timer) clearTimeout(timer);
      if (!res.writableFinished) ac.abort();
    });
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    try {
      if (req.method === 'GET' && path === '/v1/models') {
        send(res, 200, {
          object: 'list',
          data: [
            {
              id: this.backend.modelId,
              object: 'model',
              owned_by: 'local',
              context_length: this.backend.contextSize,
            },
          ],
        });
      } else if (req.method === 'GET' && (path === '/v1/stats' || path === '/stats')) {
        send(res, 200, statsView(this.stats));
      } else if (req.method === 'GET' && (path === '/health' || path === '/v1/health')) {
        send(res, 200, { status: 'ok', model: this.backend.modelId });
      } else if (req.method === 'POST' && path === '/v1/chat/completions') {
        const body = await readBody(req, o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        send(res, 200, await this.chat(body, o, ac.signal));
      } else if (req.method === 'POST' && path === '/v1/completions') {
        const body = await readBody(req, o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        send(res, 200, await this.textCompletion(body, o, ac.signal));
      } else {
        throw new HttpError(
          404,
          `no route ${req.method} ${path}; this server answers POST /v1/chat/completions and POST /v1/completions`,
          'not_found',
        );
      }
    } catch (e) {
      this.stats.errors++;
      const he =
        e instanceof HttpError
          ? e
          : e instanceof BackendRequestError
            ? new HttpError(400, e.message, e.code)
            : ac.signal.aborted
              ? abortError(ac.signal)
              : new HttpError(500, `generation failed: ${(e as Error).message}`, 'server_error');
      log?.(`error ${he.status} ${he.code}: ${he.message}`);
      send(
        res,
        he.status,
        {
          error: {
            message: he.message,
            type: he.status < 500 ? 'invalid_request_error' : 'server_error',
            code: he.code,
            param: he.param,
          },
        },
        he.status === 413,
      );
    }
  }

  private async chat(
    raw: string,
    o: ModelServerOptions,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const r = parseBody(raw, ChatRequest);
    const sampling = samplingOf(r);
    const messages = toBackendMessages(r);
    const rf = r.response_format;
    if (rf?.type === 'json_schema') {
      const problem = checkResponseSchema(rf.json_schema.schema, {
        ...DEFAULT_SCHEMA_LIMITS,
        ...o.schemaLimits,
      });
      if (problem)
        throw new HttpError(400, problem.message, problem.code, 'response_format.json_schema.schema');
    }
    const request = {
      ...sampling,
      messages,
      maxTokens: r.max_completion_tokens ?? r.max_tokens,
      logprobs: r.logprobs ?? false,
      topLogprobs: r.logprobs ? (r.top_logprobs ?? 0) : 0,
      ...(rf?.type === 'json_schema'
        ? {
            jsonSchema: o.maxStringLength
              ? (capStringLengths(rf.json_schema.schema, o.maxStringLength) as Record<string, unknown>)
              : rf.json_schema.schema,
          }
        : {}),
      ...(rf?.type === 'json_object' ? { jsonObject: true } : {}),
    };
    const out = await this.serve(
      () => this.backend.generate({ ...request, signal }),
      signal,
      o,
      request.jsonSchema ? ' (json_schema)' : '',
    );
    return {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: this.backend.modelId,
      choices: out.choices.map((c, index) => ({
        index,
        message: { role: 'assistant', content: c.text },
        finish_reason: c.finishReason,
        logprobs: c.logprobs ? { content: c.logprobs.map((t) => ({ ...t, bytes: null })) } : null,
      })),
      ...usageOf(out),
    };
  }

  /** `/v1/completions`: the prompt continued as is, no chat template (a base model's own format). */
  private async textCompletion(
    raw: string,
    o: ModelServerOptions,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const r: CompletionRequest = parseBody(raw, CompletionRequest);
    const sampling = samplingOf(r);
    if (r.echo)
      throw new HttpError(
        400,
        'echo is not supported by this server; send echo: false',
        'unsupported_echo',
        'echo',
      );
    if (r.suffix)
      throw new HttpError(
        400,
        'suffix (insertion) is not supported by this server',
        'unsupported_suffix',
        'suffix',
      );
    if (r.best_of !== undefined && r.best_of !== sampling.n)
      throw new HttpError(
        400,
        'best_of other than n is not supported by this server (it draws n samples and returns them all)',
        'unsupported_best_of',
        'best_of',
      );
    const prompt = typeof r.prompt === 'string' ? r.prompt : r.prompt[0];
    const top = r.logprobs ?? null;
    const request = { ...sampling, prompt, logprobs: top !== null, topLogprobs: top ?? 0 };
    const out = await this.serve(
      () => this.backend.complete({ ...request, signal }),
      signal,
      o,
      ' (completion)',
    );
    return {
      id: `cmpl-${randomBytes(12).toString('hex')}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: this.backend.modelId,
      choices: out.choices.map((c, index) => ({
        index,
        text: c.text,
        finish_reason: c.finishReason,
        logprobs: c.logprobs ? legacyLogprobs(c.logprobs, prompt.length) : null,
      })),
      ...usageOf(out),
    };
  }

  /**
   * Runs one backend call in its turn (one model, one KV cache: the cached prefix is what is fast),
   * gives up as soon as `signal` fires, and counts what it cost in the stats and the log.
   */
  private async serve(
    call: () => Promise<BackendResult>,
    signal: AbortSignal,
    o: ModelServerOptions,
    tag: string,
  ): Promise<BackendResult> {
    const log = o.log;
    const run = this.queue.then(() => {
      if (signal.aborted) throw abortError(signal);
      return call();
    });
    // The next request waits for this one to stop, however it ends.
    this.queue = run.catch(() => {});
    const out = await untilAborted(run, signal);
    const completionTokens = out.choices.reduce((s, c) => s + c.completionTokens, 0);
    const s = this.stats;
    s.requests++;
    s.promptTokens += out.promptTokens;
    s.cachedPromptTokens += out.cachedPromptTokens;
    s.completionTokens += completionTokens;
    s.promptMs += out.promptMs;
    s.generationMs += out.generationMs;
    log?.(
      `${out.promptTokens} prompt tokens (${out.cachedPromptTokens} cached) in ${(out.promptMs / 1000).toFixed(1)} s ` +
        `= ${perSecond(out.promptTokens - out.cachedPromptTokens, out.promptMs)} tok/s; ${completionTokens} generated ` +
        `in ${(out.generationMs / 1000).toFixed(1)} s = ${perSecond(completionTokens, out.generationMs)} tok/s${tag}`,
    );
    for (const c of out.choices) {
      // A reply cut at the token budget is the usual way a small model fails; show how it went.
      if (c.finishReason === 'length')
        log?.(
          `reply cut at ${c.completionTokens} tokens: ${JSON.stringify(c.text.slice(0, 160))} ... ${JSON.stringify(c.text.slice(-80))}`,
        );
    }
    return out;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const ac of this.inFlight) ac.abort();
    await this.queue;
    // Idle keep-alive connections would hold close() open.
    this.server.closeAllConnections();
    await closed;
  }
}
