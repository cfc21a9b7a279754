/**
 * What the lm benches share: reading an lm export's rows (`rmsweb export sft --format lm`) with a
 * clear error naming the file and line, and reading a student's reply as LmAgent reads it.
 */

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseLmAction } from '../src/agent/lm-prompt.ts';
import { type Action, describeZodIssues, InputError } from '../src/core/index.ts';

const Row = z.object({
  prompt: z.string().min(1),
  completion: z.string().optional(),
  id: z.string().optional(),
});
const RowWithCompletion = Row.extend({ completion: z.string().min(1) });
export type LmExportRow = z.infer<typeof Row>;

/** The rows of a JSONL file, each checked against `schema`; a bad one is an error naming its line. */
export function readJsonlRows<T>(file: string, schema: z.ZodType<T>, what: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => l.trim())
    .map(({ l, i }) => {
      const r = schema.safeParse(JSON.parse(l));
      if (!r.success)
        throw new InputError(`not ${what}: ${describeZodIssues(r.error.issues)}`, { file, line: i + 1 });
      return r.data;
    });
}

/** The rows of an lm export; `completion: true` requires each to hold the teacher's reply. */
export function readLmRows(file: string, o: { completion: true }): Array<z.infer<typeof RowWithCompletion>>;
export function readLmRows(file: string, o?: { completion?: boolean }): LmExportRow[];
export function readLmRows(file: string, o: { completion?: boolean } = {}): LmExportRow[] {
  return readJsonlRows<LmExportRow>(file, o.completion ? RowWithCompletion : Row, 'an lm row');
}

/** The action a reply holds, or null where LmAgent would find none and end the episode. */
export function replyAction(text: string): Action | null {
  try {
    return parseLmAction(text);
  } catch (e) {
    if (e instanceof InputError) return null;
    throw e;
  }
}
