import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../core/index.ts';
import { redactDeep } from './redact.ts';

/**
 * An opt-in response cache on disk, one JSON file per request hash (`<dir>/<h[0:2]>/<h>.json`).
 * Keys are hashes of the request body plus the endpoint URL, never of a key; values are redacted
 * before they are written.
 */
export class DiskCache {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** The cache key of a request: SHA-256 of its canonical JSON. */
  static keyOf(request: unknown): string {
    return sha256(canonicalJson(request));
  }

  private pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The stored value, or undefined on a miss or an unreadable entry (treated as a miss). */
  get<T>(key: string): T | undefined {
    try {
      return JSON.parse(readFileSync(this.pathOf(key), 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  /** Stores a value; written to a temp file then renamed so readers never see half an entry. */
  set(key: string, value: unknown): void {
    const file = this.pathOf(key);
    mkdirSync(join(this.dir, key.slice(0, 2)), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(redactDeep(value)));
    renameSync(tmp, file);
  }
}

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}
