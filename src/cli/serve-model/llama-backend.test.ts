import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackendCompletionRequest, type BackendRequest, BackendRequestError } from './backend.ts';
import type { ChatHistoryItem, EvalOutput, Grammar, LlamaModule, Sequence, Token } from './llama-api.ts';
import { jsonValueComplete, LlamaBackend } from './llama-backend.ts';

// LlamaBackend over a scripted node-llama-cpp: one character is one token, the "model" replies
// with a fixed text and then repeats a filler character for as long as it is asked, and prompt
// evaluation takes a set time per token. It tests what the backend decides (when to stop, when
// to give up, what to cache), never a model; real-model.test.ts runs the real one.
const EOG = 1;
const BOS = 2;
const charToken = (c: string): Token => c.codePointAt(0)! + 10;

interface Script {
  /** What the model writes first, then `filler` forever (the grammar allows nothing else). */
  reply: string;
  filler: string;
  /** Prompt evaluation time per token. */
  msPerPromptToken: number;
  /** Runs inside grammar compilation, which blocks the event loop in the real runtime. */
  onCompile?: (schema: Record<string, unknown>) => void;
}

class FakeRuntime {
  script: Script = { reply: 'ok', filler: '', msPerPromptToken: 0 };
  compiled: string[] = [];
  /** Calls that evaluate tokens (prompt chunks and generations). */
  evaluations = 0;
  state: Token[] = [];

  module(): LlamaModule {
    const rt = this;
    const tokenizer = (text: string) => [...text].map(charToken);
    const detokenize = (tokens: readonly Token[]) => tokens.map((t) => String.fromCodePoint(t - 10)).join('');
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const sequence: Sequence = {
      get nextTokenIndex() {
        return rt.state.length;
      },
      async adaptStateToTokens(tokens) {
        let i = 0;
        while (i < tokens.length && i < rt.state.length && tokens[i] === rt.state[i]) i++;
        rt.state.length = i;
      },
      async clearHistory() {
        rt.state = [];
      },
      async evaluateWithoutGeneratingNewTokens(tokens) {
        rt.evaluations++;
        await sleep(tokens.length * rt.script.msPerPromptToken);
        rt.state.push(...tokens);
      },
      async *evaluate(tokens) {
        for await (const o of sequence.evaluateWithMetadata(tokens, {}, {})) yield o.token;
      },
      async *evaluateWithMetadata(tokens): AsyncGenerator<EvalOutput, void, undefined | Token | Token[]> {
        rt.evaluations++;
        await sleep(tokens.length * rt.script.msPerPromptToken);
        rt.state.push(...tokens);
        const { reply, filler } = rt.script;
        for (let i = 0; ; i++) {
          const c = i < reply.length ? reply[i] : filler;
          const token = c ? charToken(c) : EOG;
          rt.state.push(token);
          yield { token, confidence: 0.5 };
          await sleep(0);
        }
      },
    };
    const model = {
      tokenizer,
      trainContextSize: 4096,
      tokens: { bos: BOS, shouldPrependBosToken: true },
      detokenize,
      isEogToken: (t: Token | undefined) => t === EOG,
      createContext: async () => ({
        contextSize: 4096,
        getSequence: () => sequence,
        dispose: async () => {},
      }),
      dispose: async () => {},
    };
    return {
      getLlama: async () => ({
        loadModel: async () => model,
        createGrammarForJsonSchema: async (schema) => {
          rt.compiled.push(JSON.stringify(schema));
          rt.script.onCompile?.(schema);
          return {} as Grammar;
        },
        getGrammarFor: async () => ({}) as Grammar,
        dispose: async () => {},
      }),
      resolveChatWrapper: () => ({
        wrapperName: 'fake',
        generateContextState: ({ chatHistory }: { chatHistory: ChatHistoryItem[] }) => ({
          contextText: {
            tokenize: (tok: (t: string) => Token[]) =>
              tok(chatHistory.map((h) => ('text' in h ? h.text : h.response.join(''))).join('\n')),
          },
        }),
      }),
      LlamaGrammarEvaluationState: class {},
    };
  }
}

const request = (over: Partial<BackendRequest> = {}): BackendRequest => ({
  messages: [{ role: 'user', content: 'hello' }],
  n: 1,
  temperature: 0,
  stop: [],
  logprobs: false,
  topLogprobs: 0,
  ...over,
});

