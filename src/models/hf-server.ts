import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ModelApiError } from '../core/index.ts';
import { checkTrainerEnv, trainerEnv, trainerPython } from './trainer-python.ts';

/**
 * The Python `serve` process of a Hugging Face checkpoint (`python -m rmsweb_trainer serve`,
 * trainer/rmsweb_trainer/serve.py): started on the first request, it loads the model with
 * transformers and answers one JSON request a line over stdin/stdout. Requests run one at a time,
 * in the order sent. Shared by HfChatModel (chat messages) and HfCompletionModel (a raw prompt).
 */
export class HfServer {
  private proc: ChildProcessWithoutNullStreams | null = null;
  private ready: Promise<void> | null = null;
  private pending = new Map<number, (reply: Record<string, unknown>) => void>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private stderrTail = '';
  /** torch's CPU threads in the process, as it reported when ready (null before). */
  threads: number | null = null;

  constructor(
    readonly id: string,
    private readonly opts: {
      device?: string;
      /**
       * torch's CPU threads in the process (default: torch's, one per core). Several processes on
       * few cores want one each: oversubscribed OpenMP threads wait on each other.
       */
      threads?: number;
    } = {},
  ) {}

  private start(): Promise<void> {
    this.ready ??= new Promise<void>((resolve, reject) => {
      checkTrainerEnv();
      const args = ['-m', 'rmsweb_trainer', 'serve', '--model', this.id];
      if (this.opts.device) args.push('--device', this.opts.device);
      if (this.opts.threads) args.push('--threads', String(this.opts.threads));
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
          if (typeof msg.threads === 'number') this.threads = msg.threads;
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

  /**
   * Sends one request (its `id` is set here) once the requests before it are answered; resolves
   * with the reply. A reply carrying `error` (the server refused the request) throws a
   * non-retryable ModelApiError, as does a server that exited.
   */
  request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const run = async () => {
      await this.start();
      const id = this.nextId++;
      const reply = await new Promise<Record<string, unknown>>((resolve) => {
        this.pending.set(id, resolve);
        this.hold(true);
        this.proc?.stdin.write(`${JSON.stringify({ ...body, id })}\n`);
      });
      if (typeof reply.error === 'string')
        throw new ModelApiError(`hf model ${this.id}: ${reply.error}`, { isRetryable: false });
      return reply;
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
