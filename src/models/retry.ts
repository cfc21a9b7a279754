import { ModelApiError, RmswebError, Rng } from '../core/index.ts';

/** Retry policy for model calls. */
export interface RetryOptions {
  /** Retries after the first attempt; default 4. */
  maxRetries?: number;
  /** First backoff delay; doubles each retry. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap on one delay. Default 20 s. */
  maxDelayMs?: number;
  /** Seeds the jitter so runs are reproducible. Default 0. */
  seed?: number;
  signal?: AbortSignal;
  /** Called before each wait; for logging (messages are already redacted). */
  onRetry?: (info: { attempt: number; delayMs: number; error: RmswebError }) => void;
}

/** Backoff before retry `attempt` (1-based): exponential with equal jitter, capped. */
export function backoffDelay(attempt: number, base: number, max: number, rng: Rng): number {
  const exp = Math.min(max, base * 2 ** (attempt - 1));
  return Math.round(exp / 2 + rng.next() * (exp / 2));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ModelApiError('request aborted', { isRetryable: false }));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new ModelApiError('request aborted', { isRetryable: false }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `fn` and retries it while it throws an error whose `isRetryable` is true. The last error is
 * rethrown with the attempt count added to its message, so "gave up after 5 attempts" is visible.
 * Errors that are not RmswebErrors are treated as bugs and never retried.
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  opts: RetryOptions = {},
): Promise<T> {
  const maxRetries = opts.maxRetries ?? 4;
  const base = opts.baseDelayMs ?? 500;
  const max = opts.maxDelayMs ?? 20_000;
  const rng = new Rng(opts.seed ?? 0);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!RmswebError.isInstance(e) || !e.isRetryable) throw e;
      if (attempt > maxRetries) {
        if (ModelApiError.isInstance(e) && attempt > 1) {
          throw new ModelApiError(`${e.message} (gave up after ${attempt} attempts)`, {
            status: e.status,
            url: e.url,
            // Still transient by nature: a job queue above may reschedule the whole job later.
            isRetryable: true,
          });
        }
        throw e;
      }
      const delayMs = backoffDelay(attempt, base, max, rng);
      opts.onRetry?.({ attempt, delayMs, error: e });
      await sleep(delayMs, opts.signal);
    }
  }
}
