import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../core/index.ts';

/** Price of one model in USD per 1M tokens. */
export const ModelPrice = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** Price of prompt tokens served from the provider's prompt cache, when it differs. */
  cachedInput: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

export const PriceTable = z.record(z.string().min(1), ModelPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * List prices (USD per 1M tokens) of a few well-known models, as published when this table was
 * written. They change; pass a JSON file (`loadPriceTable`) to override or extend them. Models not
 * in the table cost 0 and are reported as unpriced, which is right for self-hosted servers.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
};

/**
 * Reads a price table from a JSON file (`{"model": {"input": 2.5, "output": 10}}`) and merges it
 * over `base` (the defaults unless given).
 */
export function loadPriceTable(file: string, base: PriceTable = DEFAULT_PRICES): PriceTable {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`cannot read price table: ${(e as Error).message}`, { file }, e);
  }
  const r = PriceTable.safeParse(raw);
  if (!r.success) {
    throw new InputError(`invalid price table: ${describeZodIssues(r.error.issues)}`, {
      file,
      field: r.error.issues[0]?.path.join('.'),
    });
  }
  return { ...base, ...r.data };
}

/**
 * Finds the price of a model: an exact entry, else the longest entry that the name starts with
 * followed by `-` (so dated snapshots such as `gpt-4o-2024-08-06` use `gpt-4o`), also trying the
 * last path segment of router names like `openai/gpt-4o`.
 */
export function findPrice(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | null {
  const names = [model, model.split('/').pop() ?? model];
  for (const name of names) {
    if (table[name]) return table[name];
  }
  let best: string | null = null;
  for (const name of names) {
    for (const key of Object.keys(table)) {
      if (name.startsWith(`${key}-`) && (best === null || key.length > best.length)) best = key;
    }
  }
  return best ? table[best] : null;
}

/** USD cost of one call's tokens, or 0 with `priced: false` when the model has no price. */
export function costOf(
  model: string,
  tokens: { promptTokens: number; completionTokens: number; cachedPromptTokens?: number },
  table: PriceTable = DEFAULT_PRICES,
): { costUsd: number; priced: boolean } {
  const p = findPrice(model, table);
  if (!p) return { costUsd: 0, priced: false };
  const cached = Math.min(tokens.cachedPromptTokens ?? 0, tokens.promptTokens);
  const fresh = tokens.promptTokens - cached;
  const usd =
    (fresh * p.input + cached * (p.cachedInput ?? p.input) + tokens.completionTokens * p.output) / 1_000_000;
  return { costUsd: usd, priced: true };
}
