import { existsSync, readFileSync } from 'node:fs';
import { CriticalState, describeZodIssues, InputError } from '../core/index.ts';

/**
 * Reads critical states from a JSONL file (one CriticalState per line; blank lines ignored).
 * A line that is not JSON or not a CriticalState stops the read with an error naming the file,
 * the 1-based line number and the failing field.
 */
export function readCriticalStates(file: string): Array<{ line: number; state: CriticalState }> {
  if (!existsSync(file)) throw new InputError('critical-state file does not exist', { file });
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Array<{ line: number; state: CriticalState }> = [];
  lines.forEach((text, i) => {
    const line = i + 1;
    if (!text.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new InputError(`not valid JSON (${(e as Error).message})`, { file, line }, e);
    }
    const r = CriticalState.safeParse(raw);
    if (!r.success) {
      throw new InputError(`not a critical state: ${describeZodIssues(r.error.issues)}`, {
        file,
        line,
        field: r.error.issues[0]?.path.join('.'),
      });
    }
    out.push({ line, state: r.data });
  });
  return out;
}
