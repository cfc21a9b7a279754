import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InputError, ModelApiError } from '../core/index.ts';
import { imagePart, textPart } from './chat-model.ts';
import { createChatModel, OpenAIChatModel } from './openai-chat-model.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './testing/fake-openai-server.ts';
import { UsageMeter } from './usage-meter.ts';

// Canned replies below test plumbing only; they say nothing about any model's quality.
let server: FakeOpenAIServer;
const KEY = 'sk-test-key-0123456789';
const fast = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 };

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

function model(extra: Partial<ConstructorParameters<typeof OpenAIChatModel>[0]> = {}) {
  return new OpenAIChatModel({
    model: 'gpt-4o-mini',
    baseURL: server.baseURL,
    apiKey: KEY,
    retry: fast,
    env: {},
    ...extra,
  });
}

describe('OpenAIChatModel request shape', () => {
  it('sends images as data URLs, n, temperature, max tokens, logprobs and response_format', async () => {
    server.enqueue({
      type: 'text',
      text: ['first', 'second', 'third'],
      logprobs: [{ token: 'first', logprob: -0.25, top: [{ token: 'first', logprob: -0.25 }] }],
    });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const r = await model().doGenerate({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [textPart('what is this?'), imagePart(jpeg)] },
      ],
      n: 3,
      temperature: 0.7,
      maxTokens: 64,
      logprobs: true,
      topLogprobs: 1,
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' } },
    });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body;
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.n).toBe(3);
    expect(body.temperature).toBe(0.7);
    expect(body.max_tokens).toBe(64);
    expect(body.logprobs).toBe(true);
    expect(body.top_logprobs).toBe(1);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: { type: 'object' } },
    });
    expect(body.messages[0]).toEqual({ role: 'system', content: 'be brief' });
    expect(body.messages[1].content[0]).toEqual({ type: 'text', text: 'what is this?' });
    expect(body.messages[1].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` },
    });
    expect(r.choices.map((c) => c.text)).toEqual(['first', 'second', 'third']);
    expect(r.choices[0].logprobs).toEqual([
      { token: 'first', logprob: -0.25, top: [{ token: 'first', logprob: -0.25 }] },
    ]);
    expect(r.rawId).toMatch(/^chatcmpl-fake-/);
    expect(r.cached).toBe(false);
  });

  it('uses max_completion_tokens for reasoning models and omits logprobs when the server sends none', async () => {
    server.enqueue({ type: 'text', text: 'ok' });
    const r = await model({ model: 'o4-mini' }).doGenerate({
      messages: [{ role: 'user', content: 'hi' }],
      maxTokens: 10,
      logprobs: true,
    });
    expect(server.requests[0].body.max_completion_tokens).toBe(10);
    expect(server.requests[0].body.max_tokens).toBeUndefined();
    expect(r.choices[0].logprobs).toBeUndefined();
  });

  it('createChatModel reads the URL from the spec and the key from the role variable', async () => {
    server.enqueue({ type: 'text', text: 'ok' });
    const m = createChatModel(`openai:my-local-model@${server.baseURL}`, {
      role: 'judge',
      env: { RMSWEB_JUDGE_API_KEY: 'sk-judge-role-key-99', OPENAI_API_KEY: 'sk-other-key-000000' },
    });
    await m.doGenerate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(m.id).toBe('my-local-model');
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-judge-role-key-99');
  });

  it('refuses the OpenAI default endpoint without a key', () => {
    expect(() => new OpenAIChatModel({ model: 'gpt-4o', role: 'teacher', env: {} })).toThrow(InputError);
    expect(() => new OpenAIChatModel({ model: 'gpt-4o', role: 'teacher', env: {} })).toThrow(
      /RMSWEB_TEACHER_API_KEY/,
    );
  });
});

describe('OpenAIChatModel retries and failures', () => {
  it('retries on 429 and 500, then succeeds', async () => {
    server.enqueue(
      { type: 'error', status: 429 },
      { type: 'error', status: 500 },
      { type: 'text', text: 'finally' },
    );
    const r = await model().doGenerate({ messages: [{ role: 'user', content: 'x' }] });
    expect(r.choices[0].text).toBe('finally');
    expect(server.requests).toHaveLength(3);
  });

  it('retries a garbage body, then succeeds', async () => {
    server.enqueue(
      { type: 'garbage' },
      { type: 'garbage', contentType: 'text/html' },
      { type: 'text', text: 'fine' },
    );
    const r = await model().doGenerate({ messages: [{ role: 'user', content: 'x' }] });
    expect(r.choices[0].text).toBe('fine');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries with a clear ModelApiError', async () => {
    server.enqueue(
      { type: 'error', status: 503 },
      { type: 'error', status: 503 },
      { type: 'error', status: 503 },
    );
    const err = await model()
      .doGenerate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(ModelApiError.isInstance(err)).toBe(true);
    expect(err.status).toBe(503);
    expect(err.message).toMatch(/gpt-4o-mini at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 503/);
    expect(err.message).toMatch(/gave up after 3 attempts/);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    server.enqueue({ type: 'error', status: 400, message: 'bad request shape' });
    const err = await model()
      .doGenerate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(ModelApiError.isInstance(err)).toBe(true);
    expect(err.isRetryable).toBe(false);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/bad request shape/);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a hanging request, and retries it into a success', async () => {
    server.enqueue({ type: 'hang' });
    const err = await model({ timeoutMs: 150, retry: { maxRetries: 0 } })
      .doGenerate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(ModelApiError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/timed out after 150 ms/);
    expect(err.isRetryable).toBe(true);

    // Spare replies so that a slow (loaded) machine timing out a normal reply still ends in a success.
    server.enqueue(
      { type: 'hang' },
      ...Array.from({ length: 3 }, () => ({ type: 'text' as const, text: 'after hang' })),
    );
    const r = await model({ timeoutMs: 300, retry: { maxRetries: 3, baseDelayMs: 1 } }).doGenerate({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(r.choices[0].text).toBe('after hang');
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('caps concurrent requests', async () => {
    for (let i = 0; i < 6; i++) server.enqueue({ type: 'text', text: `r${i}`, delayMs: 100 });
    const m = model({ concurrency: 2 });
    const rs = await Promise.all(
      Array.from({ length: 6 }, () => m.doGenerate({ messages: [{ role: 'user', content: 'x' }] })),
    );
    expect(rs).toHaveLength(6);
    expect(server.maxInFlight()).toBe(2);
  });
});

describe('OpenAIChatModel accounting and cache', () => {
  it('computes cost from the price table and sums usage per role', async () => {
    const meter = new UsageMeter();
    server.enqueue(
      { type: 'text', text: 'a', usage: { prompt_tokens: 1000, completion_tokens: 500 } },
      { type: 'text', text: 'b', usage: { prompt_tokens: 2000, completion_tokens: 0 } },
      { type: 'text', text: 'c', usage: { prompt_tokens: 100, completion_tokens: 100 } },
    );
    const teacher = model({ role: 'teacher', meter });
    const r1 = await teacher.doGenerate({ messages: [{ role: 'user', content: 'x' }] });
    expect(r1.usage.promptTokens).toBe(1000);
    expect(r1.usage.completionTokens).toBe(500);
    expect(r1.usage.costUsd).toBeCloseTo((1000 * 0.15 + 500 * 0.6) / 1e6, 12);
    await teacher.doGenerate({ messages: [{ role: 'user', content: 'y' }] });
    const judge = model({
      role: 'judge',
      meter,
      model: 'local-llm',
      prices: { 'local-llm': { input: 1, output: 2 } },
    });
    const r3 = await judge.doGenerate({ messages: [{ role: 'user', content: 'z' }] });
    expect(r3.usage.costUsd).toBeCloseTo((100 * 1 + 100 * 2) / 1e6, 12);
    expect(meter.get('teacher')).toEqual({
      promptTokens: 3000,
      completionTokens: 500,
      costUsd: expect.closeTo((3000 * 0.15 + 500 * 0.6) / 1e6, 12),
      calls: 2,
    });
    expect(meter.get('judge').calls).toBe(1);
    expect(meter.total().promptTokens).toBe(3100);
  });

  it('answers a repeated request from the disk cache without a request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmsweb-cache-'));
    try {
      server.enqueue({ type: 'text', text: 'cached answer' }, { type: 'text', text: 'other answer' });
      const m = model({ cacheDir: dir });
      const opts = { messages: [{ role: 'user' as const, content: 'same' }], temperature: 0 };
      const a = await m.doGenerate(opts);
      const b = await model({ cacheDir: dir }).doGenerate(opts);
      expect(server.requests).toHaveLength(1);
      expect(b.cached).toBe(true);
      expect(b.choices[0].text).toBe('cached answer');
      expect(b.usage).toEqual({ promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 });
      expect(a.cached).toBe(false);
      const c = await m.doGenerate({ ...opts, temperature: 0.5 });
      expect(c.choices[0].text).toBe('other answer');
      expect(server.requests).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('API keys never leak', () => {
  it('keeps a planted key out of errors, cache files and usage records', async () => {
    const planted = 'sk-planted-SECRET-7f3a9c21d4e8b6';
    const dir = mkdtempSync(join(tmpdir(), 'rmsweb-leak-'));
    const written: string[] = [];
    try {
      const meter = new UsageMeter();
      const m = new OpenAIChatModel({
        model: 'gpt-4o',
        role: 'teacher',
        baseURL: server.baseURL,
        env: { RMSWEB_TEACHER_API_KEY: planted },
        cacheDir: dir,
        meter,
        // Long enough that normal replies never time out on a loaded machine; the hangs still do.
        timeoutMs: 1000,
        retry: { maxRetries: 1, baseDelayMs: 1 },
      });
      const echo = `Incorrect API key provided: ${planted}. Authorization: Bearer ${planted}`;
      server.enqueue(
        { type: 'text', text: `reply that echoes ${planted}` },
        { type: 'error', status: 401, message: echo },
        { type: 'error', status: 500, message: echo },
        { type: 'error', status: 500, message: echo },
        { type: 'garbage', body: `{"oops": "${planted}"`, contentType: 'text/plain' },
        { type: 'garbage', body: `<html>${planted}</html>`, contentType: 'text/plain' },
        { type: 'hang' },
        { type: 'hang' },
      );
      await m.doGenerate({ messages: [{ role: 'user', content: 'ok' }] });
      for (let i = 0; i < 4; i++) {
        const e = await m.doGenerate({ messages: [{ role: 'user', content: `fail ${i}` }] }).catch((x) => x);
        expect(ModelApiError.isInstance(e)).toBe(true);
        written.push(String(e), e.message, e.stack ?? '', JSON.stringify(e), JSON.stringify(e.details));
      }
      expect(server.requests[0].headers.authorization).toBe(`Bearer ${planted}`);
      const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) written.push(readFileSync(join(f.parentPath, f.name), 'utf8'));
      written.push(JSON.stringify(meter), JSON.stringify(m));
      const all = written.join('\n');
      expect(all).toMatch(/HTTP 401/);
      expect(all).toMatch(/timed out/);
      expect(all).toMatch(/malformed chat completion body/);
      expect(all).toContain('[REDACTED]');
      expect(all).not.toContain(planted);
      expect(all).not.toContain('SECRET-7f3a9c21d4e8b6');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
