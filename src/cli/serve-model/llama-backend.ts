import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InputError, RmswebError } from '../../core/errors.ts';
import {
  type BackendChoice,
  type BackendCompletionRequest,
  type BackendRequest,
  BackendRequestError,
  type BackendResult,
  type BackendSampling,
  type BackendTokenLogprob,
  type ChatBackend,
} from './backend.ts';
import { GRAMMAR_CACHE_SIZE, GrammarCache } from './grammar-cache.ts';
import type {
  ChatHistoryItem,
  ChatWrapper,
  Context,
  EvalOutput,
  Grammar,
  Llama,
  LlamaModule,
  Model,
  Sequence,
  Token,
} from './llama-api.ts';
import { GRAMMAR_FORMATS } from './response-schema.ts';

/** node-llama-cpp lives outside the main install (its optional GPU builds weigh ~730 MB). */
export const LLAMA_VERSION = '3.21.1';
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where scripts/get-local-model.sh installs node-llama-cpp; `RMSWEB_LLAMA_PREFIX` overrides it. */
export function llamaPrefix(env: NodeJS.ProcessEnv = process.env): string {
  return env.RMSWEB_LLAMA_PREFIX ? resolve(env.RMSWEB_LLAMA_PREFIX) : join(REPO_ROOT, '.local', 'llama');
}

/**
 * Imports node-llama-cpp from the project-local prefix. Absent: an InputError naming the script
 * that installs it, since nothing is fetched at run time.
 */
export async function loadLlamaModule(env: NodeJS.ProcessEnv = process.env): Promise<LlamaModule> {
  const prefix = llamaPrefix(env);
  const entry = join(prefix, 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  if (!existsSync(entry)) {
    throw new InputError(
      `node-llama-cpp is not installed at ${prefix} (it is kept out of the main install); ` +
        `run: bash scripts/get-local-model.sh (or set RMSWEB_LLAMA_PREFIX to a prefix holding node-llama-cpp@${LLAMA_VERSION})`,
      { field: 'serve-model' },
    );
  }
  return (await import(pathToFileURL(entry).href)) as LlamaModule;
}

export interface LlamaBackendOptions {
  gguf: string;
  /** Context tokens; default 8192, capped at the model's training context. */
  contextSize?: number;
  /** CPU threads; default 1 (on a loaded 2-core machine, more threads spin against each other). */
  threads?: number;
  env?: NodeJS.ProcessEnv;
  /** Compiled grammars kept, least recently used dropped first; default GRAMMAR_CACHE_SIZE (32). */
  grammarCacheSize?: number;
  /** A stand-in for node-llama-cpp (tests script one); default: the installed package. */
  module?: LlamaModule;
  /**
   * llama.cpp LoRA adapter GGUFs applied over the model (`rmsweb export gguf` writes one from a
   * `--lora` run), each at `scale` times its own alpha / rank (default 1). Several stack: a LoRA
   * run started from a merged LoRA checkpoint (Salvage-DS on a LoRA SFT student) is that
   * checkpoint's adapter plus its own, both over the first base.
   */
  lora?: LoraAdapter | LoraAdapter[];
}

/** A LoRA adapter GGUF and the scale it is applied at. */
export interface LoraAdapter {
  file: string;
  scale?: number;
}

/** The first bytes of every GGUF file. */
const GGUF_MAGIC = 'GGUF';

/** Refuses a LoRA adapter path that is missing or not a GGUF file, before the model is loaded. */
function checkAdapterFile(file: string): void {
  if (!existsSync(file) || !statSync(file).isFile())
    throw new InputError(
      `no LoRA adapter file at ${file} (python -m rmsweb_trainer export-gguf --adapter DIR --out FILE.gguf writes one)`,
      { field: '--lora' },
    );
  const head = Buffer.alloc(4);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== GGUF_MAGIC)
    throw new InputError(`${file} is not a GGUF file (a LoRA adapter must be a llama.cpp adapter GGUF)`, {
      field: '--lora',
    });
}

/**
 * Prompt tokens evaluated between two looks at the abort signal: about half a second of prompt
 * evaluation on a busy 2-core machine, and large enough that batching loses nothing.
 */
export const PROMPT_CHUNK = 256;

/**
 * A GGUF model run on the CPU by node-llama-cpp (llama.cpp): the GGUF's own chat template (or a
 * raw prompt continued as is, for a base model trained on plain text), JSON
 * Schema output enforced by a grammar, seeded sampling, per-token log-probabilities, and the KV
 * cache of the previous request reused for a shared prompt prefix (the agent's system prompt).
 */
export class LlamaBackend implements ChatBackend {
  readonly modelId: string;
  private readonly grammars: GrammarCache<Promise<Grammar>>;

