import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/**
 * Appends JSON rows to a temp file and moves it into place on `commit`, so an interrupted
 * export never leaves a truncated JSONL file that a trainer would half-read.
 */
export class JsonlWriter {
  private readonly tmp: string;
  private fd: number | null;
  count = 0;

  constructor(readonly path: string) {
    this.tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.fd = openSync(this.tmp, 'w');
  }

  write(row: unknown): void {
    if (this.fd === null) throw new Error(`JsonlWriter for ${this.path} is closed`);
    writeSync(this.fd, `${JSON.stringify(row)}\n`);
    this.count++;
  }

  commit(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    renameSync(this.tmp, this.path);
  }

  abort(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.tmp, { force: true });
  }
}
