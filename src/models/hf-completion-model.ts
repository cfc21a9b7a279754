import { z } from 'zod';
import { ModelApiError } from '../core/index.ts';
import { HfServer } from './hf-server.ts';
import type { TextCompletionModel, TextCompletionOptions, TextCompletionResult } from './text-completion.ts';
import { checkModelPath } from './trainer-python.ts';

// Only the fields read; the server (trainer/rmsweb_trainer/serve.py) writes them all.
const Reply = z.object({
  text: z.string(),
  finish_reason: z.string().nullish(),
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
});

/**
 * A Hugging Face checkpoint (or a .gguf transformers loads) as a TextCompletionModel: the LM
 * student's model behind `--agent lm:hf:DIR`. The Python `serve` process (see HfServer) continues
 * the raw prompt - the tokenizer's BOS + the text, no chat template, tokenized exactly as the
 * trainer tokenizes `export sft --format lm` prompts - until EOS or a stop string, which the text
 * leaves out (as an OpenAI-compatible `/completions` endpoint does). Temperature 0 is greedy.
 */
export class HfCompletionModel implements TextCompletionModel {
  readonly provider = 'hf';
  private readonly server: HfServer;

  /** torch's CPU threads in the model's process, once it has started (null before). */
  get threads(): number | null {
    return this.server.threads;
  }

  /** Checks `id` as a model path at once (an InputError about `field`), before any run starts. */
  constructor(
    readonly id: string,
    opts: { device?: string; field?: string; threads?: number } = {},
  ) {
    checkModelPath(id, opts.field ?? '--agent');
    this.server = new HfServer(id, { device: opts.device, threads: opts.threads });
  }

  async complete(opts: TextCompletionOptions): Promise<TextCompletionResult> {
    if (opts.abortSignal?.aborted)
      throw new ModelApiError(`hf model ${this.id}: aborted`, { isRetryable: false });
    const raw = await this.server.request({
      prompt: opts.prompt,
      max_tokens: opts.maxTokens,
      temperature: opts.temperature ?? 0,
      stop: opts.stop ?? [],
    });
    const r = Reply.safeParse(raw);
    if (!r.success)
      throw new ModelApiError(
        `hf model ${this.id}: malformed reply from the Python server: ${JSON.stringify(raw).slice(0, 200)}`,
        { isRetryable: false },
      );
    return {
      text: r.data.text,
      finishReason: r.data.finish_reason ?? null,
      usage: {
        promptTokens: Math.max(0, Math.round(r.data.prompt_tokens ?? 0)),
        completionTokens: Math.max(0, Math.round(r.data.completion_tokens ?? 0)),
        costUsd: 0,
        calls: 1,
      },
    };
  }

  /** Ends the Python process. */
  close(): void {
    this.server.close();
  }
}
