import type { ChatGenerateOptions, ChatGenerateResult, ChatModel } from '../chat-model.ts';

/**
 * An in-process ChatModel for TESTS ONLY: answers from a scripted queue and records every call.
 * Like the fake server, its replies test plumbing and never stand for a model's results.
 */
export class ScriptedChatModel implements ChatModel {
  readonly provider = 'scripted';
  /** Every options object received, in order. */
  readonly calls: ChatGenerateOptions[] = [];
  private readonly queue: Array<string | string[] | ((opts: ChatGenerateOptions) => string | string[])>;

  constructor(
    replies: Array<string | string[] | ((opts: ChatGenerateOptions) => string | string[])> = [],
    readonly id = 'scripted-model',
    /** Tokens charged per call, so accounting code has something to sum. */
    private readonly tokensPerCall = { prompt: 10, completion: 5 },
  ) {
    this.queue = [...replies];
  }

  /** Appends replies: a text, one text per sample, or a function of the request. */
  enqueue(...replies: Array<string | string[] | ((opts: ChatGenerateOptions) => string | string[])>): void {
    this.queue.push(...replies);
  }

  pending(): number {
    return this.queue.length;
  }

  async doGenerate(opts: ChatGenerateOptions): Promise<ChatGenerateResult> {
    this.calls.push(opts);
    const next = this.queue.shift();
    if (next === undefined)
      throw new Error(`ScriptedChatModel: no scripted reply left for call ${this.calls.length}`);
    const out = typeof next === 'function' ? next(opts) : next;
    const n = opts.n ?? 1;
    const texts = Array.isArray(out) ? out : Array.from({ length: n }, () => out);
    return {
      choices: texts.map((text) => ({ text, finishReason: 'stop' })),
      usage: {
        promptTokens: this.tokensPerCall.prompt,
        completionTokens: this.tokensPerCall.completion,
        costUsd: 0,
        calls: 1,
      },
      cached: false,
      rawId: `scripted-${this.calls.length}`,
      modelId: this.id,
    };
  }
}
