import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentOutputRequestSchema } from '../../agent/llm-agent.ts';
import { RubricJudgement } from '../../judge/rubric-verifier.ts';
import { LlmTag } from '../../mine/llm-tagger.ts';
import { RewriteReply } from '../../models/task-rewriter.ts';
import { toGbnfJsonSchema } from './llama-backend.ts';
import {
  capStringLengths,
  checkResponseSchema,
  DEFAULT_SCHEMA_LIMITS,
  schemaDepth,
} from './response-schema.ts';

const check = (schema: unknown) => checkResponseSchema(schema, DEFAULT_SCHEMA_LIMITS);

describe('checkResponseSchema', () => {
  it("passes rmsweb's own agent schema well inside the limits", () => {
    const schema = agentOutputRequestSchema();
    expect(check(schema)).toBeNull();
    expect(schemaDepth(schema)).toBeLessThanOrEqual(8);
  });

  it('passes the schema of every rmsweb role that asks for one', () => {
    // As generateObject sends them (the reflector's is module-private; real-model.test.ts serves it).
    for (const [name, schema] of Object.entries({ RewriteReply, LlmTag, RubricJudgement })) {
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
      expect(check(json), name).toBeNull();
    }
  });

  it('counts subschemas and values nested inside keywords, not the keyword containers', () => {
    expect(schemaDepth({ type: 'string', enum: ['a', 'b'] })).toBe(1);
    expect(schemaDepth({ type: 'object', properties: { a: { type: 'string' } } })).toBe(2);
    expect(schemaDepth({ anyOf: [{ type: 'array', items: { type: 'null' } }] })).toBe(3);
    expect(schemaDepth({ const: { a: { b: 1 } } })).toBe(2);
    // Deep enough to overflow a recursive walk; counted all the same.
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(schemaDepth({ const: deep })).toBe(50_000);
    expect(check({ const: deep })?.message).toMatch(/schema depth 50000 exceeds 32/);
  });

  it('bounds anyOf and oneOf like enum, and names each limit with its option', () => {
    const many = Array.from({ length: 1025 }, (_, i) => ({ const: i }));
    expect(check({ anyOf: many })).toMatchObject({
      code: 'schema_enum_too_long',
      message: expect.stringMatching(/anyOf length 1025 exceeds 1024 at #\/ \(serve-model --max-enum/),
    });
    expect(checkResponseSchema({ anyOf: many }, { ...DEFAULT_SCHEMA_LIMITS, maxEnum: 2000 })).toBeNull();
  });

  it('refuses what the grammar would misread, naming where', () => {
    const refused: Array<[unknown, RegExp]> = [
      [{ type: ['string', 'text'] }, /unknown type "text" at #\//],
      [{ type: 'object', properties: { a: true } }, /boolean schema at #\/properties\/a/],
      [{ allOf: [{ type: 'string' }, { maxLength: 3 }] }, /allOf at #\/ has 2 schemas/],
      [{ type: 'array', items: [{ type: 'string' }] }, /items at #\/ is a list; write prefixItems/],
      [{ type: 'string', enum: [] }, /enum at #\/ must be a non-empty array/],
      [{ type: 'string', maxLength: -1 }, /maxLength at #\/ must be a non-negative integer/],
      // A definition is in scope where it is declared and below, not beside it.
      [
        { type: 'object', properties: { a: { $defs: { x: { type: 'null' } } }, b: { $ref: '#/$defs/x' } } },
        /\$ref "#\/\$defs\/x" at #\/properties\/b points to no definition/,
      ],
      [{ $ref: 'https://example.com/s.json' }, /\$ref "https:\/\/example.com\/s.json" at #\//],
    ];
    for (const [schema, message] of refused) {
      const p = check(schema);
      expect(p?.code, JSON.stringify(schema)).toBe('invalid_schema');
      expect(p?.message).toMatch(message);
    }
  });

  it('accepts definitions under either name, recursive references and additionalProperties', () => {
    expect(
      check({
        definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } } },
        $defs: { leaf: { type: 'integer' } },
        type: 'object',
        properties: { head: { $ref: '#/definitions/node' }, n: { $ref: '#/$defs/leaf' } },
        additionalProperties: { type: ['string', 'null'] },
      }),
    ).toBeNull();
  });
});

describe('schema rewriting for a format the grammar lacks', () => {
  it('leaves date formats alone and treats any other format as a free, capped string', () => {
    const schema = {
      type: 'object',
      properties: { mail: { type: 'string', format: 'email' }, day: { type: 'string', format: 'date' } },
      definitions: { x: { type: 'string' } },
      required: ['mail'],
    };
    const capped = capStringLengths(schema, 50) as { properties: Record<string, Record<string, unknown>> };
    expect(capped.properties.mail.maxLength).toBe(50);
    expect(capped.properties.day.maxLength).toBeUndefined();
    expect(
      toGbnfJsonSchema({ ...schema, properties: { ...schema.properties, r: { $ref: '#/definitions/x' } } }),
    ).toEqual({
      type: 'object',
      properties: {
        mail: { type: 'string' },
        day: { type: 'string', format: 'date' },
        r: { $ref: '#/$defs/x' },
      },
      $defs: { x: { type: 'string' } },
      required: ['mail'],
    });
  });
});
