import { TargetClosedError, TimeoutError } from '../core/index.ts';

const CLOSED_RE =
  /Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed|Connection closed/i;

/** Whether a Playwright error means the page, context or browser went away. */
export function isClosedError(e: unknown): boolean {
  if (TargetClosedError.isInstance(e)) return true;
  const err = e as { name?: string; message?: string } | null;
  return !!err && (err.name === 'TargetClosedError' || CLOSED_RE.test(err.message ?? ''));
}

/** The first line of an error message: Playwright appends long call logs we do not want in observations. */
export function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return (msg.split('\n')[0] ?? '').trim();
}

/**
 * Maps a Playwright error to the core error it stands for: TargetClosedError when the target
 * went away, TimeoutError (saying what was being done) when a Playwright timeout fired.
 * Other errors are returned unchanged.
 */
export function toCoreError(e: unknown, operation: string, timeoutMs: number): unknown {
  if (TimeoutError.isInstance(e) || TargetClosedError.isInstance(e)) return e;
  if (isClosedError(e)) return new TargetClosedError(operation, e);
  if ((e as { name?: string } | null)?.name === 'TimeoutError')
    return new TimeoutError(operation, timeoutMs, [firstLine(e)], e);
  return e;
}

/**
 * Runs `work` under a deadline. Past `timeoutMs` it rejects with a core TimeoutError whose message
 * says what was being done (`operation`); the abandoned promise's later failure is swallowed.
 */
export async function withDeadline<T>(
  operation: string,
  timeoutMs: number,
  work: Promise<T> | (() => Promise<T>),
): Promise<T> {
  const p = typeof work === 'function' ? work() : work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(operation, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([p, timeout]);
  } catch (e) {
    p.catch(() => {});
    throw toCoreError(e, operation, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
