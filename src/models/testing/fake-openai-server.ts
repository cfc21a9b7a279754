import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible server for PROTOCOL TESTS ONLY. It answers POST /v1/chat/completions
 * from a scripted queue of replies and can inject failures (HTTP errors, garbage bodies, hangs).
 * Its canned replies exercise plumbing - request shape, retries, parsing, repair, accounting - and
 * say nothing about any model's quality; results obtained against it must never be reported as
 * model results.
 */

/** One scripted reply. */
export type FakeReply =
  | {
      type: 'text';
      /** One text per choice; a single string is repeated to fill the request's `n`. */
      text: string | string[];
      usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
      /** Token log-probs for each choice (same for all choices when one array is given). */
      logprobs?: Array<{ token: string; logprob: number; top?: Array<{ token: string; logprob: number }> }>;
      model?: string;
      finishReason?: string;
      /** Wait this long before answering (for concurrency tests). */
      delayMs?: number;
    }
  | { type: 'error'; status: number; message?: string }
  | { type: 'garbage'; body?: string; contentType?: string }
  | { type: 'hang' };

/** A scripted reply, or a function deciding the reply from the request it answers. */
export type FakeReplyScript = FakeReply | ((req: RecordedRequest) => FakeReply);

/** What the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: any;
}

export interface FakeOpenAIServer {
  /** Base URL to give a client, ending in `/v1`. */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Appends scripted replies to the queue. */
  enqueue(...replies: FakeReplyScript[]): void;
  /** Replies still queued. */
  pending(): number;
  /** Drops queued replies and recorded requests, so one test's leftovers cannot leak into the next. */
  reset(): void;
  /** Most chat requests that were being answered at the same time. */
  maxInFlight(): number;
  close(): Promise<void>;
}

export interface FakeServerOptions {
  replies?: FakeReplyScript[];
  /** Used when the queue is empty; without it an empty queue answers 500 so tests fail loudly. */
  fallback?: FakeReplyScript;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

let counter = 0;

function completion(reply: Extract<FakeReply, { type: 'text' }>, body: any): unknown {
  const n = typeof body?.n === 'number' && body.n > 0 ? body.n : 1;
  const texts = Array.isArray(reply.text)
    ? reply.text
    : Array.from({ length: n }, () => reply.text as string);
  const wantLogprobs = body?.logprobs === true && reply.logprobs;
  return {
    id: `chatcmpl-fake-${++counter}`,
    object: 'chat.completion',
    created: 0,
    model: reply.model ?? body?.model ?? 'fake-model',
    choices: texts.map((text, index) => ({
      index,
      message: { role: 'assistant', content: text },
      finish_reason: reply.finishReason ?? 'stop',
      logprobs: wantLogprobs
        ? {
            content: reply.logprobs!.map((t) => ({
              token: t.token,
              logprob: t.logprob,
              bytes: null,
              top_logprobs: t.top ?? [],
            })),
          }
        : null,
    })),
    usage: {
      prompt_tokens: reply.usage?.prompt_tokens ?? 10,
      completion_tokens: reply.usage?.completion_tokens ?? 5,
      total_tokens: (reply.usage?.prompt_tokens ?? 10) + (reply.usage?.completion_tokens ?? 5),
      ...(reply.usage?.cached_tokens !== undefined
        ? { prompt_tokens_details: { cached_tokens: reply.usage.cached_tokens } }
        : {}),
    },
  };
}

/** Starts the fake server on 127.0.0.1 with a free port. Close it in `afterAll`. */
export async function startFakeOpenAIServer(opts: FakeServerOptions = {}): Promise<FakeOpenAIServer> {
  const queue: FakeReplyScript[] = [...(opts.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let inFlight = 0;
  let maxInFlight = 0;

  const send = (res: ServerResponse, status: number, payload: string, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  };

  const server: Server = createServer(async (req, res) => {
    const text = await readBody(req);
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Keep the raw text; the test decides whether that is a failure.
    }
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: { ...req.headers },
      body,
    };
    requests.push(recorded);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return send(
        res,
        404,
        JSON.stringify({ error: { message: `fake server: no route ${req.method} ${req.url}` } }),
      );
    }
    const script = queue.shift() ?? opts.fallback;
    if (!script) {
      return send(
        res,
        500,
        JSON.stringify({ error: { message: 'fake server: reply queue is empty', type: 'fake' } }),
      );
    }
    const reply = typeof script === 'function' ? script(recorded) : script;
    switch (reply.type) {
      case 'text':
        if (reply.delayMs) {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, reply.delayMs));
          inFlight--;
        }
        return send(res, 200, JSON.stringify(completion(reply, body)));
      case 'error':
        return send(
          res,
          reply.status,
          JSON.stringify({ error: { message: reply.message ?? `fake error ${reply.status}`, type: 'fake' } }),
        );
      case 'garbage':
        return send(
          res,
          200,
          reply.body ?? '<html>upstream exploded{',
          reply.contentType ?? 'application/json',
        );
      case 'hang':
        // Never answer; close() ends it.
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...r) => queue.push(...r),
    pending: () => queue.length,
    maxInFlight: () => maxInFlight,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      maxInFlight = 0;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
