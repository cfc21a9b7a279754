import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelApiError, Observation } from '../core/index.ts';
import type { AgentTask } from '../core/task.ts';
import {
  OpenAICompletionModel,
  type TextCompletionModel,
  type TextCompletionOptions,
} from '../models/text-completion.ts';
import { LmAgent } from './lm-agent.ts';
import { lmPromptText, renderLmObservation } from './lm-prompt.ts';

const task = { id: 't', objective: 'Search for Paris hotels', startUrl: 'http://127.0.0.1/' } as AgentTask;
const observation = Observation.parse({
  url: 'http://127.0.0.1:4000/travel',
  title: 'Travel',
  notes: ['a note the student must never see'],
  elements: [
    { index: 0, tag: 'input', name: 'Destination', bbox: { x: 0, y: 0, width: 1, height: 1 }, nodeKey: 'a' },
    { index: 1, tag: 'button', name: 'Search', bbox: { x: 0, y: 0, width: 1, height: 1 }, nodeKey: 'b' },
  ],
});

/** A completion model that replays scripted texts and records what it was asked. */
class ScriptedCompletions implements TextCompletionModel {
  readonly id = 'scripted';
  readonly provider = 'test';
  readonly calls: TextCompletionOptions[] = [];
  constructor(private readonly replies: Array<string | Error>) {}
  async complete(opts: TextCompletionOptions) {
    this.calls.push(opts);
    const r = this.replies.shift();
    if (r instanceof Error) throw r;
    return {
      text: r ?? '',
      finishReason: 'stop',
      usage: { promptTokens: 5, completionTokens: 3, costUsd: 0, calls: 1 },
    };
  }
}

describe('LmAgent', () => {
  it('prompts with the export layout (no notes) and acts on the parsed reply', async () => {
    const model = new ScriptedCompletions(['{"input":{"index":0,"text":"Paris"}}']);
    const agent = new LmAgent({ model, promptTokens: 300 });
    const d = await agent.act({ task, observation, history: [] });
    expect(d.actions).toEqual([{ type: 'input', index: 0, text: 'Paris', clear: true }]);
    expect(d.output.action).toEqual([{ input: { index: 0, text: 'Paris', clear: true } }]);
    const expected = lmPromptText(
      renderLmObservation({ task, observation: { ...observation, notes: [] }, history: [] }, 300),
    );
    expect(model.calls[0].prompt).toBe(expected);
    expect(model.calls[0].prompt).not.toContain('never see');
    expect(model.calls[0]).toMatchObject({ temperature: 0, stop: ['\n'] });
    expect(agent.id).toBe('lm:test:scripted');
  });

  it('ends the episode as a failure on a reply with no valid action, saying why', async () => {
    const agent = new LmAgent({ model: new ScriptedCompletions(['I would click the search button']) });
    const d = await agent.act({ task, observation, history: [] });
    expect(d.actions).toEqual([{ type: 'done', text: '', success: false }]);
    expect(d.output.next_goal).toMatch(/unusable reply .*click the search button/);
  });

  it('lets an endpoint failure through as an error, not as an agent failure', async () => {
    const err = new ModelApiError('down', { isRetryable: true });
    const agent = new LmAgent({ model: new ScriptedCompletions([err]) });
    await expect(agent.act({ task, observation, history: [] })).rejects.toBe(err);
  });
});

describe('OpenAICompletionModel (plumbing against a local server with a canned reply)', () => {
  let url = '';
  const bodies: any[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      bodies.push({ path: req.url, ...JSON.parse(raw) });
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          model: 'gemma',
          choices: [{ text: '{"click":{"index":1}}', finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, completion_tokens: 7 },
        }),
      );
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends the prompt, budget and stop to /v1/completions and reads text and usage', async () => {
    const m = new OpenAICompletionModel({ model: 'gemma', baseURL: url, env: {} });
    const r = await m.complete({ prompt: 'Action: ', maxTokens: 16, stop: ['\n'] });
    expect(bodies[0]).toMatchObject({
      path: '/v1/completions',
      model: 'gemma',
      prompt: 'Action: ',
      max_tokens: 16,
      stop: ['\n'],
      temperature: 0,
    });
    expect(r).toEqual({
      text: '{"click":{"index":1}}',
      finishReason: 'stop',
      usage: { promptTokens: 12, completionTokens: 7, costUsd: 0, calls: 1 },
    });
  });
});
