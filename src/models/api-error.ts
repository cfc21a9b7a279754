import OpenAI from 'openai';
import { ModelApiError } from '../core/index.ts';
import { redact } from './redact.ts';

/** HTTP statuses worth retrying: request timeout, conflict/lock, rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Maps whatever the OpenAI client threw into a ModelApiError whose message says which model and
 * endpoint failed and how, with every secret redacted. The original error is deliberately not kept
 * as `cause`: it may hold request details, and causes get serialized by loggers.
 */
export function toModelApiError(
  e: unknown,
  where: {
    model: string;
    baseURL: string;
    timeoutMs: number;
    secrets?: ReadonlyArray<string | null | undefined>;
  },
): ModelApiError {
  const prefix = `${where.model} at ${where.baseURL}`;
  const clean = (s: string) => redact(s, where.secrets ?? []);
  if (e instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelApiError(clean(`${prefix}: request timed out after ${where.timeoutMs} ms`), {
      url: where.baseURL,
      isRetryable: true,
    });
  }
  if (e instanceof OpenAI.APIUserAbortError) {
    return new ModelApiError(clean(`${prefix}: request aborted`), { url: where.baseURL, isRetryable: false });
  }
  if (e instanceof OpenAI.APIConnectionError) {
    const why = e.cause instanceof Error ? `${e.message} (${e.cause.message})` : e.message;
    return new ModelApiError(clean(`${prefix}: connection failed: ${why}`), {
      url: where.baseURL,
      isRetryable: true,
    });
  }
  if (e instanceof OpenAI.APIError) {
    const status = e.status;
    const retryable = status === undefined ? true : isRetryableStatus(status);
    const hint = status === 401 || status === 403 ? ' (check the API key for this role)' : '';
    return new ModelApiError(clean(`${prefix}: HTTP ${status ?? '?'}: ${e.message}${hint}`), {
      status,
      url: where.baseURL,
      isRetryable: retryable,
    });
  }
  if (e instanceof SyntaxError) {
    // The client failed to parse a JSON body: a garbled reply, usually transient.
    return new ModelApiError(clean(`${prefix}: unparseable response body: ${e.message}`), {
      url: where.baseURL,
      isRetryable: true,
    });
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new ModelApiError(clean(`${prefix}: ${msg}`), { url: where.baseURL, isRetryable: false });
}