  private constructor(
    private readonly mod: LlamaModule,
    private readonly llama: Llama,
    private readonly model: Model,
    private readonly context: Context,
    private readonly sequence: Sequence,
    private readonly wrapper: ChatWrapper,
    gguf: string,
    grammarCacheSize: number,
    /** The LoRA adapters applied, in order (absolute files, scales). */
    readonly adapters: Required<LoraAdapter>[] = [],
  ) {
    const name = (f: string) => basename(f).replace(/\.gguf$/i, '');
    // the adapters are part of what answers: a client's logs should say which student it talked to
    this.modelId = [gguf, ...adapters.map((a) => a.file)].map(name).join('+');
    this.grammars = new GrammarCache(grammarCacheSize);
  }

  /** The first LoRA adapter applied, or null. */
  get lora(): Required<LoraAdapter> | null {
    return this.adapters[0] ?? null;
  }

  get contextSize(): number {
    return this.context.contextSize;
  }

  get chatTemplate(): string {
    return this.wrapper.wrapperName;
  }

  static async open(o: LlamaBackendOptions): Promise<LlamaBackend> {
    if (!existsSync(o.gguf)) {
      throw new InputError(
        `no GGUF file at ${o.gguf} (bash scripts/get-local-model.sh prints the bundled model's path)`,
        { field: '--gguf' },
      );
    }
    const adapters = (o.lora === undefined ? [] : Array.isArray(o.lora) ? o.lora : [o.lora]).map((a) => ({
      file: resolve(a.file),
      scale: a.scale ?? 1,
    }));
    for (const a of adapters) checkAdapterFile(a.file);
    const mod = o.module ?? (await loadLlamaModule(o.env));
    const llama = await mod.getLlama({ gpu: false, build: 'never', logLevel: 'error' });
    let model: Model;
    try {
      model = await llama.loadModel({ modelPath: resolve(o.gguf) });
    } catch (e) {
      await llama.dispose();
      throw new InputError(`${o.gguf} could not be loaded as a GGUF model: ${(e as Error).message}`, {
        field: '--gguf',
      });
    }
    const contextSize = Math.min(o.contextSize ?? 8192, model.trainContextSize || Number.MAX_SAFE_INTEGER);
    let context: Context;
    try {
      context = await model.createContext({
        contextSize,
        threads: o.threads ?? 1,
        sequences: 1,
        ...(adapters.length
          ? { lora: { adapters: adapters.map((a) => ({ filePath: a.file, scale: a.scale })) } }
          : {}),
      });
    } catch (e) {
      await model.dispose();
      await llama.dispose();
      // llama.cpp refuses an adapter of another architecture or shape only once it loads it
      if (adapters.length)
        throw new InputError(
          `${adapters.map((a) => a.file).join(' + ')} could not be loaded as ${adapters.length > 1 ? 'LoRA adapters' : 'a LoRA adapter'} ` +
            `of ${o.gguf}: ${(e as Error).message} (each must be a llama.cpp adapter GGUF exported from a --lora run ` +
            'on this very base model; llama.cpp logs which tensor it refused)',
          { field: '--lora' },
        );
      throw e;
    }
    const wrapper = mod.resolveChatWrapper(model);
    if (!wrapper) {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
      throw new InputError(`${o.gguf} has no chat template node-llama-cpp recognizes`, { field: '--gguf' });
    }
    return new LlamaBackend(
      mod,
      llama,
      model,
      context,
      context.getSequence(),
      wrapper,
      o.gguf,
      o.grammarCacheSize ?? GRAMMAR_CACHE_SIZE,
      adapters,
    );
  }

  private grammarFor(req: BackendRequest): Promise<Grammar> | null {
    if (req.jsonSchema) {
      const key = JSON.stringify(req.jsonSchema);
      let g = this.grammars.get(key);
      if (!g) {
        const schema = req.jsonSchema;
        // Rewriting the schema throws on some malformed ones; that is the client's error too.
        g = (async () => this.llama.createGrammarForJsonSchema(toGbnfJsonSchema(schema)))().catch(
          (e: unknown) => {
            this.grammars.delete(key);
            throw new BackendRequestError(
              `response_format json_schema cannot be turned into a grammar: ${(e as Error).message}`,
              'unsupported_schema',
            );
          },
        );
        this.grammars.set(key, g);
      }
      return g;
    }
    if (req.jsonObject) {
      let g = this.grammars.get('json');
      if (!g) {
        g = this.llama.getGrammarFor('json');
        this.grammars.set('json', g);
      }
      return g;
    }
    return null;
  }

