/**
 * What serve-model accepts as a `response_format` JSON Schema and what it does to one before the
 * grammar sees it. The schema is checked before a request queues for the model. node-llama-cpp turns a schema into a grammar synchronously (llama.cpp's parser is
 * superlinear in the alternatives of a rule: 20,000 enum values take seconds, 200,000 minutes), so
 * the only way to keep a schema from holding the model is to bound it; and it reads what it does
 * not know as something else (an unknown `type` as `null`, a missing `$ref` target as any value),
 * so a schema it would misread is refused here rather than answered wrongly.
 */

/** Bounds on a response schema; each has a `serve-model` option to raise it. */
export interface SchemaLimits {
  /** Bytes of the schema's JSON. */
  maxBytes: number;
  /** Nested subschemas (and nested values inside `enum`/`const`/other keywords); the root is 1. */
  maxDepth: number;
  /** Values of one `enum`, and alternatives of one `anyOf`/`oneOf`. */
  maxEnum: number;
}

/** Ample for any schema an agent asks for (rmsweb's own agent schema: 2.7 KB, depth 7). */
export const DEFAULT_SCHEMA_LIMITS: SchemaLimits = { maxBytes: 65_536, maxDepth: 32, maxEnum: 1024 };

/** Why a schema is refused: `code` for clients, `message` for people. */
export interface SchemaProblem {
  code: 'schema_too_large' | 'schema_too_deep' | 'schema_enum_too_long' | 'invalid_schema';
  message: string;
}

/** String formats node-llama-cpp has a grammar for; it would allow only `""` for any other. */
export const GRAMMAR_FORMATS: ReadonlySet<string> = new Set(['date', 'time', 'date-time']);

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
/** Keywords whose value is one subschema. */
const ONE_SCHEMA = new Set([
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalItems',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP = new Set(['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas']);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Depth of a schema document: one per nested subschema, and one per object or array nested inside
 * a keyword's value (the value's own container does not count, so `enum: ["a"]` adds nothing).
 * Iterative, since a 64 KB body can nest tens of thousands of levels.
 */
export function schemaDepth(schema: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number, 'schema' | 'map' | 'list' | 'data']> = [[schema, 1, 'schema']];
  while (stack.length > 0) {
    const [node, depth, role] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (role === 'schema' || role === 'data') max = Math.max(max, depth);
    if (role === 'map' || role === 'list') {
      for (const v of Object.values(node)) stack.push([v, depth, 'schema']);
    } else if (role === 'data' || Array.isArray(node)) {
      for (const v of Object.values(node)) stack.push([v, depth + 1, 'data']);
    } else {
      for (const [k, v] of Object.entries(node)) {
        if (ONE_SCHEMA.has(k)) stack.push([v, depth + 1, 'schema']);
        else if (SCHEMA_MAP.has(k) && isObject(v)) stack.push([v, depth + 1, 'map']);
        else if (SCHEMA_LIST.has(k) && Array.isArray(v)) stack.push([v, depth + 1, 'list']);
        // A keyword's own value is at the schema's level; what nests inside it goes deeper.
        else if (typeof v === 'object' && v !== null)
          for (const x of Object.values(v)) stack.push([x, depth + 1, 'data']);
      }
    }
  }
  return max;
}

/**
 * Checks a response schema against the limits, then its structure where the grammar depends on it.
 * Returns the first problem, or null when the schema can be compiled as written.
 */
export function checkResponseSchema(schema: unknown, limits: SchemaLimits): SchemaProblem | null {
  // Depth first: it also keeps the recursive walks below (and JSON.stringify) off deep documents.
  const depth = schemaDepth(schema);
  if (depth > limits.maxDepth)
    return {
      code: 'schema_too_deep',
      message: `schema depth ${depth} exceeds ${limits.maxDepth} (serve-model --max-schema-depth raises it)`,
    };
  try {
    // Before the size: a long enum is named as such, though it is usually too large as well.
    checkNode(schema, '#', new Set(), limits);
  } catch (e) {
    if (e instanceof Refusal) return e.problem;
    throw e;
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > limits.maxBytes)
    return {
      code: 'schema_too_large',
      message: `schema size ${bytes} bytes exceeds ${limits.maxBytes} (serve-model --max-schema-bytes raises it)`,
    };
  return null;
}

class Refusal extends Error {
  constructor(readonly problem: SchemaProblem) {
    super(problem.message);
  }
}

function invalid(message: string): never {
  throw new Refusal({ code: 'invalid_schema', message: `invalid response schema: ${message}` });
}

/** Paths as JSON pointers under `#`, e.g. `#/properties/a`; the root is `#/`. */
const at = (path: string) => (path === '#' ? '#/' : path);