describe('LlamaBackend over a scripted runtime', () => {
  const rt = new FakeRuntime();
  let backend: LlamaBackend;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-llama-backend-'));
    const gguf = join(dir, 'fake.gguf');
    writeFileSync(gguf, '');
    backend = await LlamaBackend.open({ gguf, module: rt.module() });
  });
  afterAll(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops a primitive root value once it is complete, not at the end of the context', async () => {
    // The grammar lets newlines follow the value; a small model keeps writing them.
    rt.script = { reply: '"x"', filler: '\n', msPerPromptToken: 0 };
    const s = await backend.generate(request({ jsonSchema: { type: 'string' } }));
    expect(s.choices[0]).toMatchObject({ text: '"x"', finishReason: 'stop', completionTokens: 3 });
    // A number may go on until something that is not a digit follows it.
    rt.script = { reply: '42', filler: '\n', msPerPromptToken: 0 };
    const n = await backend.generate(request({ jsonSchema: { type: 'integer' } }));
    expect(n.choices[0]).toMatchObject({ text: '42', finishReason: 'stop', completionTokens: 3 });
    rt.script = { reply: '{"a":"}"}', filler: ' ', msPerPromptToken: 0 };
    const o = await backend.generate(request({ jsonObject: true }));
    expect(o.choices[0]).toMatchObject({ text: '{"a":"}"}', finishReason: 'stop', completionTokens: 9 });
  });

  it('gives up on a long prompt within one chunk of its abort', async () => {
    // 4,000 prompt tokens at 1 ms each: 4 s of prompt evaluation.
    rt.script = { reply: 'ok', filler: '', msPerPromptToken: 1 };
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const t0 = Date.now();
    await expect(
      backend.generate(
        request({ messages: [{ role: 'user', content: 'y'.repeat(4000) }], signal: ac.signal }),
      ),
    ).rejects.toThrow(/aborted/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('never evaluates a request that was aborted while its grammar compiled', async () => {
    const ac = new AbortController();
    // The client hangs up while the (uninterruptible) compilation holds the event loop.
    rt.script = { reply: '{}', filler: '', msPerPromptToken: 0, onCompile: () => ac.abort() };
    const before = rt.evaluations;
    await expect(
      backend.generate(request({ jsonSchema: { type: 'object', properties: {} }, signal: ac.signal })),
    ).rejects.toThrow(/aborted/);
    expect(rt.evaluations).toBe(before);
  });

  it('keeps at most 32 grammars, dropping the least recently used', async () => {
    rt.script = { reply: '{}', filler: '', msPerPromptToken: 0 };
    rt.compiled = [];
    const schema = (i: number) => ({ type: 'object', properties: {}, description: `lru ${i}` });
    for (let i = 0; i < 32; i++) await backend.generate(request({ jsonSchema: schema(i) }));
    await backend.generate(request({ jsonSchema: schema(0) }));
    expect(rt.compiled).toHaveLength(32);
    // A 33rd grammar pushes out #1, the least recently used (#0 was just used again).
    await backend.generate(request({ jsonSchema: schema(32) }));
    await backend.generate(request({ jsonSchema: schema(0) }));
    expect(rt.compiled).toHaveLength(33);
    await backend.generate(request({ jsonSchema: schema(1) }));
    expect(rt.compiled).toHaveLength(34);
  });

  it('answers a schema the grammar cannot take with a BackendRequestError, not a crash', async () => {
    rt.script = { reply: '{}', filler: '', msPerPromptToken: 0 };
    const e = await backend
      .generate(request({ jsonSchema: { type: 'object', properties: null } as never }))
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BackendRequestError);
    expect((e as BackendRequestError).code).toBe('unsupported_schema');
    rt.script.onCompile = () => {
      throw new Error('Failed to parse grammar');
    };
    await expect(
      backend.generate(request({ jsonSchema: { type: 'string', minLength: 3000 } })),
    ).rejects.toThrow(/cannot be turned into a grammar: Failed to parse grammar/);
  });
});

describe('LlamaBackend raw completion (/v1/completions)', () => {
  const rt = new FakeRuntime();
  let backend: LlamaBackend;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-llama-complete-'));
    const gguf = join(dir, 'fake.gguf');
    writeFileSync(gguf, '');
    backend = await LlamaBackend.open({ gguf, module: rt.module() });
  });
  afterAll(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const completion = (over: Partial<BackendCompletionRequest> = {}): BackendCompletionRequest => ({
    prompt: 'The capital of France is',
    n: 1,
    temperature: 0,
    stop: [],
    logprobs: false,
    topLogprobs: 0,
    ...over,
  });

  it('evaluates the prompt as is, BOS first, with no chat template around it', async () => {
    rt.script = { reply: ' Paris', filler: '', msPerPromptToken: 0 };
    const r = await backend.complete(completion());
    expect(r.choices[0]).toMatchObject({ text: ' Paris', finishReason: 'stop', completionTokens: 6 });
    const prompt = [BOS, ...[...'The capital of France is'].map(charToken)];
    expect(r.promptTokens).toBe(prompt.length);
    // What the context holds: exactly the prompt's tokens, then the reply's.
    expect(rt.state.slice(0, prompt.length)).toEqual(prompt);
    // The chat route of the same text goes through the template (here: no BOS).
    expect(backend.promptTokens([{ role: 'user', content: 'x' }])[0]).not.toBe(BOS);
  });

  it('cuts the reply before the earliest stop string, and at max_tokens otherwise', async () => {
    rt.script = { reply: ' Paris.\nThe capital of Spain', filler: 'x', msPerPromptToken: 0 };
    const stopped = await backend.complete(completion({ stop: ['Spain', '\n'] }));
    expect(stopped.choices[0]).toMatchObject({ text: ' Paris.', finishReason: 'stop' });
    const cut = await backend.complete(completion({ maxTokens: 4 }));
    expect(cut.choices[0]).toMatchObject({ text: ' Par', finishReason: 'length', completionTokens: 4 });
    // The second request reused the first one's prompt from the KV cache.
    expect(cut.cachedPromptTokens).toBe(cut.promptTokens - 1);
  });

  it('refuses a prompt longer than the context, and stops when aborted', async () => {
    const long = await backend.complete(completion({ prompt: 'y'.repeat(5000) })).catch((e: unknown) => e);
    expect(long).toBeInstanceOf(BackendRequestError);
    expect((long as BackendRequestError).code).toBe('context_length_exceeded');
    rt.script = { reply: 'ok', filler: '', msPerPromptToken: 1 };
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const t0 = Date.now();
    await expect(
      backend.complete(completion({ prompt: 'z'.repeat(4000), signal: ac.signal })),
    ).rejects.toThrow(/aborted/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe('jsonValueComplete', () => {
  it('knows when a root value can no longer grow', () => {
    for (const done of ['"x"', '{"a":[1]}', '[]', 'true', 'null', '42\n', '-1.5 ', '"a\\"b"'])
      expect(jsonValueComplete(done), done).toBe(true);
    for (const open of ['', '"x', '"a\\"', '{"a":"}"', '42', 'tru', '[1,'])
      expect(jsonValueComplete(open), open).toBe(false);
  });
});
