import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { trainerEnv, trainerPython } from '../../models/trainer-python.ts';
import type { BackendCompletionRequest } from './backend.ts';
import { LlamaBackend, type LoraAdapter, llamaPrefix } from './llama-backend.ts';
import { ModelServer } from './server.ts';
import { localModelPath, localModelSkipReason } from './testing/local-model.ts';

// The LoRA adapter round trip on a tiny model: the trainer writes a tiny random Gemma 3 GGUF, wraps
// what transformers loads from it in a random LoRA (non-zero B), saves it as a --lora run does,
// exports the adapter with export-gguf and records transformers' greedy replies with and without
// it. llama.cpp, through the backend `serve-model --lora` runs, must give the same replies: every
// name, layout, transposition and scale of the adapter is checked by the model computing the same.
const python = trainerPython();
const hasPython = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);
const hasLlama = existsSync(join(llamaPrefix(), 'node_modules', 'node-llama-cpp', 'dist', 'index.js'));
const skip = !hasPython
  ? `no trainer venv at ${python}`
  : !hasLlama
    ? `node-llama-cpp missing at ${llamaPrefix()} (bash scripts/get-local-model.sh)`
    : null;
if (skip) console.warn(`LoRA round-trip test skipped: ${skip}`);

// CI installs both first, so a missing one there is a broken set-up that must fail, not skip.
if (skip !== null && process.env.CI)
  describe('the LoRA round trip under CI', () => {
    it('has the trainer venv and node-llama-cpp', () => {
      expect.fail(`CI must set up the trainer venv and node-llama-cpp: ${skip}`);
    });
  });

/** Greedy replies of transformers; `sureTexts` end before the first near tie of the top two logits. */
interface Replies {
  ids: number[][];
  texts: string[];
  sureTexts: string[];
}
interface Reference {
  prompts: string[];
  promptIds: number[][];
  base: Replies;
  baseTop: [number, number][][];
  lora: Replies;
  loraTop: [number, number][][];
  stacked: Replies;
  stackedTop: [number, number][][];
  export: { weights: number; architecture: string };
}

// A random tiny model is nearly uniform over its vocabulary, so some greedy steps are near ties
// that another float order (llama.cpp's kernels on another CPU) may break the other way: a CI
// machine once did. The reply must repeat transformers' up to the first near tie, and the first
// token's probabilities must agree, which is where a wrong scale or layout would show.
const expectReply = (got: string | undefined, want: Replies, i: number) =>
  expect(
    got?.startsWith(want.sureTexts[i] ?? '\u0000'),
    `${JSON.stringify(got)} vs ${JSON.stringify(want.texts[i])}`,
  ).toBe(true);
const expectTop = (got: { logprob: number }[] | undefined, want: [number, number][] | undefined) => {
  const top = got?.map((t) => Math.exp(t.logprob)) ?? [];
  expect(top).toHaveLength(3);
  for (const [k, [, p]] of (want ?? []).entries())
    expect(Math.abs((top[k] ?? 0) - p)).toBeLessThan(1e-4 + p * 1e-3);
};

// That an adapter changes the model is checked on the first token's distribution, not on greedy
// texts: a random tiny model can put most of its mass on one token with or without the adapter (a
// CI machine gave 'oooooooo' both ways). Two top-3 lists differ when their tokens do, or when a
// log-probability moves by ten times what expectTop tolerates, so a served model that matched one
// list within expectTop's tolerance cannot also have matched the other.
const logShift = (a: [number, number][], b: [number, number][]) =>
  a.some(([t], k) => t !== b[k]?.[0])
    ? Number.POSITIVE_INFINITY
    : Math.max(...a.map(([, p], k) => Math.abs(Math.log(p) - Math.log(b[k]?.[1] ?? 0))));
const expectShift = (a: [number, number][][], b: [number, number][][]) =>
  expect(Math.max(...a.map((top, i) => logShift(top, b[i] ?? [])))).toBeGreaterThan(1e-2);

const greedy = (prompt: string, over: Partial<BackendCompletionRequest> = {}): BackendCompletionRequest => ({
  prompt,
  n: 1,
  temperature: 0,
  maxTokens: 8,
  stop: [],
  logprobs: false,
  topLogprobs: 0,
  ...over,
});