function checkNode(node: unknown, path: string, defs: ReadonlySet<string>, limits: SchemaLimits): void {
  if (typeof node === 'boolean')
    invalid(`boolean schema at ${at(path)} is not supported by the grammar; write a schema object`);
  if (!isObject(node)) invalid(`schema at ${at(path)} must be an object`);
  // Definitions are in scope for the node that declares them and everything under it.
  let scope = defs;
  for (const key of ['$defs', 'definitions'] as const) {
    const d = node[key];
    if (d === undefined) continue;
    if (!isObject(d)) invalid(`${key} at ${at(path)} must be an object of schemas`);
    scope = new Set([...scope, ...Object.keys(d).map((n) => `${key}/${n}`)]);
  }
  for (const key of ['$defs', 'definitions'] as const) {
    const d = node[key];
    if (isObject(d))
      for (const [n, s] of Object.entries(d)) checkNode(s, `${path}/${key}/${n}`, scope, limits);
  }
  if ('$ref' in node) {
    const ref = node.$ref;
    const target = typeof ref === 'string' ? /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref) : null;
    if (!target || !scope.has(`${target[1]}/${target[2]}`))
      invalid(
        `$ref ${JSON.stringify(ref)} at ${at(path)} points to no definition in scope ` +
          '(only "#/$defs/NAME" or "#/definitions/NAME" declared on this schema or above it)',
      );
    // The grammar reads nothing else beside a $ref.
    return;
  }
  const type = node.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (types.length === 0) invalid(`type at ${at(path)} is an empty list`);
    for (const t of types)
      if (typeof t !== 'string' || !TYPES.has(t))
        invalid(
          `unknown type ${JSON.stringify(t)} at ${at(path)} (expected one of ${[...TYPES].join(', ')})`,
        );
  }
  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum) || node.enum.length === 0)
      invalid(`enum at ${at(path)} must be a non-empty array`);
    if (node.enum.length > limits.maxEnum)
      throw new Refusal({
        code: 'schema_enum_too_long',
        message: `schema enum length ${node.enum.length} exceeds ${limits.maxEnum} at ${at(path)} (serve-model --max-enum raises it)`,
      });
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = node[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || (key !== 'prefixItems' && list.length === 0))
      invalid(`${key} at ${at(path)} must be a non-empty array of schemas`);
    if (key === 'allOf' && list.length > 1)
      invalid(`allOf at ${at(path)} has ${list.length} schemas; the grammar takes one (merge them)`);
    if (list.length > limits.maxEnum)
      throw new Refusal({
        code: 'schema_enum_too_long',
        message: `schema ${key} length ${list.length} exceeds ${limits.maxEnum} at ${at(path)} (serve-model --max-enum raises it)`,
      });
    for (const [i, s] of list.entries()) checkNode(s, `${path}/${key}/${i}`, scope, limits);
  }
  if (node.properties !== undefined) {
    if (!isObject(node.properties)) invalid(`properties at ${at(path)} must be an object of schemas`);
    for (const [n, s] of Object.entries(node.properties))
      checkNode(s, `${path}/properties/${n}`, scope, limits);
  }
  if (node.required !== undefined) {
    if (!Array.isArray(node.required) || node.required.some((r) => typeof r !== 'string'))
      invalid(`required at ${at(path)} must be an array of property names`);
  }
  const extra = node.additionalProperties;
  if (extra !== undefined && typeof extra !== 'boolean')
    checkNode(extra, `${path}/additionalProperties`, scope, limits);
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) invalid(`items at ${at(path)} is a list; write prefixItems for a tuple`);
    checkNode(node.items, `${path}/items`, scope, limits);
  }
  for (const key of COUNTS) {
    const v = node[key];
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 0))
      invalid(`${key} at ${at(path)} must be a non-negative integer`);
  }
  if (node.format !== undefined && typeof node.format !== 'string')
    invalid(`format at ${at(path)} must be a string`);
}

/**
 * Caps `maxLength` of every free string in a JSON Schema at `cap` characters. A small model held
 * to a grammar can loop inside a string until the token budget runs out; a capped string must close,
 * and the reply still satisfies the caller's schema.
 */
export function capStringLengths(schema: unknown, cap: number): unknown {
  if (Array.isArray(schema)) return schema.map((s) => capStringLengths(s, cap));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    // Property names and const/enum values are data, not subschemas.
    out[k] =
      k === 'enum' || k === 'const' || k === 'required'
        ? v
        : (k === 'properties' || k === '$defs' || k === 'definitions') && v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v as Record<string, unknown>).map(([n, s]) => [n, capStringLengths(s, cap)]),
            )
          : capStringLengths(v, cap);
  }
  const o = schema as Record<string, unknown>;
  const isString = o.type === 'string' || (Array.isArray(o.type) && o.type.includes('string'));
  // A format with a grammar of its own has a fixed length; any other is a free string to the grammar.
  const fixed = typeof o.format === 'string' && GRAMMAR_FORMATS.has(o.format);
  if (isString && o.enum === undefined && o.const === undefined && !fixed) {
    out.maxLength = typeof o.maxLength === 'number' ? Math.min(o.maxLength, cap) : cap;
  }
  return out;
}
