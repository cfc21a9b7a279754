import { createHash, randomBytes } from 'node:crypto';

/** Hex SHA-256 of bytes or a string; the content address of images and cache entries. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A short random id with a readable prefix, e.g. `traj_3f9a1c2b7d10`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A deterministic id from parts, so re-running a stage names the same record the same way. */
export function stableId(prefix: string, ...parts: Array<string | number>): string {
  return `${prefix}_${sha256(parts.join('\u0000')).slice(0, 12)}`;
}
