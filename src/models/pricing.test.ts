import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../core/index.ts';
import { costOf, DEFAULT_PRICES, findPrice, loadPriceTable } from './pricing.ts';

describe('pricing', () => {
  it('matches exact names, dated snapshots and router prefixes, longest first', () => {
    expect(findPrice('gpt-4o')).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(findPrice('gpt-4o-2024-08-06')).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(findPrice('gpt-4o-mini-2024-07-18')).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(findPrice('openai/gpt-4.1-mini')).toBe(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(findPrice('Qwen/Qwen2.5-VL-7B-Instruct')).toBeNull();
  });
  it('computes USD per 1M tokens, with cached prompt tokens at their own price', () => {
    expect(costOf('gpt-4o', { promptTokens: 1_000_000, completionTokens: 1_000_000 }).costUsd).toBeCloseTo(
      12.5,
      9,
    );
    expect(
      costOf('gpt-4o', { promptTokens: 1_000_000, completionTokens: 0, cachedPromptTokens: 500_000 }).costUsd,
    ).toBeCloseTo(0.5 * 2.5 + 0.5 * 1.25, 9);
    expect(costOf('my-vllm-model', { promptTokens: 10, completionTokens: 10 })).toEqual({
      costUsd: 0,
      priced: false,
    });
  });
  it('loads an override file and names the bad field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmsweb-prices-'));
    try {
      const good = join(dir, 'p.json');
      writeFileSync(
        good,
        JSON.stringify({ 'my-vllm-model': { input: 0.1, output: 0.2 }, 'gpt-4o': { input: 1, output: 1 } }),
      );
      const t = loadPriceTable(good);
      expect(t['my-vllm-model']).toEqual({ input: 0.1, output: 0.2 });
      expect(t['gpt-4o']).toEqual({ input: 1, output: 1 });
      expect(t['o4-mini']).toBe(DEFAULT_PRICES['o4-mini']);
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ m: { input: -1, output: 'x' } }));
      expect(() => loadPriceTable(bad)).toThrow(InputError);
      expect(() => loadPriceTable(bad)).toThrow(/bad\.json.*m\.input/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
