import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { describeZodIssues, InputError } from './errors.ts';

/**
 * Reads a JSON file and validates it against `schema`. Both failures are input errors naming the
 * file: "cannot read <what>" for unreadable or malformed JSON, "not <what>" with the failing fields.
 */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`cannot read ${what}: ${(e as Error).message}`, { file });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new InputError(`not ${what}: ${describeZodIssues(parsed.error.issues)}`, { file });
  return parsed.data;
}
