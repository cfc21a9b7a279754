import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InputError, Task } from '../core/index.ts';
import { OpenAIChatModel } from '../models/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../models/testing/fake-openai-server.ts';
import { processScoreOf, RubricVerifier } from './rubric-verifier.ts';
import { fakeImageLoader, makeTrajectory } from './testing/trajectory-fixture.ts';

// Canned judge replies: they test rubric plumbing and scoring arithmetic, not judging quality.
let server: FakeOpenAIServer;
let verifier: RubricVerifier;
const items = [
  { criterion: 'Search the right route', description: 'ORD to GRU', maxPoints: 4 },
  { criterion: 'Report economy price', description: '', maxPoints: 2 },
  { criterion: 'Explain no flights', description: '', maxPoints: 2, condition: 'Only if no flights exist' },
];
const task = Task.parse({
  id: 'webtailbench:united_13',
  suite: 'webtailbench',
  site: 'united',
  objective: 'Price difference between economy and business, ORD to GRU.',
  startUrl: 'about:blank',
  category: 'flights',
  verifier: { kind: 'rubric', items },
});

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  verifier = new RubricVerifier({
    model: new OpenAIChatModel({
      model: 'judge-model',
      baseURL: server.baseURL,
      apiKey: 'sk-test-rubric',
      env: {},
      retry: { maxRetries: 0 },
    }),
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

const judgement = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    items: [
      { index: 1, applies: true, earnedPoints: 4, justification: 'right route' },
      { index: 2, applies: true, earnedPoints: 1, justification: 'one price only' },
      { index: 3, applies: false, earnedPoints: 0, justification: 'flights exist' },
    ],
    outcome: 'failure',
    blocker: 'captcha',
    blockerDetail: 'a CAPTCHA blocked the fare page',
    summary: 'Found the route but no business fare.',
    ...over,
  });

describe('processScoreOf', () => {
  it('sums earned over possible among applicable criteria, clamping and counting missing ones as 0', () => {
    expect(processScoreOf(items, [{ index: 1, applies: true, earnedPoints: 9, justification: '' }])).toEqual({
      earned: 4,
      possible: 8,
      score: 0.5,
      short: ['Report economy price', 'Explain no flights'],
    });
  });
});

describe('RubricVerifier', () => {
  it('keeps the process score apart from the outcome and flags external blockers', async () => {
    server.enqueue({ type: 'text', text: judgement() });
    const trajectory = makeTrajectory(task, { steps: 3, answer: 'Economy is $900.' });
    const v = await verifier.verify({
      task,
      trajectory,
      finalAnswer: 'Economy is $900.',
      loadImage: fakeImageLoader(),
    });
    expect(v.success).toBe(false);
    expect(v.score).toBe(0);
    expect(v.processScore).toBeCloseTo(5 / 6, 9);
    expect(v.failedConditions).toEqual(['Report economy price', 'blocked:captcha']);
    expect(v.reason).toMatch(/process 5\/6 points/);
    expect(v.reason).toMatch(/outside the agent's control: captcha/);
    const body = server.requests[0].body;
    expect(body.response_format.json_schema.name).toBe('rubric_judgement');
    const text = body.messages[1].content[0].text as string;
    expect(text).toContain('3. Explain no flights (max 2 points)');
    expect(text).toContain('Condition: Only if no flights exist');
    expect(text).toContain('Economy is $900.');
  });

  it('reports success with a full process score', async () => {
    server.enqueue({
      type: 'text',
      text: judgement({
        items: [
          { index: 1, applies: true, earnedPoints: 4 },
          { index: 2, applies: true, earnedPoints: 2 },
          { index: 3, applies: false, earnedPoints: 0 },
        ],
        outcome: 'success',
        blocker: 'none',
        blockerDetail: '',
      }),
    });
    const trajectory = makeTrajectory(task, { steps: 2, answer: 'Difference is $1,200.' });
    const v = await verifier.verify({
      task,
      trajectory,
      finalAnswer: 'Difference is $1,200.',
      loadImage: fakeImageLoader(),
    });
    expect(v).toMatchObject({ success: true, score: 1, processScore: 1, failedConditions: [] });
  });

  it('repairs one bad reply and reports two bad replies as unparseable', async () => {
    server.enqueue(
      { type: 'text', text: 'Here is my grading: mostly fine.' },
      { type: 'text', text: judgement() },
    );
    const trajectory = makeTrajectory(task, { steps: 2, answer: 'x' });
    const ok = await verifier.verify({ task, trajectory, finalAnswer: 'x', loadImage: fakeImageLoader() });
    expect(ok.processScore).toBeCloseTo(5 / 6, 9);
    expect(server.requests).toHaveLength(2);

    server.enqueue({ type: 'text', text: 'no json' }, { type: 'text', text: '{"outcome":"maybe"}' });
    const bad = await verifier.verify({ task, trajectory, finalAnswer: 'x', loadImage: fakeImageLoader() });
    expect(bad.success).toBe(false);
    expect(bad.reason).toMatch(/unparseable/);
    expect(bad.failedConditions).toEqual(['unparseable_judge_reply']);
  });

  it('refuses a task without a rubric', async () => {
    const plain = Task.parse({ ...task, verifier: { kind: 'judge' } });
    await expect(
      verifier.verify({
        task: plain,
        trajectory: makeTrajectory(plain, { steps: 1 }),
        finalAnswer: null,
        loadImage: fakeImageLoader(),
      }),
    ).rejects.toThrow(InputError);
  });
});
