import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { REFLECTION_MAX_TOKENS } from '../collect/llm-reflector.ts';
import { maxJsonChars, maxTokensForSchema } from './schema-budget.ts';

const toSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input' }) as Record<string, unknown>;

describe('maxJsonChars', () => {
  it('is the length of the longest compact reply plus the whitespace a grammar allows', () => {
    const schema = toSchema(z.object({ a: z.string().max(5), b: z.enum(['x', 'yyy']), c: z.boolean() }));
    const longest = JSON.stringify({ a: 'hello', b: 'yyy', c: false });
    // A space after each of the 3 colons, and 4 separators (before each key and before `}`) at
    // depth 1 of a newline and 4 spaces each.
    expect(maxJsonChars(schema)).toBe(longest.length + 3 + 4 * 5);
  });

  it('bounds arrays by maxItems and follows $ref and anyOf', () => {
    const item = z.object({ k: z.literal('v') });
    const schema = toSchema(z.object({ xs: z.array(z.union([item, z.null()])).max(2) }));
    const compact = JSON.stringify({ xs: [{ k: 'v' }, { k: 'v' }] }).length;
    // Spaces after 3 colons; separators: 2 in the outer object (newline + 4 spaces), 3 in the
    // array (newline + 8), 2 in each inner object (newline + 12).
    expect(maxJsonChars(schema)).toBe(compact + 3 + 2 * 5 + 3 * 9 + 2 * 2 * 13);
  });

  it('is null when a string, an array or a number is unbounded', () => {
    expect(maxJsonChars(toSchema(z.object({ s: z.string() })))).toBeNull();
    expect(maxJsonChars(toSchema(z.object({ xs: z.array(z.boolean()) })))).toBeNull();
    expect(maxJsonChars(toSchema(z.object({ n: z.number() })))).toBeNull();
    expect(maxJsonChars(toSchema(z.record(z.string(), z.boolean())))).toBeNull();
    expect(() => maxTokensForSchema(toSchema(z.object({ s: z.string() })), 'the reply')).toThrow(
      /the reply: its JSON schema is unbounded/,
    );
  });

  it('counts numbers as numberChars characters when the caller bounds them', () => {
    const schema = toSchema(z.object({ n: z.number(), i: z.int().nullable() }));
    const unbounded = maxJsonChars(schema);
    expect(unbounded).toBeNull();
    const bounded = maxJsonChars(schema, { numberChars: 6 });
    // Two keys, two spaces after colons, 3 separators of a newline and 4 spaces.
    expect(bounded).toBe(JSON.stringify({ n: 123456, i: 123456 }).length + 2 + 3 * 5);
    expect(maxTokensForSchema(schema, 'the reply', { numberChars: 6 })).toBe(bounded! + 8);
  });
});

describe('the reflector budget', () => {
  it('fits the longest reflection reply, one token per character', () => {
    const rule = { kind: 'navigate', target: 't'.repeat(60), value: 'v'.repeat(60) };
    const longest = JSON.stringify({
      text: 'x'.repeat(400),
      avoid: [rule, rule, rule],
      prefer: [rule, rule, rule],
    });
    expect(REFLECTION_MAX_TOKENS).toBeGreaterThan(longest.length);
    // A ceiling, not a blank cheque: under 1.5x the compact length.
    expect(REFLECTION_MAX_TOKENS).toBeLessThan(1.5 * longest.length);
  });
});