describe.skipIf(skip !== null)('a LoRA adapter exported from torch, served by llama.cpp', () => {
  let dir: string;
  let ref: Reference;
  const opened: LlamaBackend[] = [];
  const open = async (lora?: LoraAdapter | LoraAdapter[]) => {
    const b = await LlamaBackend.open({
      gguf: join(dir, 'base.gguf'),
      contextSize: 256,
      ...(lora ? { lora } : {}),
    });
    opened.push(b);
    return b;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-lora-'));
    const r = spawnSync(python, ['-m', 'rmsweb_trainer.gguf_tiny', dir], {
      env: trainerEnv(),
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (r.status !== 0) throw new Error(`the Python fixture failed (${r.status}): ${r.stderr.slice(-800)}`);
    ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reference;
  }, 150_000);

  afterAll(async () => {
    for (const b of opened) await b.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives the greedy replies and first-token probabilities transformers + peft gives', async () => {
    expect(ref.export).toMatchObject({ weights: 14, architecture: 'gemma3' });
    const b = await open({ file: join(dir, 'adapter.gguf') });
    expect(b.modelId).toBe('base+adapter');
    for (const [i, prompt] of ref.prompts.entries()) {
      // the two tokenizers read the same GGUF vocabulary the same way
      expect(b.rawPromptTokens(prompt)).toEqual(ref.promptIds[i]);
      const r = await b.complete(greedy(prompt, { logprobs: true, topLogprobs: 3 }));
      expectReply(r.choices[0]?.text, ref.lora, i);
      expectTop(r.choices[0]?.logprobs?.[0]?.top_logprobs, ref.loraTop[i]);
    }
    // the adapter changed the model: without it llama.cpp gives the plain model's (next test)
    expectShift(ref.loraTop, ref.baseTop);
    // the fixture's replies are not all near ties, or the text checks would check nothing
    for (const r of [ref.base, ref.lora, ref.stacked]) expect(r.sureTexts.join('')).not.toBe('');
  });

  it('stacks the adapters of a LoRA run started from a merged LoRA checkpoint', async () => {
    const b = await open([{ file: join(dir, 'adapter.gguf') }, { file: join(dir, 'adapter2.gguf') }]);
    expect(b.modelId).toBe('base+adapter+adapter2');
    for (const [i, prompt] of ref.prompts.entries()) {
      const r = await b.complete(greedy(prompt, { logprobs: true, topLogprobs: 3 }));
      expectReply(r.choices[0]?.text, ref.stacked, i);
      expectTop(r.choices[0]?.logprobs?.[0]?.top_logprobs, ref.stackedTop[i]);
    }
    // the second adapter acts too: llama.cpp did not serve the first one alone
    expectShift(ref.stackedTop, ref.loraTop);
  });

  it('without the adapter, and at --lora-scale 0, answers as the base model', async () => {
    const plain = await open();
    const zero = await open({ file: join(dir, 'adapter.gguf'), scale: 0 });
    for (const [i, prompt] of ref.prompts.entries())
      for (const b of [plain, zero]) {
        const r = await b.complete(greedy(prompt, { logprobs: true, topLogprobs: 3 }));
        expectReply(r.choices[0]?.text, ref.base, i);
        expectTop(r.choices[0]?.logprobs?.[0]?.top_logprobs, ref.baseTop[i]);
      }
  });

  it('serves the adapted model on /v1/completions and /v1/chat/completions', async () => {
    const post = async (url: string, body: object) => {
      const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
      return (await res.json()) as {
        model: string;
        choices: {
          text?: string;
          message?: { content: string };
          logprobs?: { content: { token: string; logprob: number }[] } | null;
        }[];
      };
    };
    const chat = {
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0,
      max_tokens: 6,
      logprobs: true,
      top_logprobs: 3,
    };
    // The chat reply's first-token probability, with and without the adapter. Their greedy texts
    // may coincide (a random tiny model can put most of its mass on one token either way: a CI
    // machine once answered 'xxxxxx' to both), so what must differ is the probability itself.
    const first: number[] = [];
    for (const lora of [undefined, { file: join(dir, 'adapter.gguf') }]) {
      const server = await ModelServer.start({ backend: await open(lora) });
      try {
        const c = await post(`${server.url}/completions`, {
          prompt: ref.prompts[0],
          temperature: 0,
          max_tokens: 8,
        });
        expectReply(c.choices[0]?.text, lora ? ref.lora : ref.base, 0);
        const m = await post(`${server.url}/chat/completions`, chat);
        expect(m.model).toBe(lora ? 'base+adapter' : 'base');
        const content = m.choices[0]?.logprobs?.content ?? [];
        expect(content.length).toBeGreaterThan(0);
        first.push(content[0]?.logprob ?? Number.NaN);
      } finally {
        await server.close();
      }
    }
    expect(first.every(Number.isFinite)).toBe(true);
    expect(Math.abs((first[1] ?? 0) - (first[0] ?? 0))).toBeGreaterThan(1e-3);
  });

  it('refuses a file that is not an adapter, naming --lora', async () => {
    const err = await open({ file: join(dir, 'base.gguf') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/could not be loaded as a LoRA adapter of .*base\.gguf/);
    const missing = await open({ file: join(dir, 'none.gguf') }).catch((e: unknown) => e);
    expect((missing as InputError).message).toMatch(/no LoRA adapter file at .*none\.gguf/);
  });
});

// The same path on the real base: Gemma 3 270M in Q4_K_M with an F32 adapter over it, as a trained
// student is served. The adapter is random (made from the GGUF's shapes, so no minute-long
// transformers load); that the numbers are right is the tiny round trip's part, this checks that the
// real model takes the adapter, that it acts, and that an adapter of another model is refused.
const realSkip = skip ?? localModelSkipReason();
describe.skipIf(realSkip !== null)('a LoRA adapter over the real local model', () => {
  let dir: string;
  const opened: LlamaBackend[] = [];
  const open = async (lora?: { file: string; scale?: number }) => {
    const b = await LlamaBackend.open({
      gguf: localModelPath(),
      contextSize: 512,
      ...(lora ? { lora } : {}),
    });
    opened.push(b);
    return b;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-lora-real-'));
    const code = [
      'import sys',
      'from rmsweb_trainer.gguf_tiny import random_adapter, write_tiny_gemma3',
      'from rmsweb_trainer.gguf_adapter import export_gguf',
      'base, d = sys.argv[1], sys.argv[2]',
      'export_gguf(str(random_adapter(base, d + "/real")), d + "/real.gguf", base=base)',
      'write_tiny_gemma3(d + "/tiny.gguf")',
      'export_gguf(str(random_adapter(d + "/tiny.gguf", d + "/tiny")), d + "/tiny-adapter.gguf", base=d + "/tiny.gguf")',
    ].join('\n');
    const r = spawnSync(python, ['-c', code, localModelPath(), dir], {
      env: trainerEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.status !== 0) throw new Error(`the Python fixture failed (${r.status}): ${r.stderr.slice(-800)}`);
  }, 90_000);
  afterAll(async () => {
    for (const b of opened) await b.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('changes the next-token distribution, and at scale 0 leaves it as the base has it', async () => {
    const first = async (b: LlamaBackend) => {
      const r = await b.complete(
        greedy('The capital of France is', { maxTokens: 4, logprobs: true, topLogprobs: 3 }),
      );
      return { text: r.choices[0]?.text, top: r.choices[0]?.logprobs?.[0]?.top_logprobs };
    };
    const base = await first(await open());
    const adapted = await first(await open({ file: join(dir, 'real.gguf') }));
    const zero = await first(await open({ file: join(dir, 'real.gguf'), scale: 0 }));
    expect(zero).toEqual(base);
    expect(adapted.top).not.toEqual(base.top);
  }, 60_000);

  it('refuses the adapter of another model, naming --lora', async () => {
    const err = await open({ file: join(dir, 'tiny-adapter.gguf') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/tiny-adapter\.gguf could not be loaded as a LoRA adapter/);
  }, 30_000);
});
