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
    // An echo of the prompt's instruction names both statuses: it is not a verdict.
    expect(
      parseStatus('end with one line that is exactly\nStatus: success\nor\nStatus: failure\nTask: x'),
    ).toBeNull();
    expect(parseStatus('Status: success\nor\nStatus: failure\nIt was done.\nStatus: success')?.success).toBe(
      true,
    );
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

describe('WebJudge with bounded replies', () => {
  const followUp = (r: RecordedRequest) => r.body.response_format?.json_schema?.name === 'verdict';

  it('sends each stage its budget; a cut-off key-point list drops its partial last point', async () => {
    server.enqueue(
      ...Array.from({ length: 4 }, () => (r: RecordedRequest) => {
        const s = system(r);
        if (s.includes('break a web task'))
          return {
            type: 'text' as const,
            text: 'Key points:\n1. Filter 2 bedrooms exactly\n2. Sort by pri',
            finishReason: 'length',
          };
        if (s.includes('rate one screenshot')) return { type: 'text' as const, text: 'Score: 4' };
        return { type: 'text' as const, text: 'Done.\nStatus: success' };
      }),
    );
    const trajectory = makeTrajectory(task, { steps: 2, answer: ANSWER });
    const v = await new WebJudge({
      model,
      concurrency: 1,
      maxTokens: { keyPoints: 40, score: 20, outcome: 60 },
    }).verify({ task, trajectory, finalAnswer: ANSWER, loadImage: fakeImageLoader() });
    expect(server.requests.map((r) => r.body.max_tokens)).toEqual([40, 20, 20, 60]);
    expect(userText(server.requests[3])).toContain('1. Filter 2 bedrooms exactly');
    expect(userText(server.requests[3])).not.toContain('Sort by pri');
    expect(v).toMatchObject({ success: true });
    expect(v.reason).toMatch(/1 key point\(s\)/);
  });

  it('keeps every key point when the reply is cut off after the list', async () => {
    server.enqueue(
      {
        type: 'text',
        text: 'Key points:\n1. Filter 2 bedrooms exactly\n2. Sort by price\n\nThese points cover the whole',
        finishReason: 'length',
      },
      { type: 'text', text: 'Status: failure' },
    );
    const v = await new WebJudge({ model, maxTokens: { keyPoints: 30 } }).verify({
      task,
      trajectory: makeTrajectory(task, { steps: 0, answer: ANSWER }),
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    expect(userText(server.requests[1])).toContain('2. Sort by price');
    expect(v.reason).toMatch(/2 key point\(s\)/);
  });

  it('keeps the default budgets when none are given', async () => {
    server.enqueue(
      ...Array.from({ length: 3 }, () =>
        script({ keyPoints: 'Key points:\n1. a', score: () => 'Score: 2', outcome: 'Status: failure' }),
      ),
    );
    await new WebJudge({ model, concurrency: 1 }).verify({
      task,
      trajectory: makeTrajectory(task, { steps: 1, answer: ANSWER }),
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    expect(server.requests.map((r) => r.body.max_tokens)).toEqual([500, 300, 800]);
  });

  it('asks for the verdict alone when a reply is cut off before its Score or Status line', async () => {
    server.enqueue(
      ...Array.from({ length: 5 }, () => (r: RecordedRequest) => {
        const s = system(r);
        if (followUp(r)) {
          const verdict = s.includes('rate one screenshot') ? 5 : 'failure';
          return { type: 'text' as const, text: JSON.stringify({ verdict }) };
        }
        if (s.includes('break a web task')) return { type: 'text' as const, text: 'Key points:\n1. a\n2. b' };
        if (s.includes('rate one screenshot'))
          return {
            type: 'text' as const,
            text: 'The page shows the filter panel and',
            finishReason: 'length',
          };
        return { type: 'text' as const, text: 'The agent opened the list but then', finishReason: 'length' };
      }),
    );
    const trajectory = makeTrajectory(task, { steps: 1, answer: ANSWER });
    const v = await new WebJudge({ model, maxTokens: { score: 10, outcome: 10 } }).verify({
      task,
      trajectory,
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    // Key points, score, score follow-up, outcome, outcome follow-up.
    expect(server.requests).toHaveLength(5);
    const [, , scoreFollow, outcome, outcomeFollow] = server.requests;
    expect(followUp(scoreFollow)).toBe(true);
    expect(scoreFollow.body.response_format.json_schema.schema.properties.verdict.enum).toEqual([
      1, 2, 3, 4, 5,
    ]);
    // The follow-up continues the conversation after the cut-off reasoning, on a small budget.
    const msgs = outcomeFollow.body.messages;
    expect(msgs.slice(0, 2)).toEqual(outcome.body.messages);
    expect(msgs[2]).toEqual({ role: 'assistant', content: 'The agent opened the list but then' });
    expect(msgs[3].content).toMatch(/cut off/);
    expect(outcomeFollow.body.max_tokens).toBeLessThan(60);
    // The screenshot kept with its follow-up score of 5.
    expect(imageCount(outcome)).toBe(1);
    expect(v).toMatchObject({ success: false, failedConditions: ['judged_failure'] });
    expect(v.reason).toMatch(/The agent opened the list but then/);
    expect(v.reason).toMatch(/2 reply\(ies\) cut off by the token budget/);
  });

  it('reports a cut-off outcome as unparseable when the follow-up is refused', async () => {
    server.enqueue(
      { type: 'text', text: 'Key points:\n1. a' },
      { type: 'text', text: 'The agent', finishReason: 'length' },
      { type: 'error', status: 400, message: 'response_format is not supported' },
    );
    const v = await new WebJudge({ model, maxTokens: { outcome: 5 } }).verify({
      task,
      trajectory: makeTrajectory(task, { steps: 0, answer: ANSWER }),
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    expect(server.requests).toHaveLength(3);
    expect(v.failedConditions).toEqual(['unparseable_judge_reply']);
    expect(v.reason).toMatch(/cut off at 5 tokens.*response_format is not supported/);
  });

  it('stops scoring screenshots once the model turns out to read text only', async () => {
    server.enqueue(
      { type: 'text', text: 'Key points:\n1. a' },
      { type: 'error', status: 400, message: 'image input unsupported: this model is text-only' },
      { type: 'text', text: 'Score: 5' },
      { type: 'text', text: 'Status: failure' },
    );
    // Its own client: the shared one must keep sending images to the other tests.
    const textOnlyModel = new OpenAIChatModel({
      model: 'judge-model',
      baseURL: server.baseURL,
      apiKey: 'sk-test-webjudge',
      env: {},
      retry: { maxRetries: 0 },
    });
    const v = await new WebJudge({ model: textOnlyModel, concurrency: 1 }).verify({
      task,
      trajectory: makeTrajectory(task, { steps: 4, answer: ANSWER }),
      finalAnswer: ANSWER,
      loadImage: fakeImageLoader(),
    });
    // Key points, the refused score and its text-only resend, then straight to the outcome.
    expect(server.requests).toHaveLength(4);
    expect(imageCount(server.requests[2])).toBe(0);
    expect(imageCount(server.requests[3])).toBe(0);
    expect(userText(server.requests[3])).toContain('No screenshot was judged relevant');
    expect(v.reason).toMatch(/text-only judge: no screenshots read/);
  });
});
