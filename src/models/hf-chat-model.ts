import type { ChatGenerateOptions, ChatGenerateResult, ChatModel } from './chat-model.ts';
import { HfServer } from './hf-server.ts';
import { checkModelPath } from './trainer-python.ts';

/**
 * A Hugging Face checkpoint (a folder the PyTorch trainer wrote, or any causal LM on disk) as a chat
 * model: a Python process (`python -m rmsweb_trainer serve`, see HfServer) loads it with
 * transformers and answers one request at a time over stdin/stdout. Messages are sent as text (a
 * text-only LM gets no screenshot), rendered by the model's chat template exactly as the trainer
 * rendered its training prompts. Temperature 0 decodes greedily.
 */
export class HfChatModel implements ChatModel {
  readonly provider = 'hf';
  private readonly server: HfServer;
  private queue: Promise<unknown> = Promise.resolve();

  /** Checks `id` as a model path at once (an InputError about `--agent`), before any run starts. */
  constructor(
    readonly id: string,
    opts: { device?: string } = {},
  ) {
    checkModelPath(id, '--agent');
    this.server = new HfServer(id, opts);
  }

  async doGenerate(o: ChatGenerateOptions): Promise<ChatGenerateResult> {
    const run = async (): Promise<ChatGenerateResult> => {
      const n = o.n ?? 1;
      const choices: ChatGenerateResult['choices'] = [];
      let promptTokens = 0;
      let completionTokens = 0;
      const messages = o.messages.map((m) => ({
        role: m.role,
        content:
          typeof m.content === 'string'
            ? m.content
            : m.content
                .filter((p) => p.type === 'text')
                .map((p) => (p as { text: string }).text)
                .join('\n'),
      }));
      for (let i = 0; i < n; i++) {
        const reply = await this.server.request({
          messages,
          max_tokens: o.maxTokens,
          temperature: o.temperature ?? 0,
          seed: (o.seed ?? 0) + i,
        });
        choices.push({ text: String(reply.text ?? ''), finishReason: String(reply.finish_reason ?? 'stop') });
        promptTokens += Number(reply.prompt_tokens ?? 0);
        completionTokens += Number(reply.completion_tokens ?? 0);
      }
      return {
        choices,
        usage: { promptTokens, completionTokens, costUsd: 0, calls: 1 },
        cached: false,
        rawId: null,
        modelId: this.id,
      };
    };
    // a call's n samples go out back to back, not interleaved with another call's
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Ends the Python process. */
  close(): void {
    this.server.close();
  }
}
