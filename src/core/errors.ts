/**
 * The few typed errors that cross module boundaries. Each carries structured fields so callers
 * branch on data (`isRetryable`, `code`) rather than on message text, and a static `isInstance`
 * that works across copies of the module.
 */

/** Base class of every error rmsweb raises on purpose. */
export class RmswebError extends Error {
  readonly code: string;
  readonly isRetryable: boolean;
  readonly details: Record<string, unknown>;
  private readonly rmswebMarker = true;

  constructor(
    message: string,
    opts: { code: string; isRetryable?: boolean; details?: Record<string, unknown>; cause?: unknown },
  ) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'RmswebError';
    this.code = opts.code;
    this.isRetryable = opts.isRetryable ?? false;
    this.details = opts.details ?? {};
  }

  static isInstance(e: unknown): e is RmswebError {
    return typeof e === 'object' && e !== null && (e as { rmswebMarker?: unknown }).rmswebMarker === true;
  }
}

/** An operation ran past its deadline; `operation` says what it was doing, `log` what it tried. */
export class TimeoutError extends RmswebError {
  readonly operation: string;
  readonly timeoutMs: number;
  readonly log: string[];
  constructor(operation: string, timeoutMs: number, log: string[] = [], cause?: unknown) {
    const tail = log.length ? `\n  ${log.join('\n  ')}` : '';
    super(`Timeout ${timeoutMs}ms exceeded while ${operation}${tail}`, {
      code: 'TIMEOUT',
      isRetryable: true,
      details: { operation, timeoutMs },
      cause,
    });
    this.name = 'TimeoutError';
    this.operation = operation;
    this.timeoutMs = timeoutMs;
    this.log = log;
  }
  static override isInstance(e: unknown): e is TimeoutError {
    return RmswebError.isInstance(e) && e.code === 'TIMEOUT';
  }
}

/** The browser, context or page went away under an operation. */
export class TargetClosedError extends RmswebError {
  constructor(what: string, cause?: unknown) {
    super(`Target closed: ${what}`, { code: 'TARGET_CLOSED', isRetryable: true, details: { what }, cause });
    this.name = 'TargetClosedError';
  }
  static override isInstance(e: unknown): e is TargetClosedError {
    return RmswebError.isInstance(e) && e.code === 'TARGET_CLOSED';
  }
}

/**
 * Bad input from a user: a file, a line, a CLI option or a field that does not fit its schema.
 * The message names where the problem is.
 */
export class InputError extends RmswebError {
  readonly file?: string;
  readonly line?: number;
  readonly field?: string;
  constructor(
    message: string,
    where: { file?: string; line?: number; field?: string } = {},
    cause?: unknown,
  ) {
    const loc = [
      where.file,
      where.line !== undefined ? `line ${where.line}` : undefined,
      where.field ? `field ${where.field}` : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    super(loc ? `${loc}: ${message}` : message, { code: 'INPUT', details: where, cause });
    this.name = 'InputError';
    this.file = where.file;
    this.line = where.line;
    this.field = where.field;
  }
  static override isInstance(e: unknown): e is InputError {
    return RmswebError.isInstance(e) && e.code === 'INPUT';
  }
}

/** A model endpoint failed. `status` is the HTTP status when there was one. Never carries the API key. */
export class ModelApiError extends RmswebError {
  readonly status?: number;
  readonly url?: string;
  constructor(
    message: string,
    opts: { status?: number; url?: string; isRetryable: boolean; cause?: unknown },
  ) {
    super(message, {
      code: 'MODEL_API',
      isRetryable: opts.isRetryable,
      details: { status: opts.status, url: opts.url },
      cause: opts.cause,
    });
    this.name = 'ModelApiError';
    this.status = opts.status;
    this.url = opts.url;
  }
  static override isInstance(e: unknown): e is ModelApiError {
    return RmswebError.isInstance(e) && e.code === 'MODEL_API';
  }
}

/** A page or URL could not be reached (DNS, refused connection, blocked by the allowlist). */
export class NavigationError extends RmswebError {
  readonly url: string;
  constructor(url: string, reason: string, cause?: unknown) {
    super(`Cannot reach ${url}: ${reason}`, { code: 'NAVIGATION', details: { url, reason }, cause });
    this.name = 'NavigationError';
    this.url = url;
  }
  static override isInstance(e: unknown): e is NavigationError {
    return RmswebError.isInstance(e) && e.code === 'NAVIGATION';
  }
}

/** Turns a zod error into a one-line message that names each failing field path. */
export function describeZodIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