  /** The prompt tokens of a conversation, ending where the model's reply starts. */
  promptTokens(messages: BackendRequest['messages']): Token[] {
    const chatHistory: ChatHistoryItem[] = messages.map((m) =>
      m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content },
    );
    chatHistory.push({ type: 'model', response: [] });
    return this.wrapper.generateContextState({ chatHistory }).contextText.tokenize(this.model.tokenizer);
  }

  /**
   * The tokens of a raw prompt, as llama.cpp's server and Hugging Face tokenizers make them (so as
   * the `export sft --format lm` rows were trained): BOS first when the model wants it, and special
   * tokens written in the text read as such.
   */
  rawPromptTokens(prompt: string): Token[] {
    const { bos, shouldPrependBosToken } = this.model.tokens;
    const tokens = this.model.tokenizer(prompt, true);
    return shouldPrependBosToken && bos !== null && tokens[0] !== bos ? [bos, ...tokens] : tokens;
  }

  async generate(req: BackendRequest): Promise<BackendResult> {
    return this.run(this.promptTokens(req.messages), req, () => this.grammarFor(req));
  }

  async complete(req: BackendCompletionRequest): Promise<BackendResult> {
    return this.run(this.rawPromptTokens(req.prompt), req, () => null);
  }

  /** Draws `req.n` samples continuing `prompt`, the grammar (if any) built once the prompt fits. */
  private async run(
    prompt: Token[],
    req: BackendSampling,
    grammarOf: () => Promise<Grammar> | null,
  ): Promise<BackendResult> {
    if (prompt.length === 0)
      throw new BackendRequestError('the prompt is empty (and this model has no BOS token)', 'empty_prompt');
    const room = this.contextSize - prompt.length;
    if (room < 1) {
      throw new BackendRequestError(
        `the prompt is ${prompt.length} tokens; the context holds ${this.contextSize} (start serve-model with a larger --ctx)`,
        'context_length_exceeded',
      );
    }
    const maxTokens = Math.min(req.maxTokens ?? room, room);
    throwIfAborted(req.signal);
    const grammar = await grammarOf();
    // Compiling blocks the event loop, so a hang-up that came meanwhile is only seen once I/O runs.
    await new Promise((r) => setImmediate(r));
    throwIfAborted(req.signal);
    const baseSeed = req.seed ?? Math.floor(Math.random() * 2 ** 31);
    const choices: BackendChoice[] = [];
    let promptMs = 0;
    let generationMs = 0;
    let cachedPromptTokens = 0;
    for (let i = 0; i < req.n; i++) {
      const r = await this.sample(prompt, maxTokens, grammar, baseSeed + i, req);
      if (i === 0) cachedPromptTokens = r.cached;
      choices.push(r.choice);
      promptMs += r.promptMs;
      generationMs += r.generationMs;
    }
    return { choices, promptTokens: prompt.length, cachedPromptTokens, promptMs, generationMs };
  }

  private async sample(
    prompt: Token[],
    maxTokens: number,
    grammar: Grammar | null,
    seed: number,
    req: BackendSampling,
  ): Promise<{ choice: BackendChoice; cached: number; promptMs: number; generationMs: number }> {
    // Keep the cached prefix but always evaluate at least one token, so there are fresh logits.
    await this.sequence.adaptStateToTokens(prompt.slice(0, -1), false);
    const start = Math.min(this.sequence.nextTokenIndex, prompt.length - 1);
    let input = prompt.slice(start);
    const t0 = Date.now();
    // llama.cpp evaluates a prompt in one call that cannot be stopped: feed it in chunks, so a
    // client that hangs up during a long prompt frees the model within one chunk.
    while (input.length > PROMPT_CHUNK) {
      throwIfAborted(req.signal);
      await this.sequence.evaluateWithoutGeneratingNewTokens(input.slice(0, PROMPT_CHUNK));
      input = input.slice(PROMPT_CHUNK);
    }
    throwIfAborted(req.signal);
    const grammarEvaluationState = grammar
      ? new this.mod.LlamaGrammarEvaluationState({ model: this.model, grammar })
      : undefined;
    const options: Record<string, unknown> = {
      temperature: req.temperature,
      seed,
      ...(req.topP !== undefined ? { topP: req.topP } : {}),
      ...(grammarEvaluationState ? { grammarEvaluationState } : {}),
      yieldEogToken: true,
    };
    const wantTop = req.logprobs && req.topLogprobs > 0;
    const out: Token[] = [];
    const logprobs: BackendTokenLogprob[] = [];
    let tFirst = 0;
    let finishReason: BackendChoice['finishReason'] = 'length';
    let text = '';
    const gen: AsyncGenerator<EvalOutput | Token, void, undefined | Token | Token[]> = req.logprobs
      ? this.sequence.evaluateWithMetadata(
          input,
          wantTop ? { confidence: true, probabilities: true } : { confidence: true },
          options,
        )
      : this.sequence.evaluate(input, options);
    try {
      for await (const item of gen) {
        if (!tFirst) tFirst = Date.now();
        throwIfAborted(req.signal);
        const r: EvalOutput = typeof item === 'number' ? { token: item } : item;
        if (this.model.isEogToken(r.token)) {
          finishReason = 'stop';
          break;
        }
        out.push(r.token);
        if (req.logprobs) logprobs.push(this.logprobOf(r, wantTop ? req.topLogprobs : 0));
        text = this.model.detokenize(out);
        // The grammar allows whitespace after the value until the end-of-turn token, and a small
        // model may never emit that: stop once the root value is complete, whatever its type.
        if (grammar && jsonValueComplete(text)) {
          finishReason = 'stop';
          break;
        }
        const stopAt = firstStop(text, req.stop);
        if (stopAt >= 0) {
          text = text.slice(0, stopAt);
          finishReason = 'stop';
          break;
        }
        if (out.length >= maxTokens) break;
      }
    } finally {
      await gen.return(undefined);
    }
    const t1 = Date.now();
    // The JSON grammar lets whitespace trail the closing brace until the end-of-turn token.
    if (grammar) text = text.trim();
    return {
      choice: {
        text,
        finishReason,
        completionTokens: out.length,
        ...(req.logprobs ? { logprobs } : {}),
      },
      cached: start,
      promptMs: (tFirst || t1) - t0,
      generationMs: t1 - (tFirst || t1),
    };
  }

  private logprobOf(r: EvalOutput, top: number): BackendTokenLogprob {
    const token = this.model.detokenize([r.token]);
    const p = r.confidence ?? r.probabilities?.get(r.token) ?? 0;
    const lp = p > 0 ? Math.log(p) : Number.NEGATIVE_INFINITY;
    const alts: BackendTokenLogprob['top_logprobs'] = [];
    if (top > 0 && r.probabilities) {
      const best = [...r.probabilities.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
      for (const [t, q] of best) alts.push({ token: this.model.detokenize([t]), logprob: Math.log(q) });
    }
    return { token, logprob: Number.isFinite(lp) ? lp : -9999, top_logprobs: alts };
  }

  async close(): Promise<void> {
    await this.context.dispose().catch(() => {});
    await this.model.dispose().catch(() => {});
    await this.llama.dispose().catch(() => {});
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RmswebError('request aborted', { code: 'ABORTED' });
}

/**
 * Whether `text` holds a whole JSON value that nothing more can extend: an object, array, string
 * or literal once it parses; a number only once something follows it (`4` may become `42`).
 */
export function jsonValueComplete(text: string): boolean {
  const value = text.trimEnd();
  if (!value) return false;
  const closed = /[}\]"]$|(?:true|false|null)$/.test(value);
  if (!closed && value.length === text.length) return false;
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Rewrites a JSON Schema into the dialect node-llama-cpp turns into a grammar: it knows `oneOf` but
 * not `anyOf` (which zod and most clients emit, e.g. for nullable fields) and would read an unknown
 * combinator as "any value". For generation the two mean the same: one of the alternatives. It
 * resolves `$ref` in `$defs` only, so `definitions` move there; and it allows only `""` for a
 * string `format` it has no grammar for (`email`, `uri`), so such a format is dropped.
 */
export function toGbnfJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    const named = (x: unknown) =>
      Object.fromEntries(Object.entries(x as Record<string, unknown>).map(([n, y]) => [n, walk(y)]));
    for (const [k, x] of Object.entries(v)) {
      if (k === '$schema') continue;
      if (k === 'format' && typeof x === 'string' && !GRAMMAR_FORMATS.has(x)) continue;
      if (k === 'enum' || k === 'const' || k === 'required') out[k] = x;
      else if (k === 'properties') out[k] = named(x);
      else if (k === '$defs' || k === 'definitions') out.$defs = { ...(out.$defs as object), ...named(x) };
      else if (k === '$ref' && typeof x === 'string') out.$ref = x.replace(/^#\/definitions\//, '#/$defs/');
      else if (k === 'anyOf') out.oneOf = walk(x);
      else if (k === 'allOf' && Array.isArray(x) && x.length === 1) Object.assign(out, walk(x[0]));
      else out[k] = walk(x);
    }
    return out;
  };
  return walk(schema) as Record<string, unknown>;
}

/** Index where the earliest stop string starts in `text`, or -1. */
export function firstStop(text: string, stops: readonly string[]): number {
  let at = -1;
  for (const s of stops) {
    if (!s) continue;
    const i = text.indexOf(s);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at;
}
