import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmAgent } from '../../agent/llm-agent.ts';
import type { Observation } from '../../core/observation.ts';
import { imagePart, textPart } from '../../models/chat-model.ts';
import { OpenAIChatModel } from '../../models/openai-chat-model.ts';
import type { BackendRequest, BackendResult, ChatBackend } from './backend.ts';
import { BackendRequestError } from './backend.ts';
import { firstStop, toGbnfJsonSchema } from './llama-backend.ts';
import { capStringLengths, IMAGE_UNSUPPORTED_CODE, ModelServer } from './server.ts';

// The HTTP layer over a scripted backend: canned replies test the plumbing (OpenAI wire shape,
// refusals, accounting), never a model. The real model is exercised by real-model.test.ts.
class ScriptedBackend implements ChatBackend {
  readonly modelId = 'scripted-gguf';
  readonly contextSize = 4096;
  readonly requests: BackendRequest[] = [];
  replies: Array<string | Error> = [];
  async generate(req: BackendRequest): Promise<BackendResult> {
    this.requests.push(req);
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
