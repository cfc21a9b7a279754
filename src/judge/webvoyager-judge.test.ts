import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Task } from '../core/index.ts';
import { OpenAIChatModel } from '../models/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../models/testing/fake-openai-server.ts';
import { fakeImageLoader, makeTrajectory } from './testing/trajectory-fixture.ts';
import { parseSuccessKeyword, WebVoyagerJudge } from './webvoyager-judge.ts';

// Canned judge replies: they test prompt assembly and verdict parsing, not judging quality.
let server: FakeOpenAIServer;
let judge: WebVoyagerJudge;
const task = Task.parse({
  id: 't1',
  suite: 'webvoyager',
  site: 'Shop',
  objective: 'Find the cheapest red kettle and report its price.',
  startUrl: 'https://shop.example/',
  verifier: { kind: 'judge' },
});

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  judge = new WebVoyagerJudge({
    model: new OpenAIChatModel({
      model: 'judge-model',
      baseURL: server.baseURL,
      apiKey: 'sk-test-judge-000',
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

const imagesIn = (body: any): string[] =>
  body.messages[1].content
    .filter((p: any) => p.type === 'image_url')
    .map((p: any) => p.image_url.url as string);

describe('parseSuccessKeyword', () => {
  it('reads verdict lines, markdown and bare keywords; the last one wins', () => {
    expect(parseSuccessKeyword('Looks right.\nVerdict: SUCCESS')?.success).toBe(true);
    expect(parseSuccessKeyword('The price is wrong.\n**Verdict:** NOT SUCCESS')?.success).toBe(false);
    expect(parseSuccessKeyword('verdict - not   success')?.success).toBe(false);
    expect(parseSuccessKeyword('At first SUCCESS seemed likely, but no: NOT SUCCESS')?.success).toBe(false);
    expect(
      parseSuccessKeyword('Verdict: SUCCESS\n(NOT SUCCESS would apply if the price differed)')?.success,
    ).toBe(true);
  });
  it("does not read the verdict from an echo of the prompt's own instructions", () => {
    // A small model (Gemma 3 270M) repeats the system prompt, whose last lines name both verdicts.
    const echo =
      'You check whether a web-browsing agent really completed a task.\nWrite a few sentences of reasoning, then end with one line that is exactly\nVerdict: SUCCESS\nor\nVerdict: NOT SUCCESS\n\nTask: buy the kettle';
    expect(parseSuccessKeyword(echo)).toBeNull();
    expect(parseSuccessKeyword(`${echo}\nThe agent bought it.\nVerdict: SUCCESS`)?.success).toBe(true);
  });
  it('returns null without a keyword, and ignores words like "successfully"', () => {
    expect(parseSuccessKeyword('The agent successfully found it.')).toBeNull();
    expect(parseSuccessKeyword('')).toBeNull();
    expect(parseSuccessKeyword('Verdict: UNSUCCESSFUL')).toBeNull();
  });
});

describe('WebVoyagerJudge', () => {
  it('scores 0 without asking the model when there is no answer', async () => {
    const v = await judge.verify({
      task,
      trajectory: makeTrajectory(task, { steps: 3 }),
      finalAnswer: null,
      loadImage: fakeImageLoader(),
    });
    expect(v).toMatchObject({ success: false, score: 0, verifierId: 'webvoyager-judge' });
    expect(v.reason).toMatch(/no final answer/);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the task, the answer and only the last 15 distinct screenshots', async () => {
    server.enqueue({ type: 'text', text: 'The last page shows the kettle at $19.\nVerdict: SUCCESS' });
    const trajectory = makeTrajectory(task, {
      steps: 20,
      answer: 'The cheapest red kettle costs $19.',
      shareScreens: [19],
    });
    const v = await judge.verify({
      task,
      trajectory,
      finalAnswer: 'The cheapest red kettle costs $19.',
      loadImage: fakeImageLoader(),
    });
    expect(v.success).toBe(true);
    expect(v.score).toBe(1);
    expect(v.reason).toMatch(/kettle at \$19/);
    const body = server.requests[0].body;
    expect(body.temperature).toBe(0);
    const text = body.messages[1].content[0].text as string;
    expect(text).toContain(task.objective);
    expect(text).toContain('costs $19');
    const images = imagesIn(body);
    // 20 steps, the last reusing the previous screenshot: 19 distinct, the last 15 shown (img-4..img-18).
    expect(images).toHaveLength(15);
    expect(Buffer.from(images[0].split(',')[1], 'base64').toString('latin1')).toContain('img-4');
    expect(Buffer.from(images[14].split(',')[1], 'base64').toString('latin1')).toContain('img-18');
    expect(images.every((u) => u.startsWith('data:image/jpeg;base64,'))).toBe(true);
  });

  it('returns NOT SUCCESS verdicts and notes missing screenshots', async () => {
    server.enqueue({ type: 'text', text: 'The screenshots show $25, not $19.\nVerdict: NOT SUCCESS' });
    const trajectory = makeTrajectory(task, { steps: 3, answer: '$19' });
    const v = await judge.verify({
      task,
      trajectory,
      finalAnswer: '$19',
      loadImage: fakeImageLoader(['img-0']),
    });
    expect(v.success).toBe(false);
    expect(v.reason).toMatch(/1 screenshot\(s\) could not be loaded/);
    expect(imagesIn(server.requests[0].body)).toHaveLength(2);
  });

  it('turns a malformed reply into an unparseable failure', async () => {
    server.enqueue({
      type: 'text',
      text: 'Hmm, hard to say. The agent tried its best and the page looked fine.',
    });
    const trajectory = makeTrajectory(task, { steps: 2, answer: '$19' });
    const v = await judge.verify({ task, trajectory, finalAnswer: '$19', loadImage: fakeImageLoader() });
    expect(v.success).toBe(false);
    expect(v.score).toBe(0);
    expect(v.reason).toMatch(/unparseable/);
    expect(v.failedConditions).toEqual(['unparseable_judge_reply']);
  });

  it('asks for the verdict alone when a bounded reply is cut off before it', async () => {
    const bounded = new WebVoyagerJudge({
      model: new OpenAIChatModel({
        model: 'judge-model',
        baseURL: server.baseURL,
        apiKey: 'sk-test-judge-000',
        env: {},
        retry: { maxRetries: 0 },
      }),
      maxTokens: 12,
    });
    server.enqueue(
      { type: 'text', text: 'The last page shows a kettle at $25 while the', finishReason: 'length' },
      { type: 'text', text: '{"verdict": "NOT SUCCESS"}' },
    );
    const trajectory = makeTrajectory(task, { steps: 2, answer: '$19' });
    const v = await bounded.verify({ task, trajectory, finalAnswer: '$19', loadImage: fakeImageLoader() });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0].body.max_tokens).toBe(12);
    const follow = server.requests[1].body;
    expect(follow.response_format.json_schema.schema.properties.verdict.enum).toEqual([
      'SUCCESS',
      'NOT SUCCESS',
    ]);
    expect(follow.messages[2]).toEqual({
      role: 'assistant',
      content: 'The last page shows a kettle at $25 while the',
    });
    expect(v).toMatchObject({ success: false, failedConditions: ['judged_not_success'] });
    expect(v.reason).toMatch(/kettle at \$25 while the/);
    expect(v.reason).toMatch(/cut off at 12 tokens; verdict asked separately/);
  });

  it('does not ask again when a cut-off reply already holds its verdict', async () => {
    server.enqueue({ type: 'text', text: 'Verdict: SUCCESS\nBecause the page', finishReason: 'length' });
    const trajectory = makeTrajectory(task, { steps: 1, answer: '$19' });
    const v = await judge.verify({ task, trajectory, finalAnswer: '$19', loadImage: fakeImageLoader() });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.max_tokens).toBe(800);
    expect(v.success).toBe(true);
  });
});
