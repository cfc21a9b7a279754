import { z } from 'zod';

export const REFLECTION_SCHEMA_VERSION = 1;

/**
 * A structured rule inside a reflection note. Agents that understand structure (the heuristic
 * teacher) act on it; LLM agents read the text.
 * - kind: which behaviour the rule is about.
 * - target: a text pattern (element name, option, URL fragment) the rule applies to.
 * - value: an argument (text to type, sort order, filter value).
 */
export const ReflectionRule = z.object({
  kind: z.enum([
    'click',
    'input',
    'select',
    'navigate',
    'scroll',
    'done',
    'sort',
    'filter',
    'page',
    'dismiss',
    'wait',
    'any',
  ]),
  target: z.string().optional(),
  value: z.string().optional(),
  why: z.string().optional(),
});
export type ReflectionRule = z.infer<typeof ReflectionRule>;

/** A short note distilled from a failed attempt, injected into every observation of the next one. */
export const Reflection = z.object({
  schemaVersion: z.literal(REFLECTION_SCHEMA_VERSION).default(REFLECTION_SCHEMA_VERSION),
  id: z.string(),
  taskId: z.string(),
  /** The round whose failure this reflects on. */
  round: z.number().int().nonnegative(),
  fromTrajectoryId: z.string(),
  text: z.string().min(1),
  avoid: z.array(ReflectionRule).default([]),
  prefer: z.array(ReflectionRule).default([]),
  source: z.string(),
  createdAt: z.string(),
});
export type Reflection = z.infer<typeof Reflection>;

const RULES_MARK = '\nRULES: ';

/**
 * Renders a reflection as the note string injected into observations: the text, then a
 * machine-readable `RULES:` line that structured agents parse back with `parseNoteRules`.
 */
export function renderNote(r: Pick<Reflection, 'text' | 'avoid' | 'prefer'>): string {
  if (!r.avoid.length && !r.prefer.length) return r.text;
  return `${r.text}${RULES_MARK}${JSON.stringify({ avoid: r.avoid, prefer: r.prefer })}`;
}

/** Reads the structured rules back out of a note string (empty when the note has none). */
export function parseNoteRules(note: string): { avoid: ReflectionRule[]; prefer: ReflectionRule[] } {
  const at = note.indexOf(RULES_MARK);
  if (at < 0) return { avoid: [], prefer: [] };
  try {
    const raw = JSON.parse(note.slice(at + RULES_MARK.length));
    return {
      avoid: z
        .array(ReflectionRule)
        .catch([])
        .parse(raw.avoid ?? []),
      prefer: z
        .array(ReflectionRule)
        .catch([])
        .parse(raw.prefer ?? []),
    };
  } catch {
    return { avoid: [], prefer: [] };
  }
}
