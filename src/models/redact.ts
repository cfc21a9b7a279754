/**
 * Scrubs API keys out of text before it can reach an error message, a log line, a cache entry or
 * any record. Keys the process knows about (registered when a client is built) are removed
 * exactly; common key shapes are masked as a second line of defence, since servers sometimes echo
 * a key back in an error body.
 */

const known = new Set<string>();

/** The placeholder that replaces a secret. */
export const REDACTED = '[REDACTED]';

// Shorter strings would mask ordinary words; real keys are far longer than this.
const MIN_SECRET_LENGTH = 6;

/** Remembers a secret so that every later `redact()` call removes it. */
export function registerSecret(secret: string | null | undefined): void {
  if (secret && secret.length >= MIN_SECRET_LENGTH) known.add(secret);
}

/** Secrets registered so far (count only; the values never leave this module). */
export function registeredSecretCount(): number {
  return known.size;
}

const KEY_PATTERNS: RegExp[] = [
  // OpenAI style keys: sk-..., sk-proj-..., and partially masked echoes like "sk-abc***xyz".
  /\bsk-[A-Za-z0-9_*-]{6,}/g,
  // Bearer tokens in echoed headers.
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{6,}/gi,
  // key=... / api_key: ... / "apiKey":"..." in echoed configs and URLs.
  /\b((?:api[_-]?key|apikey|access[_-]?token|authorization)["']?\s*[:=]\s*["']?)[^\s"'&,}]{6,}/gi,
];

/** Returns `text` with every registered secret, plus any `extra` ones, and key-shaped tokens masked. */
export function redact(text: string, extra: ReadonlyArray<string | null | undefined> = []): string {
  let out = text;
  const secrets = [...known, ...extra.filter((s): s is string => !!s && s.length >= MIN_SECRET_LENGTH)];
  // Longest first so a key that contains another is removed whole.
  secrets.sort((a, b) => b.length - a.length);
  for (const s of secrets) out = out.split(s).join(REDACTED);
  out = out.replace(KEY_PATTERNS[0], REDACTED);
  out = out.replace(KEY_PATTERNS[1], `$1${REDACTED}`);
  out = out.replace(KEY_PATTERNS[2], `$1${REDACTED}`);
  return out;
}

/** Redacts every string inside a JSON-like value (objects, arrays), returning a copy. */
export function redactDeep<T>(value: T, extra: ReadonlyArray<string | null | undefined> = []): T {
  if (typeof value === 'string') return redact(value, extra) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, extra)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, extra);
    return out as T;
  }
  return value;
}
