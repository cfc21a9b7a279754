import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../core/index.ts';
import { OpenAIChatModel } from './openai-chat-model.ts';
import { LlmTaskRewriter, readQueries, taskFromReply } from './task-rewriter.ts';
import {
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAIServer,
} from './testing/fake-openai-server.ts';

// Canned rewriter replies: they test the synthesis plumbing (validation, drops, repair), not rewriting quality.
let server: FakeOpenAIServer;
let rewriter: LlmTaskRewriter;
const tmp = mkdtempSync(join(tmpdir(), 'rmsweb-synth-'));

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  const model = new OpenAIChatModel({
    model: 'rewriter-model',
    baseURL: server.baseURL,
    apiKey: 'sk-test-rewriter',
    env: {},
    retry: { maxRetries: 0 },
  });
  rewriter = new LlmTaskRewriter({ model, concurrency: 2 });
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
});

describe('readQueries', () => {
  it('reads plain lines and JSONL objects, skipping blanks', () => {
    const f = join(tmp, 'q.txt');
    writeFileSync(
      f,
      'cheap flights to lisbon in may\n\n{"query":"red kettle under $30","site":"Shop","startUrl":"https://shop.example/"}\r\n',
    );
    expect(readQueries(f)).toEqual([
      { query: 'cheap flights to lisbon in may', line: 1 },
      { query: 'red kettle under $30', site: 'Shop', startUrl: 'https://shop.example/', line: 3 },
    ]);
  });
  it('names the file and line of a bad row', () => {
    const f = join(tmp, 'bad.jsonl');
    writeFileSync(f, 'ok query\n{"query": ""}\n');
    expect(() => readQueries(f)).toThrow(/bad\.jsonl, line 2, field query/);
    writeFileSync(f, '{"query": "x"\n');
    expect(() => readQueries(f)).toThrow(InputError);
    writeFileSync(f, '\n\n');
    expect(() => readQueries(f)).toThrow(/no queries/);
  });
});

describe('taskFromReply', () => {
  const q = { query: 'red kettle', line: 1 };
  it('builds a custom judge task with a stable id, the user start URL winning', () => {
    const r = taskFromReply(
      { ...q, startUrl: 'https://user.example/' },
      {
        feasible: true,
        objective: 'Find a red kettle on user.example.',
        site: '',
        startUrl: 'https://model.example/',
        reason: '',
      },
      'llm:m',
    );
    if (!r.feasible) throw new Error('expected a task');
    expect(r.task).toMatchObject({
      suite: 'custom',
      site: 'user.example',
      startUrl: 'https://user.example/',
      verifier: { kind: 'judge' },
    });
    expect(r.task.id).toMatch(/^synth_[0-9a-f]{12}$/);
    expect(r.task.meta).toMatchObject({ rawQuery: 'red kettle', sourceLine: 1, rewriter: 'llm:m' });
  });
  it('drops infeasible, empty and URL-less rewrites with a reason', () => {
    expect(
      taskFromReply(
        q,
        { feasible: false, objective: '', site: '', startUrl: '', reason: 'needs a login' },
        'm',
      ),
    ).toMatchObject({ feasible: false, reason: 'needs a login' });
    expect(
      taskFromReply(q, { feasible: true, objective: ' ', site: '', startUrl: 'https://a/', reason: '' }, 'm'),
    ).toMatchObject({ feasible: false, reason: /empty objective/ });
    expect(
      taskFromReply(q, { feasible: true, objective: 'x', site: '', startUrl: 'ftp://a', reason: '' }, 'm'),
    ).toMatchObject({ feasible: false, reason: /no usable start URL/ });
  });
});

describe('LlmTaskRewriter', () => {
  it('rewrites feasible queries, drops infeasible ones, and survives one bad reply', async () => {
    const byQuery = (r: RecordedRequest) => {
      const user = r.body.messages[1].content as string;
      if (user.includes('kettle'))
        return {
          type: 'text' as const,
          text: '{"feasible":true,"objective":"On shop.example, find the cheapest red kettle and report its price.","site":"shop","startUrl":"https://shop.example/","reason":""}',
        };
      if (user.includes('my bank'))
        return { type: 'text' as const, text: '{"feasible":false,"reason":"needs the user\'s bank login"}' };
      // Garbage twice: the query is dropped with the schema error as its reason.
      return { type: 'text' as const, text: 'I would rather not answer in JSON.' };
    };
    server.enqueue(byQuery, byQuery, byQuery, byQuery);
    const outcomes = await rewriter.rewrite([
      { query: 'cheapest red kettle', line: 1 },
      { query: 'check my bank balance', line: 2 },
      { query: 'something odd', line: 3 },
    ]);
    expect(server.requests).toHaveLength(4);
    expect(server.requests[0].body.response_format.json_schema.name).toBe('task_rewrite');
    expect(outcomes[0]).toMatchObject({
      feasible: true,
      task: { site: 'shop', startUrl: 'https://shop.example/' },
    });
    expect(outcomes[1]).toMatchObject({ feasible: false, reason: "needs the user's bank login" });
    expect(outcomes[2]).toMatchObject({ feasible: false, reason: /rewriter reply unusable/ });
  });
});
