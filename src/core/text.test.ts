import { describe, expect, it } from 'vitest';
import { esc, slug } from './text.ts';

describe('esc', () => {
  it('escapes the five HTML-special characters, and renders null and undefined as nothing', () => {
    expect(esc(`<a href="x?a=1&b='2'">`)).toBe('&lt;a href=&quot;x?a=1&amp;b=&#39;2&#39;&quot;&gt;');
    expect(esc(null)).toBe('');
    expect(esc(undefined)).toBe('');
    expect(esc(42)).toBe('42');
  });
});

describe('slug', () => {
  it('lowercases and joins runs of anything else with single dashes, none at either end', () => {
    expect(slug('Paws & Claws Vet')).toBe('paws-claws-vet');
    expect(slug("  Grandma's Apple Pie! ")).toBe('grandma-s-apple-pie');
    expect(slug('Crème brûlée')).toBe('cr-me-br-l-e');
    expect(slug('---')).toBe('');
  });
});
