import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ModelApiError } from '../core/index.ts';
import type { ChatGenerateOptions, ChatGenerateResult, ChatModel } from './chat-model.ts';
import { checkModelPath, checkTrainerEnv, trainerEnv, trainerPython } from './trainer-python.ts';

/**
 * A Hugging Face checkpoint (a folder the PyTorch trainer wrote, or any causal LM on disk) as a chat
 * model: a Python process (`python -m rmsweb_trainer serve`) loads it with transformers and answers
 * one request at a time over stdin/stdout. Messages are sent as text (a text-only LM gets no
 * screenshot), rendered by the model's chat template exactly as the trainer rendered its training
 * prompts. Temperature 0 decodes greedily.
 */
export class HfChatModel implements ChatModel {
  readonly provider = 'hf';
  private proc: ChildProcessWithoutNullStreams | null = null;
  private ready: Promise<void> | null = null;
  private pending = new Map<number, (reply: Record<string, unknown>) => void>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private stderrTail = '';

  /** Checks `id` as a model path at once (an InputError about `--agent`), before any run starts. */
  constructor(
    readonly id: string,
    private readonly opts: { device?: string } = {},
  ) {
    checkModelPath(id, '--agent');
  }

  private start(): Promise<void> {
    this.ready ??= new Promise<void>((resolve, reject) => {
      checkTrainerEnv();
      const args = ['-m', 'rmsweb_trainer', 'serve', '--model', this.id];
      if (this.opts.device) args.push('--device', this.opts.device);
      const proc = spawn(trainerPython(), args, { env: trainerEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
      this.proc = proc;
      this.hold(true);
      proc.stderr.on('data', (d: Buffer) => {
        this.stderrTail = (this.stderrTail + d.toString()).slice(-2000);
      });
      proc.on('exit', (code) => {
        const err = new ModelApiError(
          `hf model ${this.id}: the Python server exited (${code}): ${this.stderrTail.trim().slice(-600)}`,
          { isRetryable: false },
        );
        reject(err);
        for (const done of this.pending.values()) done({ error: err.message });
        this.pending.clear();
        this.proc = null;
      });
      createInterface({ input: proc.stdout }).on('line', (line) => {
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return; // a library printing to stdout; replies are JSON objects
        }
        if (msg.ready) {
          this.hold(false);
          return resolve();
        }
        const done = this.pending.get(msg.id as number);
        if (done) {
          this.pending.delete(msg.id as number);
          if (this.pending.size === 0) this.hold(false);
          done(msg);
        }
      });
    });
    return this.ready;
  }

  async doGenerate(o: ChatGenerateOptions): Promise<ChatGenerateResult> {
    const run = async (): Promise<ChatGenerateResult> => {
      await this.start();
      const n = o.n ?? 1;
      const choices: ChatGenerateResult['choices'] = [];
      let promptTokens = 0;
      let completionTokens = 0;
      for (let i = 0; i < n; i++) {
        const id = this.nextId++;
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
        const reply = await new Promise<Record<string, unknown>>((resolve) => {
          this.pending.set(id, resolve);
          this.hold(true);
          this.proc?.stdin.write(
            `${JSON.stringify({ id, messages, max_tokens: o.maxTokens, temperature: o.temperature ?? 0, seed: (o.seed ?? 0) + i })}\n`,
          );
        });
        if (typeof reply.error === 'string')
          throw new ModelApiError(`hf model ${this.id}: ${reply.error}`, { isRetryable: false });
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
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /**
   * An idle server must not keep the CLI alive after its command finished; one with a request in
   * flight must (nothing else may be holding the event loop open then).
   */
  private hold(on: boolean): void {
    const p = this.proc;
    if (!p) return;
    for (const x of [p, p.stdin, p.stdout, p.stderr] as Array<{ ref?: () => void; unref?: () => void }>)
      on ? x.ref?.() : x.unref?.();
  }

  /** Ends the Python process. */
  close(): void {
    this.proc?.stdin.end();
    this.proc?.kill();
    this.proc = null;
  }
}
