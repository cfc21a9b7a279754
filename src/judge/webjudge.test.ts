import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Task } from '../core/index.ts';
import { OpenAIChatModel } from '../models/index.ts';
import {
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAIServer,
} from '../models/testing/fake-openai-server.ts';
import { fakeImageLoader, makeTrajectory } from './testing/trajectory-fixture.ts';
import { parseKeyPoints, parseScore, parseStatus, WebJudge } from './webjudge.ts';

// Canned judge replies: they test the three-stage plumbing and parsing, not judging quality.
let server: FakeOpenAIServer;
let model: OpenAIChatModel;
const task = Task.parse({
  id: 't2',
  suite: 'online-mind2web',
  site: 'shop.example',
  objective: 'Show the cheapest 2-bedroom apartment in Austin.',
  startUrl: 'https://shop.example/',
  verifier: { kind: 'judge' },
});
const ANSWER = 'SECRET-FINAL-ANSWER-42';

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  model = new OpenAIChatModel({
    model: 'judge-model',
    baseURL: server.baseURL,
    apiKey: 'sk-test-webjudge',
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

const system = (r: RecordedRequest) => r.body.messages[0].content as string;
const userText = (r: RecordedRequest) => {
  const c = r.body.messages[1].content;
  return typeof c === 'string'
    ? c
    : c
        .filter((p: any) => p.type === 'text')
        .map((p: any) => p.text)
        .join('\n');
};
const imageCount = (r: RecordedRequest) => {
  const c = r.body.messages[1].content;
  return typeof c === 'string' ? 0 : c.filter((p: any) => p.type === 'image_url').length;
};

/** Answers each stage by recognising its system prompt. */
function script(opts: { keyPoints: string; score: (step: number) => string; outcome: string }) {
  return (r: RecordedRequest) => {
    const s = system(r);
    if (s.includes('break a web task')) return { type: 'text' as const, text: opts.keyPoints };
    if (s.includes('rate one screenshot')) {
      const step = Number(/Screenshot from step (\d+)/.exec(userText(r))?.[1]);
      return { type: 'text' as const, text: opts.score(step) };
    }
    return { type: 'text' as const, text: opts.outcome };
  };
}

describe('WebJudge parsers', () => {
  it('parses key points, scores and status lines', () => {
    expect(
      parseKeyPoints('Sure.\nKey points:\n1. Sort by price ascending\n2) 2 bedrooms exactly\n- Austin'),
    ).toEqual(['Sort by price ascending', '2 bedrooms exactly', 'Austin']);
    expect(parseKeyPoints('nothing useful')).toEqual([]);
    expect(parseScore('It shows the filter.\nScore: 4')).toBe(4);
    expect(parseScore('Score: 7')).toBeNull();
    expect(parseScore('no score')).toBeNull();
    expect(parseStatus('ok\nStatus: "success"')?.success).toBe(true);
    expect(parseStatus('**Status:** failure')?.success).toBe(false);
    expect(parseStatus('The agent failed.')).toBeNull();
  });
});

describe('WebJudge', () => {
  it('keeps screenshots scored 3+, withholds the final answer, and reads the outcome', async () => {
    server.enqueue(
      ...Array.from({ length: 8 }, () =>
        script({
          keyPoints:
            'Key points:\n1. Filter 2 bedrooms exactly\n2. Location Austin\n3. Sort by price, lowest first',
          score: (step) =>
            step === 2
              ? 'Shows the filter panel.\nScore: 4'
              : step === 4
                ? 'Sorted list.\nScore: 5'
                : step === 3
                  ? 'garbled'
                  : 'Unrelated.\nScore: 1',
          outcome: 'Filter and sort are visible.\nStatus: success',
        }),
      ),
    );
    const trajectory = makeTrajectory(task, { steps: 5, answer: ANSWER });
    const v = await new WebJudge({ model, concurrency: 2 }).verify({
      task,
      trajectory,
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    // 1 key-point call + 5 screenshot scores + 1 outcome.
    expect(server.requests).toHaveLength(7);
    const final = server.requests[6];
    expect(system(final)).toContain('decide whether a web agent completed');
    expect(imageCount(final)).toBe(2);
    expect(userText(final)).toContain('Sort by price, lowest first');
    expect(userText(final)).toContain('answer withheld');
    expect(JSON.stringify(final.body)).not.toContain(ANSWER);
    expect(v).toMatchObject({ success: true, score: 1, verifierId: 'webjudge' });
    expect(v.reason).toMatch(/3 key point\(s\)/);
    expect(v.reason).toMatch(/2\/5 screenshot\(s\) kept/);
    expect(v.reason).toMatch(/1 screenshot score\(s\) unreadable/);
  });

  it('caps kept screenshots at maxKept, preferring the highest scores', async () => {
    server.enqueue(
      ...Array.from({ length: 6 }, () =>
        script({
          keyPoints: 'Key points:\n1. a',
          score: (step) => `Score: ${step === 1 ? 3 : 5}`,
          outcome: 'Status: failure',
        }),
      ),
    );
    const trajectory = makeTrajectory(task, { steps: 4, answer: ANSWER });
    const v = await new WebJudge({ model, maxKept: 2, concurrency: 1 }).verify({
      task,
      trajectory,
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    expect(v.success).toBe(false);
    const final = server.requests[5];
    expect(imageCount(final)).toBe(2);
    expect(userText(final)).toContain('Step 4, relevance 5/5');
    expect(userText(final)).not.toContain('Step 1, relevance');
  });

  it('falls back to the task as a key point and reports an unparseable outcome', async () => {
    server.enqueue(
      ...Array.from({ length: 4 }, () =>
        script({
          keyPoints: 'I cannot list anything.',
          score: () => 'Score: 3',
          outcome: 'It probably worked out in the end.',
        }),
      ),
    );
    const trajectory = makeTrajectory(task, { steps: 2, answer: ANSWER });
    const v = await new WebJudge({ model }).verify({
      task,
      trajectory,
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    expect(userText(server.requests[3])).toContain(`1. ${task.objective}`);
    expect(v.success).toBe(false);
    expect(v.reason).toMatch(/unparseable/);
  });
});
