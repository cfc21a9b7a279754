import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { extractJson, generateObject, ModelOutputError } from './generate-object.ts';
import { OpenAIChatModel } from './openai-chat-model.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './testing/fake-openai-server.ts';

// Canned replies: plumbing tests only.
let server: FakeOpenAIServer;
let model: OpenAIChatModel;
const Answer = z.object({
  city: z.string(),
  stars: z.number().int().min(1).max(5),
  note: z.string().default(''),
});

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  model = new OpenAIChatModel({
    model: 'gpt-4o-mini',
    baseURL: server.baseURL,
    apiKey: 'sk-test-gen-object',
    env: {},
    retry: { maxRetries: 0 },
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

describe('extractJson', () => {
  it('reads plain, fenced and prose-wrapped JSON', () => {
    expect(extractJson('{"a":1}')).toEqual({ a: 1 });
    expect(extractJson('Here you go:\n```json\n{"a":2}\n```\nthanks')).toEqual({ a: 2 });
    expect(extractJson('Sure! {"a":3} hope it helps')).toEqual({ a: 3 });
    expect(() => extractJson('no json here')).toThrow(SyntaxError);
  });
});

describe('generateObject', () => {
  it('sends the zod schema as response_format and parses a valid reply in one call', async () => {
    server.enqueue({ type: 'text', text: '{"city":"Lisbon","stars":4}' });
    const r = await generateObject(model, Answer, {
      messages: [{ role: 'user', content: 'rate it' }],
      schemaName: 'rating',
    });
    expect(r.object).toEqual({ city: 'Lisbon', stars: 4, note: '' });
    expect(r.repaired).toBe(false);
    const rf = server.requests[0].body.response_format;
    expect(rf.type).toBe('json_schema');
    expect(rf.json_schema.name).toBe('rating');
    expect(rf.json_schema.schema.required).toEqual(['city', 'stars']);
    expect(server.requests).toHaveLength(1);
  });

  it('repairs once: invalid JSON first, valid second, with the error sent back', async () => {
    server.enqueue(
      { type: 'text', text: 'I think {"city": "Lisbon", stars: four}' },
      { type: 'text', text: '{"city":"Lisbon","stars":4}' },
    );
    const r = await generateObject(model, Answer, { messages: [{ role: 'user', content: 'rate it' }] });
    expect(r.repaired).toBe(true);
    expect(r.object.stars).toBe(4);
    expect(r.usage.calls).toBe(2);
    const second = server.requests[1].body.messages;
    expect(second).toHaveLength(3);
    expect(second[1]).toEqual({ role: 'assistant', content: 'I think {"city": "Lisbon", stars: four}' });
    expect(second[2].content).toMatch(/not valid JSON/);
  });

  it('repairs a schema failure by naming the failing field', async () => {
    server.enqueue(
      { type: 'text', text: '{"city":"Lisbon","stars":9}' },
      { type: 'text', text: '{"city":"Lisbon","stars":5}' },
    );
    const r = await generateObject(model, Answer, { messages: [{ role: 'user', content: 'rate it' }] });
    expect(r.object.stars).toBe(5);
    expect(server.requests[1].body.messages[2].content).toMatch(/stars:/);
  });

  it('throws ModelOutputError with the spent usage after the repair also fails', async () => {
    server.enqueue({ type: 'text', text: 'nope' }, { type: 'text', text: '{"city":1}' });
    const err = await generateObject(model, Answer, {
      messages: [{ role: 'user', content: 'rate it' }],
    }).catch((e) => e);
    expect(ModelOutputError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/failed its schema twice.*city/);
    expect(err.usage.calls).toBe(2);
    expect(err.reply).toBe('{"city":1}');
    expect(server.requests).toHaveLength(2);
  });

  it('can leave response_format out for servers that reject it', async () => {
    server.enqueue({ type: 'text', text: '{"city":"Porto","stars":3}' });
    await generateObject(model, Answer, {
      messages: [{ role: 'user', content: 'x' }],
      useResponseFormat: false,
    });
    expect(server.requests[0].body.response_format).toBeUndefined();
  });
});
