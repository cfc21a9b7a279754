/**
 * Screenshots travel from the browser to the agent as base64 in `ScreenshotRef.data`; they must
 * never be persisted inline (a run of a few thousand steps would weigh gigabytes of SQLite).
 * These helpers move such payloads into the image store and keep only the content address.
 */

const DATA_URL_PREFIX = /^data:[^;,]+;base64,/;

function isScreenshotWithData(v: Record<string, unknown>): boolean {
  return typeof v.data === 'string' && typeof v.hash === 'string' && ('width' in v || 'mime' in v);
}

/**
 * Returns a deep copy of `value` in which every screenshot-like object (`{hash, width|mime, data}`)
 * has had its base64 `data` written through `putImage` and removed; `hash` is set to the content
 * address `putImage` returned, which is the source of truth over whatever hash the producer set.
 * Values without screenshots come back structurally equal.
 */
export function externalizeScreenshots<T>(value: T, putImage: (bytes: Uint8Array) => string): T {
  return walk(value, putImage) as T;
}

function walk(v: unknown, putImage: (bytes: Uint8Array) => string): unknown {
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' && x !== null ? walk(x, putImage) : x));
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof Uint8Array || v instanceof Date) return v;
  const obj = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (isScreenshotWithData(obj)) {
    const b64 = (obj.data as string).replace(DATA_URL_PREFIX, '');
    const hash = putImage(Buffer.from(b64, 'base64'));
    for (const [k, x] of Object.entries(obj)) if (k !== 'data') out[k] = x;
    out.hash = hash;
    return out;
  }
  for (const [k, x] of Object.entries(obj))
    out[k] = typeof x === 'object' && x !== null ? walk(x, putImage) : x;
  return out;
}
