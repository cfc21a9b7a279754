import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmAgent } from '../../agent/llm-agent.ts';
import { LmAgent } from '../../agent/lm-agent.ts';
import { Observation } from '../../core/observation.ts';
import { imagePart, textPart } from '../../models/chat-model.ts';
import { OpenAIChatModel } from '../../models/openai-chat-model.ts';
import { createCompletionModel } from '../../models/text-completion.ts';
import type {
  BackendCompletionRequest,
  BackendRequest,
  BackendResult,
  BackendSampling,
  ChatBackend,
} from './backend.ts';
import { BackendRequestError } from './backend.ts';
import { firstStop, toGbnfJsonSchema } from './llama-backend.ts';
import { capStringLengths } from './response-schema.ts';
import { IMAGE_UNSUPPORTED_CODE, ModelServer } from './server.ts';

// The HTTP layer over a scripted backend: canned replies test the plumbing (OpenAI wire shape,
// refusals, accounting), never a model. The real model is exercised by real-model.test.ts.
class ScriptedBackend implements ChatBackend {
  readonly modelId = 'scripted-gguf';
  readonly contextSize = 4096;
  readonly requests: BackendRequest[] = [];
  readonly completions: BackendCompletionRequest[] = [];
  replies: Array<string | Error> = [];
  async generate(req: BackendRequest): Promise<BackendResult> {
    this.requests.push(req);
    return this.reply(req);
  }
  async complete(req: BackendCompletionRequest): Promise<BackendResult> {
    this.completions.push(req);
    return this.reply(req);
  }
  private reply(req: BackendSampling): BackendResult {
    const next = this.replies.shift() ?? 'ok';
    if (next instanceof Error) throw next;
    return {
      choices: Array.from({ length: req.n }, (_, i) => ({
        text: req.n > 1 ? `${next} #${i}` : next,
        finishReason: 'stop' as const,
        completionTokens: 4,
        ...(req.logprobs ? { logprobs: [{ token: next, logprob: -0.5, top_logprobs: [] }] } : {}),
      })),
      promptTokens: 20,
      cachedPromptTokens: 5,
      promptMs: 100,
      generationMs: 200,
    };
  }
  async close(): Promise<void> {}
}

let backend: ScriptedBackend;
let server: ModelServer;
const lines: string[] = [];

beforeAll(async () => {
  backend = new ScriptedBackend();
  server = await ModelServer.start({ backend, port: 0, log: (l) => lines.push(l) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  backend.requests.length = 0;
  backend.completions.length = 0;
  backend.replies = [];
});

async function post(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

function model(): OpenAIChatModel {
  return new OpenAIChatModel({
    model: 'scripted-gguf',
    baseURL: server.url,
    env: {},
    retry: { maxRetries: 0 },
  });
}

describe('serve-model HTTP layer', () => {
  it('binds to 127.0.0.1 and lists its one model', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const r = await fetch(`${server.url}/models`);
    const body = (await r.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toEqual(['scripted-gguf']);
  });

  it('maps the OpenAI request onto the backend: n, temperature, seed, stop, logprobs, json_schema', async () => {
    backend.replies = ['{"a":1}'];
    const schema = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
    const r = await post({
      model: 'x',
      messages: [
        { role: 'developer', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
          ],
        },
      ],
      n: 2,
      temperature: 0.3,
      seed: 7,
      stop: 'END',
      max_tokens: 50,
      logprobs: true,
      top_logprobs: 3,
      response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
    });
    expect(r.status).toBe(200);
    const req = backend.requests[0];
    expect(req).toMatchObject({
      n: 2,
      temperature: 0.3,
      seed: 7,
      stop: ['END'],
      maxTokens: 50,
      logprobs: true,
    });
    expect(req.topLogprobs).toBe(3);
    expect(req.jsonSchema).toEqual(schema);
    expect(req.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'one\ntwo' },
    ]);
    const choices = r.json.choices as Array<{ message: { content: string }; logprobs: unknown }>;
    expect(choices.map((c) => c.message.content)).toEqual(['{"a":1} #0', '{"a":1} #1']);
    expect(r.json.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 8 });
    expect(r.json.timings).toMatchObject({ generation_tokens_per_second: 40 });
  });

  it('refuses image parts with a clear error and its code', async () => {
    const r = await post({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'data:x' } },
          ],
        },
      ],
    });
    expect(r.status).toBe(400);
    const err = r.json.error as { code: string; message: string };
    expect(err.code).toBe(IMAGE_UNSUPPORTED_CODE);
    expect(err.message).toMatch(/text-only/);
    expect(backend.requests).toHaveLength(0);
  });

  it('answers bad requests with 400 naming the field, and backend refusals with their code', async () => {
    const bad = await post({ messages: [], n: 0 });
    expect(bad.status).toBe(400);
    expect((bad.json.error as { message: string }).message).toMatch(/messages/);
    expect((await post('{not json')).status).toBe(400);
    expect((await post({ messages: [{ role: 'user', content: 'x' }], stream: true })).status).toBe(400);
    backend.replies = [new BackendRequestError('the prompt is 9000 tokens', 'context_length_exceeded')];
    const long = await post({ messages: [{ role: 'user', content: 'x' }] });
    expect(long.status).toBe(400);
    expect((long.json.error as { code: string }).code).toBe('context_length_exceeded');
  });

  it('counts tokens and reports tokens/s in /v1/stats and the log', async () => {
    const before = server.stats.completionTokens;
    await post({ messages: [{ role: 'user', content: 'x' }] });
    const stats = (await (await fetch(`${server.url}/stats`)).json()) as Record<string, number>;
    expect(stats.completionTokens).toBe(before + 4);
    expect(stats.generationTokensPerSecond).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/20 prompt tokens \(5 cached\).*4 generated.*tok\/s/);
  });
});

