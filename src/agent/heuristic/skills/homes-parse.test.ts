import { describe, expect, it } from 'vitest';
import { bedsOf, maxPriceOf, parseHomesTask, sortOf } from './homes-parse.ts';

describe('home search task parsing', () => {
  it('reads exact and minimum bedroom counts', () => {
    expect(bedsOf('Count the Denver condo listings that have exactly 2 bedrooms.')).toBe('2');
    expect(bedsOf('the cheapest house with at least 4 bedrooms')).toBe('4+');
    expect(bedsOf('that has 3 or more bedrooms')).toBe('3+');
    expect(bedsOf('a condo in Portland with 3+ bedrooms')).toBe('3+');
  });

  it('reads budgets and superlatives', () => {
    expect(maxPriceOf('priced at or under $450,000 has the most square feet')).toBe(450000);
    expect(maxPriceOf('My budget is $1.5 million.')).toBe(1500000);
    expect(sortOf("What's the least expensive house for sale in Raleigh?")).toBe('price-asc');
    expect(sortOf('find the priciest condo listing')).toBe('price-desc');
    expect(sortOf('Find the biggest multi-family home (by square footage)')).toBe('sqft');
    expect(sortOf('Which home in Northeast (Minneapolis) was listed most recently?')).toBe('newest');
  });

  it('recognises the job and what to report', () => {
    expect(
      parseHomesTask('Add 134 Walnut Way Unit 6C, Portland (the condo listing) to my saved homes.'),
    ).toMatchObject({
      kind: 'save-address',
      address: '134 Walnut Way Unit 6C',
    });
    expect(
      parseHomesTask('Save the cheapest condo in Portland that has home office and at least 2 bedrooms.')
        .kind,
    ).toBe('save-pick');
    const m = parseHomesTask(
      'What would my monthly payment (principal and interest) be for 449 Birch St, Columbus if I put 20% down at 6.75% for 20 years?',
    );
    expect(m).toMatchObject({ kind: 'mortgage', mortgage: { down: '20', rate: '6.75', term: '20' } });
    const c = parseHomesTask(
      'Find the cheapest multi-family home in Columbus with at least 4 bedrooms. What is its address and price?',
    );
    expect(c).toMatchObject({
      kind: 'pick',
      type: 'multi-family home',
      report: { price: true, address: true },
    });
    expect(parseHomesTask('How many houses with exactly 3 bedrooms are for sale in Phoenix?').kind).toBe(
      'count',
    );
    expect(
      parseHomesTask(
        'Look up the price history of 6583 Lincoln Way, Minneapolis. How much did it sell for last time?',
      ).kind,
    ).toBe('last-sold');
  });
});
