/**
 * The HTTP plumbing of serve-model: errors in OpenAI's shape, bounded bodies, and what a request's
 * abort signal means (the server's deadline, or the client hanging up).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An error answered as `{error: {message, type, code, param}}` with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** Request bodies above this are refused with a 413 (`serve-model --max-body-mb`). */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/**
 * How long an over-limit body is read and dropped before the 413 is sent anyway. A client is
 * usually still sending when the server knows; answering and closing at once would reset the
 * connection under it (the client sees ECONNRESET, not the 413, and retries).
 */
const DRAIN_MS = 10_000;

/**
 * The request body as text, at most `limit` bytes. Over it: the rest is read and dropped (for
 * DRAIN_MS at most) and a 413 rejects, so the answer reaches a client that is still sending.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let drain: NodeJS.Timeout | undefined;
    const tooLarge = () =>
      reject(
        new HttpError(
          413,
          `request body over ${limit} bytes (serve-model --max-body-mb raises the limit)`,
          'body_too_large',
        ),
      );
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (over) return;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        drain = setTimeout(tooLarge, DRAIN_MS).unref();
      } else chunks.push(c);
    });
    req.on('end', () => {
      clearTimeout(drain);
      if (over) tooLarge();
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/** Answers JSON, unless the response is already sent or its socket gone (a client that hung up). */
export function send(res: ServerResponse, status: number, body: unknown, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    // Node closes the socket once this response is flushed, not before.
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

/** Why a request's signal fired: the server's own deadline, or the client hanging up. */
export class RequestTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the request took over ${ms / 1000} s (serve-model --timeout)`);
  }
}

/** The answer to a request whose signal fired: 504 past the deadline, 499 (unread) after a hang-up. */
export function abortError(signal: AbortSignal): HttpError {
  return signal.reason instanceof RequestTimeout
    ? new HttpError(504, signal.reason.message, 'timeout')
    : new HttpError(499, 'the client closed the request', 'client_closed');
}

/** `p`, or an abortError as soon as `signal` fires (a queued request need not wait its turn). */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