describe('rmsweb clients against a text-only server', () => {
  it('OpenAIChatModel resends without images after the refusal and stops sending them', async () => {
    backend.replies = ['seen', 'again'];
    const m = model();
    expect(m.acceptsImages).toBeUndefined();
    const r = await m.doGenerate({
      messages: [{ role: 'user', content: [textPart('look'), imagePart(Buffer.from([1, 2, 3]))] }],
    });
    expect(r.choices[0].text).toBe('seen');
    expect(m.acceptsImages).toBe(false);
    expect(backend.requests[0].messages[0].content).toMatch(
      /look\n\[image left out: this model reads text only\]/,
    );
    await m.doGenerate({ messages: [{ role: 'user', content: [textPart('b'), imagePart('AAAA')] }] });
    expect(backend.requests).toHaveLength(2);
  });

  it('LlmAgent acts through it with the same model spec (text-only after the first refusal)', async () => {
    const reply = JSON.stringify({
      evaluation_previous_goal: 'start',
      memory: '',
      next_goal: 'click',
      action: [{ click: { index: 1 } }],
    });
    backend.replies = [reply, reply];
    const m = model();
    const agent = new LlmAgent({ model: m });
    const observation = {
      url: 'http://127.0.0.1/x',
      title: 'X',
      tabs: [],
      elements: [],
      text: '[1]<button>Go</button>',
      screenshot: { hash: 'h', mime: 'image/jpeg', data: 'AAAA' },
      scroll: { y: 0, height: 100, viewport: 100 },
      lastActionError: null,
      memory: '',
      progress: '',
      stepIndex: 0,
      notes: [],
    } as unknown as Observation;
    const task = { id: 't', objective: 'press go', startUrl: 'http://127.0.0.1/x' };
    const d = await agent.act({ task: task as never, observation, history: [] });
    expect(d.actions[0]).toMatchObject({ type: 'click', index: 1 });
    expect(m.acceptsImages).toBe(false);
    await agent.act({ task: task as never, observation, history: [] });
    // The second step never offered the image.
    expect(backend.requests).toHaveLength(2);
  });
});

