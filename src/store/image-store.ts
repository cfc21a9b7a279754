import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, sha256 } from '../core/index.ts';
import { writeFileAtomic } from './atomic-write.ts';

const HASH_RE = /^[0-9a-f]{64}$/;

/** True when `hash` looks like a content address (64 lowercase hex digits). */
export function isImageHash(hash: string): boolean {
  return HASH_RE.test(hash);
}

/**
 * Content-addressed image files: `images/<hash[0:2]>/<hash>.jpg`. An image is written once; a
 * second put of the same bytes is a cheap existence check. Writes are atomic, so two processes
 * putting the same image at once both succeed and leave one intact file.
 */
export class ImageStore {
  constructor(readonly root: string) {}

  /** Stores bytes (JPEG screenshots, by convention) and returns their sha256 hex. */
  put(bytes: Uint8Array): string {
    const hash = sha256(bytes);
    const path = this.path(hash);
    if (!existsSync(path)) {
      mkdirSync(join(this.root, hash.slice(0, 2)), { recursive: true });
      writeFileAtomic(path, bytes);
    }
    return hash;
  }

  /** Where the image with this hash lives (whether or not it exists yet). */
  path(hash: string): string {
    if (!isImageHash(hash))
      throw new InputError(`not an image hash: ${JSON.stringify(hash)}`, { field: 'hash' });
    return join(this.root, hash.slice(0, 2), `${hash}.jpg`);
  }

  has(hash: string): boolean {
    return isImageHash(hash) && existsSync(this.path(hash));
  }

  read(hash: string): Buffer {
    const path = this.path(hash);
    if (!existsSync(path)) throw new InputError(`image ${hash} is not in the image store`, { file: path });
    return readFileSync(path);
  }
}
