/**
 * Reply budgets sized from a JSON Schema. A server that enforces `response_format` with a grammar
 * (`rmsweb serve-model`, vLLM, llama.cpp) keeps a reply inside the schema's bounds (maxLength,
 * maxItems, enum), so a schema whose every part is bounded has a longest possible reply. A
 * `max_tokens` below that length lets the model be cut off mid-JSON while doing nothing the schema
 * forbids, and the reply then fails to parse for a reason that is the caller's, not the model's.
 */

type Schema = Record<string, unknown>;

/** How to count the parts of a schema a grammar leaves unbounded. */
export interface SchemaBudgetOptions {
  /**
   * Count each number as this many characters instead of calling the schema unbounded. A grammar
   * puts no bound on digits, so this is the caller's assumption: a reply that runs past it inside
   * a number is cut off, and fails to parse for a reason that is then the caller's choice.
   */
  numberChars?: number;
}

/**
 * Whitespace a grammar allows at each separator: a newline plus indentation of four spaces per
 * nesting level (llama.cpp's and node-llama-cpp's JSON grammars; tab indentation is shorter).
 */
const wsAt = (depth: number) => 1 + 4 * depth;

/**
 * The longest JSON text, in characters, that a reply satisfying `schema` can be when its strings
 * are written without escape sequences; null when some part is unbounded (a string without
 * maxLength, an array without maxItems, a number unless `opts.numberChars` says how long, free
 * additional properties, a recursive $ref).
 * Every listed property counts as present, since grammars make them all required.
 */
export function maxJsonChars(schema: Schema, opts: SchemaBudgetOptions = {}): number | null {
  const defs = {
    ...((schema.$defs as Record<string, Schema>) ?? {}),
    ...((schema.definitions as Record<string, Schema>) ?? {}),
  };
  const walk = (s: Schema, depth: number, seen: ReadonlySet<string>): number | null => {
    if (typeof s.$ref === 'string') {
      const name = s.$ref.replace(/^#\/(\$defs|definitions)\//, '');
      const target = defs[name];
      if (!target || seen.has(name)) return null;
      return walk(target, depth, new Set([...seen, name]));
    }
    if ('const' in s) return JSON.stringify(s.const).length;
    if (Array.isArray(s.enum)) return Math.max(...s.enum.map((v) => JSON.stringify(v).length));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = s[key];
      if (Array.isArray(branches)) {
        let most = 0;
        for (const b of branches) {
          const n = walk(b as Schema, depth, seen);
          if (n === null) return null;
          most = Math.max(most, n);
        }
        return most;
      }
    }
    if (Array.isArray(s.allOf) && s.allOf.length === 1) return walk(s.allOf[0] as Schema, depth, seen);
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    let most = 0;
    for (const type of types) {
      let n: number | null;
      switch (type) {
        case 'string':
          // Date and time formats are short and fixed; everything else needs a maxLength.
          n = typeof s.format === 'string' ? 40 : typeof s.maxLength === 'number' ? 2 + s.maxLength : null;
          break;
        case 'boolean':
          n = 5;
          break;
        case 'null':
          n = 4;
          break;
        case 'array': {
          const items = s.items as Schema | undefined;
          const max = s.maxItems;
          if (typeof max !== 'number' || !items) {
            n = max === 0 ? 2 : null;
            break;
          }
          const item = walk(items, depth + 1, seen);
          // `[` item `,` ... `]`, whitespace before each item and before `]`.
          n = item === null ? null : 2 + max * item + Math.max(0, max - 1) + (max + 1) * wsAt(depth + 1);
          break;
        }
        case 'object': {
          if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
            n = null;
            break;
          }
          const props = Object.entries((s.properties as Record<string, Schema>) ?? {});
          // `{` `"key":` space value `,` ... `}`, whitespace before each key and before `}`.
          let total = 2 + Math.max(0, props.length - 1) + (props.length + 1) * wsAt(depth + 1);
          for (const [key, p] of props) {
            const v = walk(p, depth + 1, seen);
            if (v === null) {
              total = Number.NaN;
              break;
            }
            total += JSON.stringify(key).length + 2 + v;
          }
          n = Number.isNaN(total) ? null : total;
          break;
        }
        case 'number':
        case 'integer':
          // A grammar puts no bound on their digits; only the caller can.
          n = opts.numberChars ?? null;
          break;
        default:
          n = null;
      }
      if (n === null) return null;
      most = Math.max(most, n);
    }
    return most;
  };
  return walk(schema, 0, new Set());
}

/**
 * A `max_tokens` that a grammar-constrained reply to `schema` cannot outgrow: one token per
 * character of the longest reply (`maxJsonChars`), plus a few for the end of turn. Tokenizers put
 * one to several characters in a token, so this is a ceiling, rarely approached; only a reply of
 * escape sequences or characters split into byte tokens could pass it. Throws when the schema is
 * unbounded, naming the fix.
 */
export function maxTokensForSchema(schema: Schema, what: string, opts: SchemaBudgetOptions = {}): number {
  const chars = maxJsonChars(schema, opts);
  if (chars === null)
    throw new Error(
      `${what}: its JSON schema is unbounded (a string without maxLength, an array without maxItems, or a number), so no max_tokens is sure to fit a reply`,
    );
  return chars + 8;
}