describe('serve-model /v1/completions (raw prompts for base models)', () => {
  const lmTask = { id: 't', objective: 'press go', startUrl: 'http://127.0.0.1/x' };
  const lmObservation = Observation.parse({
    url: 'http://127.0.0.1/x',
    title: 'X',
    elements: [
      { index: 1, tag: 'button', name: 'Go', bbox: { x: 0, y: 0, width: 1, height: 1 }, nodeKey: 'g' },
    ],
  });
  async function complete(
    body: unknown,
    url = server.url,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const r = await fetch(`${url}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  }

  it('hands the prompt to the backend as is and answers in the text_completion shape', async () => {
    backend.replies = [' Paris.'];
    const r = await complete({
      model: 'x',
      prompt: 'The capital of France is',
      max_tokens: 16,
      temperature: 0,
      seed: 3,
      stop: '\n',
    });
    expect(r.status).toBe(200);
    // The raw route, never the chat template's.
    expect(backend.requests).toHaveLength(0);
    expect(backend.completions).toHaveLength(1);
    expect(backend.completions[0]).toMatchObject({
      prompt: 'The capital of France is',
      n: 1,
      maxTokens: 16,
      temperature: 0,
      seed: 3,
      stop: ['\n'],
      logprobs: false,
    });
    expect(backend.completions[0].signal).toBeInstanceOf(AbortSignal);
    expect(r.json).toMatchObject({
      object: 'text_completion',
      model: 'scripted-gguf',
      choices: [{ index: 0, text: ' Paris.', finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 },
    });
    expect(r.json.id).toMatch(/^cmpl-/);
    expect(lines.at(-1)).toMatch(/20 prompt tokens .* \(completion\)$/);
  });

  it('takes stop as a list, a one-prompt list, n samples, and logprobs in the legacy shape', async () => {
    backend.replies = ['x'];
    const r = await complete({ prompt: ['go'], stop: ['\n', 'END'], n: 2, logprobs: 2, best_of: 2 });
    expect(r.status).toBe(200);
    expect(backend.completions[0]).toMatchObject({
      prompt: 'go',
      stop: ['\n', 'END'],
      n: 2,
      logprobs: true,
      topLogprobs: 2,
      temperature: 1,
    });
    const choices = r.json.choices as Array<{ text: string; logprobs: Record<string, unknown> }>;
    expect(choices.map((c) => c.text)).toEqual(['x #0', 'x #1']);
    expect(choices[0].logprobs).toEqual({
      tokens: ['x'],
      token_logprobs: [-0.5],
      top_logprobs: [{}],
      text_offset: [2],
    });
  });

  it('answers bad requests with a 400 naming the field, before the backend', async () => {
    for (const [body, field] of [
      [{ max_tokens: 4 }, /prompt/],
      [{ prompt: '' }, /prompt/],
      [{ prompt: [1, 2, 3] }, /prompt/],
      [{ prompt: ['a', 'b'] }, /prompt/],
      [{ prompt: 'a', max_tokens: 0 }, /max_tokens/],
      [{ prompt: 'a', temperature: 3 }, /temperature/],
      [{ prompt: 'a', n: 17 }, /\bn\b/],
      [{ prompt: 'a', stop: 7 }, /stop/],
      [{ prompt: 'a', logprobs: true }, /logprobs/],
    ] as const) {
      const r = await complete(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const err = r.json.error as { message: string; code: string; type: string };
      expect(err.message, JSON.stringify(body)).toMatch(field);
      expect(err).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error' });
    }
    for (const [body, code] of [
      [{ prompt: 'a', stream: true }, 'unsupported_stream'],
      [{ prompt: 'a', echo: true }, 'unsupported_echo'],
      [{ prompt: 'a', suffix: 'end' }, 'unsupported_suffix'],
      [{ prompt: 'a', best_of: 3 }, 'unsupported_best_of'],
    ] as const) {
      const r = await complete(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((r.json.error as { code: string; param: string }).code).toBe(code);
    }
    expect((await complete('{not json')).status).toBe(400);
    expect(backend.completions).toHaveLength(0);
    // A backend refusal keeps its code, as on the chat route.
    backend.replies = [new BackendRequestError('the prompt is 9000 tokens', 'context_length_exceeded')];
    const long = await complete({ prompt: 'a' });
    expect(long.status).toBe(400);
    expect((long.json.error as { code: string }).code).toBe('context_length_exceeded');
  });

  it('OpenAICompletionModel and LmAgent get their decision through it', async () => {
    const m = createCompletionModel(`openai:scripted-gguf@${server.url}`, { env: {} });
    backend.replies = [' Paris', '{"click":{"index":1}}'];
    const c = await m.complete({ prompt: 'The capital of France is', maxTokens: 8, stop: ['\n'] });
    expect(c).toMatchObject({ text: ' Paris', finishReason: 'stop' });
    expect(c.usage).toMatchObject({ promptTokens: 20, completionTokens: 4 });
    const agent = new LmAgent({ model: m });
    const d = await agent.act({ task: lmTask as never, observation: lmObservation, history: [] });
    expect(d.actions).toEqual([{ type: 'click', index: 1 }]);
    // The agent's plain-text prompt reached the backend whole, greedy, stopping at a newline.
    expect(backend.completions[1]).toMatchObject({ temperature: 0, stop: ['\n'], maxTokens: 64 });
    expect(backend.completions[1].prompt).toMatch(/Action: $/);
  });

  it('frees the model when the client hangs up, answers 504 past --timeout, and serves the next', async () => {
    // The first completion holds the model until its request is aborted, as a long one would.
    const aborted: string[] = [];
    let calls = 0;
    const holding: ChatBackend = {
      modelId: 'holding',
      contextSize: 4096,
      generate: () => Promise.reject(new Error('not used')),
      complete: (req) => {
        if (++calls > 2) return backend.complete(req);
        return new Promise((_, reject) => {
          req.signal?.addEventListener(
            'abort',
            () => {
              aborted.push(req.prompt);
              reject(new Error('aborted'));
            },
            { once: true },
          );
        });
      },
      close: async () => {},
    };
    const s = await ModelServer.start({ backend: holding, port: 0, timeoutMs: 1500 });
    try {
      const ac = new AbortController();
      const hungUp = fetch(`${s.url}/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'hang up' }),
        signal: ac.signal,
      }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      ac.abort();
      expect(await hungUp).toBeInstanceOf(Error);
      await expect.poll(() => aborted).toEqual(['hang up']);
      const t0 = Date.now();
      const late = await complete({ prompt: 'too slow' }, s.url);
      expect(late.status).toBe(504);
      expect((late.json.error as { code: string }).code).toBe('timeout');
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(aborted).toEqual(['hang up', 'too slow']);
      backend.replies = ['served'];
      const next = await complete({ prompt: 'next' }, s.url);
      expect(next.status).toBe(200);
      expect((next.json.choices as Array<{ text: string }>)[0].text).toBe('served');
    } finally {
      await s.close();
    }
  }, 10_000);

  it('refuses a body over the limit with a 413, as the chat route does', async () => {
    const s = await ModelServer.start({ backend, port: 0, maxBodyBytes: 1000 });
    try {
      const r = await complete({ prompt: 'x'.repeat(5000) }, s.url);
      expect(r.status).toBe(413);
      expect((r.json.error as { code: string }).code).toBe('body_too_large');
      expect(backend.completions).toHaveLength(0);
    } finally {
      await s.close();
    }
  });
});

