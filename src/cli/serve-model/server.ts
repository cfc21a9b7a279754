import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { describeZodIssues } from '../../core/errors.ts';
import { type BackendMessage, BackendRequestError, type ChatBackend } from './backend.ts';
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

// The OpenAI chat-completions request, as far as a local text model can honour it. Unknown fields
// pass (clients send many); fields with a meaning here are checked.
const ContentPart = z.looseObject({ type: z.string() });
const Message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
});
const ChatRequest = z.looseObject({
  model: z.string().optional(),
  messages: z.array(Message).min(1),
  n: z.number().int().min(1).max(16).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
  max_completion_tokens: z.number().int().min(1).optional(),
  seed: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(8)]).optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.number().int().min(0).max(20).optional(),
  stream: z.boolean().optional(),
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
 * An OpenAI-compatible `/v1/chat/completions` server over a local backend, bound to 127.0.0.1
 * only. Requests are served one at a time (one model, one KV cache); others wait in order.
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
        send(res, 200, await this.complete(body, o, ac.signal));
      } else {
        throw new HttpError(
          404,
          `no route ${req.method} ${path}; this server answers POST /v1/chat/completions`,
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

  private async complete(
    raw: string,
    o: ModelServerOptions,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const log = o.log;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (e) {
      throw new HttpError(400, `request body is not JSON: ${(e as Error).message}`, 'invalid_json');
    }
    const parsed = ChatRequest.safeParse(json);
    if (!parsed.success)
      throw new HttpError(
        400,
        `invalid request: ${describeZodIssues(parsed.error.issues)}`,
        'invalid_request',
      );
    const r = parsed.data;
    if (r.stream)
      throw new HttpError(
        400,
        'stream is not supported by this server; send stream: false',
        'unsupported_stream',
        'stream',
      );
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
      messages,
      n: r.n ?? 1,
      temperature: r.temperature ?? 1,
      ...(r.top_p !== undefined ? { topP: r.top_p } : {}),
      maxTokens: r.max_completion_tokens ?? r.max_tokens,
      ...(r.seed !== undefined ? { seed: r.seed } : {}),
      stop: r.stop === undefined ? [] : typeof r.stop === 'string' ? [r.stop] : r.stop,
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
    // One generation at a time: the model has one KV cache, and the cached prefix is what is fast.
    const run = this.queue.then(() => {
      if (signal.aborted) throw abortError(signal);
      return this.backend.generate({ ...request, signal });
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
        `in ${(out.generationMs / 1000).toFixed(1)} s = ${perSecond(completionTokens, out.generationMs)} tok/s` +
        `${request.jsonSchema ? ' (json_schema)' : ''}`,
    );
    for (const c of out.choices) {
      // A reply cut at the token budget is the usual way a small model fails; show how it went.
      if (c.finishReason === 'length')
        log?.(
          `reply cut at ${c.completionTokens} tokens: ${JSON.stringify(c.text.slice(0, 160))} ... ${JSON.stringify(c.text.slice(-80))}`,
        );
    }
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

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const ac of this.inFlight) ac.abort();
    await this.queue;
    // Idle keep-alive connections would hold close() open.
    this.server.closeAllConnections();
    await closed;
  }
}
