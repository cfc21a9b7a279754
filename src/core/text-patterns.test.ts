import { describe, expect, it } from 'vitest';
import {
  DATE_VALUE_RE,
  DISMISS_LABEL_RE,
  DISMISS_WORD_RE,
  ISO_DATE_PARTS_RE,
  LONG_DATE_PARTS_RE,
  PHONE_RE,
  STARTS_WITH_MONTH_RE,
  US_DATE_PARTS_RE,
} from './text-patterns.ts';

describe('shared text patterns', () => {
  it('finds full dates in the three forms, as whole words', () => {
    const text = 'between 3/5/2027, 2027-03-05 and March 5, 2027 (not 13/5 or 20270305)';
    expect([...text.matchAll(new RegExp(DATE_VALUE_RE.source, 'gi'))].map((m) => m[0])).toEqual([
      '3/5/2027',
      '2027-03-05',
      'March 5, 2027',
    ]);
    expect('3/5/2027'.match(US_DATE_PARTS_RE)?.slice(1)).toEqual(['3', '5', '2027']);
    expect('2027-03-05'.match(ISO_DATE_PARTS_RE)?.slice(1)).toEqual(['2027', '03', '05']);
    expect('march 5, 2027'.match(LONG_DATE_PARTS_RE)?.slice(1)).toEqual(['march', '5', '2027']);
    expect(STARTS_WITH_MONTH_RE.test('May 3 newsletter')).toBe(true);
    expect(STARTS_WITH_MONTH_RE.test('Mayor')).toBe(false);
  });

  it('finds phone numbers in their usual spellings', () => {
    for (const p of ['(555) 123-4567', '555-123-4567', '555.123.4567'])
      expect(`call ${p} today`.match(PHONE_RE)?.[0]).toBe(p);
    expect(PHONE_RE.test('order 12345')).toBe(false);
  });

  it('tells dismiss controls from flow buttons', () => {
    for (const l of ['Accept all', 'No thanks', 'close dialog', '×', 'Not now'])
      expect(DISMISS_WORD_RE.test(l)).toBe(true);
    for (const l of ['Continue', 'Add to cart', 'Book now', 'Closet organizer'])
      expect(DISMISS_WORD_RE.test(l)).toBe(false);
    expect(DISMISS_LABEL_RE.test('Accept all')).toBe(true);
    expect(DISMISS_LABEL_RE.test('Close this account')).toBe(false);
  });
});