describe('firstStop', () => {
  it('finds the earliest stop string', () => {
    expect(firstStop('abc END x STOP', ['STOP', 'END'])).toBe(4);
    expect(firstStop('abc', ['x', ''])).toBe(-1);
  });
});

describe('schema rewriting for the grammar', () => {
  it('caps free strings but not enums, consts or property names', () => {
    const out = capStringLengths(
      {
        type: 'object',
        properties: {
          text: { type: 'string' },
          short: { type: 'string', maxLength: 10 },
          kind: { type: 'string', enum: ['a', 'b'] },
          list: { type: 'array', items: { type: 'string' } },
        },
        required: ['text'],
      },
      300,
    ) as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(out.properties.text.maxLength).toBe(300);
    expect(out.properties.short.maxLength).toBe(10);
    expect(out.properties.kind.maxLength).toBeUndefined();
    expect((out.properties.list.items as Record<string, unknown>).maxLength).toBe(300);
    expect(out.required).toEqual(['text']);
  });

  it('reads anyOf as oneOf (node-llama-cpp would take an unknown combinator for any value)', () => {
    const out = toGbnfJsonSchema({
      $schema: 'x',
      type: 'object',
      properties: { anyOf: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    });
    expect(out).toEqual({
      type: 'object',
      properties: { anyOf: { oneOf: [{ type: 'string' }, { type: 'null' }] } },
    });
  });
});

// What a careless or hostile client can send: each must be refused before it reaches the model,
// with a 400 naming the limit, and must never cost the model time.
describe('serve-model under abuse', () => {
  let guarded: ModelServer;
  const gBackend = new ScriptedBackend();
  beforeAll(async () => {
    // The CLI's default string cap: capStringLengths walks the schema before the backend sees it.
    guarded = await ModelServer.start({ backend: gBackend, port: 0, maxStringLength: 300 });
  });
  afterAll(async () => {
    await guarded.close();
  });
  beforeEach(() => {
    gBackend.requests.length = 0;
    gBackend.completions.length = 0;
    gBackend.replies = [];
  });

  async function postSchema(schema: unknown): Promise<{ status: number; error: Record<string, string> }> {
    const r = await fetch(`${guarded.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
      }),
    });
    const body = (await r.json()) as { error?: Record<string, string> };
    return { status: r.status, error: body.error ?? {} };
  }

  function nested(depth: number): Record<string, unknown> {
    let s: Record<string, unknown> = { type: 'string' };
    for (let i = 1; i < depth; i++) s = { type: 'object', properties: { a: s }, required: ['a'] };
    return s;
  }

  it('refuses a 200,000-value enum with a 400 naming the limit, before the backend', async () => {
    const r = await postSchema({ type: 'string', enum: Array.from({ length: 200_000 }, (_, i) => `v${i}`) });
    expect(r.status).toBe(400);
    expect(r.error.message).toMatch(/enum length 200000 exceeds 1024/);
    expect(r.error.type).toBe('invalid_request_error');
    expect(r.error.code).toBe('schema_enum_too_long');
    expect(gBackend.requests).toHaveLength(0);
  });

  it('refuses a 2,000-deep schema and an oversized one with a 400 naming the limit', async () => {
    const deep = await postSchema(nested(2000));
    expect(deep.status).toBe(400);
    expect(deep.error.message).toMatch(/schema depth 2000 exceeds 32/);
    expect(deep.error.code).toBe('schema_too_deep');
    const props = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: 'integer' }]),
    );
    const big = await postSchema({ type: 'object', properties: props });
    expect(big.status).toBe(400);
    expect(big.error.message).toMatch(/schema size \d+ bytes exceeds 65536/);
    expect(big.error.code).toBe('schema_too_large');
    // Within the limits, the same shapes pass.
    expect((await postSchema(nested(32))).status).toBe(200);
    expect(gBackend.requests).toHaveLength(1);
  });

  it('answers a malformed schema with a 400, never a 500', async () => {
    for (const [schema, message] of [
      [{ type: 'object', properties: null }, /properties at #\/ must be an object/],
      [{ type: 'object', properties: { a: { type: 'strng' } } }, /unknown type "strng" at #\/properties\/a/],
      [
        { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
        /\$ref "#\/\$defs\/missing" at #\/properties\/a/,
      ],
      [{ type: 'array', items: 7 }, /schema at #\/items must be an object/],
      [{ type: 'object', required: 'a' }, /required at #\/ must be an array of property names/],
    ] as const) {
      const r = await postSchema(schema);
      expect(r.status, JSON.stringify(schema)).toBe(400);
      expect(r.error.message).toMatch(message);
      expect(r.error.code).toBe('invalid_schema');
    }
    // A reference that resolves is fine.
    const ok = await postSchema({
      $defs: { name: { type: 'string' } },
      type: 'object',
      properties: { a: { $ref: '#/$defs/name' } },
    });
    expect(ok.status).toBe(200);
    expect(gBackend.requests).toHaveLength(1);
  });

  it('answers a body over the limit with a 413 the client can read, then closes', async () => {
    // 40 MB, over the 32 MiB default: the client is still sending when the server knows.
    const r = await fetch(`${guarded.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(40_000_000) }] }),
    });
    expect(r.status).toBe(413);
    expect(r.headers.get('connection')).toBe('close');
    const body = (await r.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('body_too_large');
    expect(body.error.message).toMatch(/over 33554432 bytes/);
    expect(gBackend.requests).toHaveLength(0);
    // The server still serves.
    expect((await postSchema({ type: 'string' })).status).toBe(200);
  });

  it('frees the model when a request times out, and answers it with a 504', async () => {
    // A backend that holds the model until its request is aborted, as a long generation would.
    const stuck: ChatBackend = {
      modelId: 'stuck',
      contextSize: 4096,
      generate: (req) =>
        new Promise((_, reject) => {
          req.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
      complete: () => Promise.reject(new Error('not used')),
      close: async () => {},
    };
    const s = await ModelServer.start({ backend: stuck, port: 0, timeoutMs: 300 });
    try {
      const t0 = Date.now();
      const [a, b] = await Promise.all(
        [1, 2].map(() =>
          fetch(`${s.url}/chat/completions`, {
            method: 'POST',
            body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
          }),
        ),
      );
      expect([a.status, b.status]).toEqual([504, 504]);
      expect(((await a.json()) as { error: { code: string } }).error.code).toBe('timeout');
      // Each gave up after its own 300 ms, the second while still queued behind the first.
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      await s.close();
    }
  }, 10_000);
});
