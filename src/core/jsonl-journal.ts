import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from './errors.ts';

/**
 * Append-only JSONL journals (one record a line, written as work finishes so a rerun resumes).
 * A process killed mid-write leaves a torn last line with no newline; appending after it would glue
 * the next record onto it and turn a harmless tail into a bad line in the middle of the file. So
 * opening a journal cuts the file back to its last complete line first, and says on stderr how
 * many bytes it dropped: those records were never finished, and the rerun redoes them.
 */

/** One complete line of a journal, parsed, with its 1-based line number. */
export interface JournalRecord {
  line: number;
  value: unknown;
}

/** An opened journal: the records it held, and a way to add one. */
export interface JsonlJournal {
  readonly path: string;
  readonly records: readonly JournalRecord[];
  /** Bytes of a torn last line cut off on opening (0 when the file ended cleanly). */
  readonly droppedBytes: number;
  /** Appends one record as a JSON line. */
  append(value: unknown): void;
}

/**
 * Cuts `path` back to the end of its last complete line when its last byte is not a newline, and
 * warns once on stderr. Returns the number of bytes dropped (0 for a missing or clean file).
 */
export function repairTornTail(path: string, warn: (message: string) => void = stderrWarn): number {
  if (!existsSync(path)) return 0;
  const bytes = readFileSync(path);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return 0;
  const keep = bytes.lastIndexOf(0x0a) + 1;
  truncateSync(path, keep);
  const dropped = bytes.length - keep;
  warn(
    `${path}: dropped ${dropped} bytes of a torn last line (a write was interrupted); rerunning redoes it`,
  );
  return dropped;
}

function stderrWarn(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}

/**
 * Opens (creating its folder) an append-only JSONL journal: repairs a torn tail, then parses every
 * complete line. A line that is not JSON is an input error naming the file and line (`what` says
 * which journal); the caller validates each record's shape.
 */
export function openJsonlJournal(
  path: string,
  what: string,
  o: { warn?: (message: string) => void } = {},
): JsonlJournal {
  mkdirSync(dirname(path), { recursive: true });
  const droppedBytes = repairTornTail(path, o.warn);
  const records: JournalRecord[] = [];
  if (existsSync(path)) {
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        if (!text.trim()) return;
        try {
          records.push({ line: i + 1, value: JSON.parse(text) });
        } catch {
          throw new InputError(`${what} line is not JSON`, { file: path, line: i + 1 });
        }
      });
  }
  return {
    path,
    records,
    droppedBytes,
    append: (value) => appendFileSync(path, `${JSON.stringify(value)}\n`),
  };
}
