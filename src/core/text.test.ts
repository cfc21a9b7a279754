import { describe, expect, it } from 'vitest';
import { esc, fixed, slug } from './text.ts';

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

describe('fixed', () => {
  it('prints a value that rounds to zero as zero, never with a minus sign', () => {
    expect(fixed(-0.00001, 4)).toBe('0.0000');
    expect(fixed(-0, 2)).toBe('0.00');
    expect(fixed(-0.00012, 4)).toBe('-0.0001');
    expect(fixed(0.12345, 3)).toBe('0.123');
  });
});
