import { describe, expect, it } from 'vitest';
import { REDACTED, redact, redactDeep, registerSecret } from './redact.ts';

describe('redact', () => {
  it('removes registered and extra secrets exactly', () => {
    registerSecret('my-custom-token-abc123');
    expect(redact('token my-custom-token-abc123 end')).toBe(`token ${REDACTED} end`);
    expect(redact('x local-key-zzz999 y', ['local-key-zzz999'])).toBe(`x ${REDACTED} y`);
  });
  it('masks key-shaped tokens it was never told about', () => {
    expect(redact('Incorrect API key provided: sk-proj-AbC123xyz***wxyz.')).not.toMatch(/AbC123/);
    expect(redact('Authorization: Bearer abcdef.ghijkl')).not.toMatch(/abcdef/);
    expect(redact('https://h/v1?api_key=hunter2hunter2&x=1')).toBe(`https://h/v1?api_key=${REDACTED}&x=1`);
    expect(redact('{"apiKey":"zzzzzzzzzz"}')).not.toMatch(/zzzzzzzzzz/);
  });
  it('leaves ordinary text alone and ignores short secrets', () => {
    registerSecret('abc');
    expect(redact('the cheapest flight costs $182 (abc)')).toBe('the cheapest flight costs $182 (abc)');
  });
  it('redacts every string inside objects and arrays', () => {
    const out = redactDeep({ a: ['sk-aaaaaaaaaaaa', 1], b: { c: 'Bearer qqqqqqqqqq' }, d: null });
    expect(JSON.stringify(out)).not.toMatch(/aaaaaaaa|qqqqqqqq/);
    expect(out.a[1]).toBe(1);
    expect(out.d).toBeNull();
  });
});
