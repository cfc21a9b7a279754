import { describe, expect, it } from 'vitest';
import type { Action } from './action.ts';
import {
  actionsEquivalent,
  argumentSimilarity,
  elementAt,
  elementsEquivalent,
  normalizeText,
  normalizeUrl,
} from './action-equivalence.ts';
import { Element, Observation, type ObservationInput } from './observation.ts';

type El = Partial<Element> & { index: number; tag: string };

function el(e: El): Element {
  return Element.parse({ bbox: { x: 0, y: 0, width: 10, height: 10 }, nodeKey: `k${e.index}`, ...e });
}

function obs(elements: El[], extra: Partial<ObservationInput> = {}): Observation {
  return Observation.parse({ url: 'http://shop.test/search?q=shoes', elements: elements.map(el), ...extra });
}

// A results page with a lookalike pair, a link with a span inside, and two links to one product.
const page = obs([
  { index: 0, tag: 'input', role: 'searchbox', name: 'Search', nodeKey: 'search' },
  {
    index: 1,
    tag: 'a',
    role: 'link',
    name: 'Trail Runner 2',
    attributes: { href: '/p/2' },
    nodeKey: 'card2-link',
  },
  { index: 2, tag: 'span', name: 'Trail Runner 2', parentIndex: 1, nodeKey: 'card2-title' },
  {
    index: 3,
    tag: 'a',
    role: 'link',
    name: 'Trail Runner 3',
    attributes: { href: '/p/3' },
    nodeKey: 'card3-link',
  },
  { index: 4, tag: 'button', role: 'button', name: 'Add to cart', nodeKey: 'card2-add' },
  { index: 5, tag: 'button', role: 'button', name: 'Add to cart', nodeKey: 'card3-add' },
  {
    index: 6,
    tag: 'img',
    name: 'Trail Runner 2 photo',
    attributes: { href: '/p/2#photo' },
    nodeKey: 'card2-img',
  },
  {
    index: 7,
    tag: 'a',
    role: 'link',
    name: 'View',
    attributes: { href: 'http://www.shop.test/p/2/?utm_source=x' },
    nodeKey: 'card2-view',
  },
  { index: 8, tag: 'button', role: 'button', name: 'Quick view', parentIndex: 1, nodeKey: 'card2-quick' },
  { index: 9, tag: 'select', role: 'combobox', name: 'Sort by', nodeKey: 'sort' },
]);

describe('normalizeText', () => {
  it.each([
    ['New York', 'new york ', true],
    ['$1,299.00', '1299', true],
    ['$25', '25', true],
    ['25.50', '25.5', true],
    ['  Hello,   World! ', 'hello world', true],
    ["Women's shoes", 'womens shoes', true],
    ['1,2,3', '1 2 3', true],
    ['New York', 'New Jersey', false],
    ['1299', '129.9', false],
    ['0.50', '.5', false], // ".5" has no leading digit: tokens "5" vs "0.5"
  ])('%j vs %j -> equal: %s', (a, b, equal) => {
    expect(normalizeText(a) === normalizeText(b)).toBe(equal);
  });

  it('produces single-spaced lowercase tokens', () => {
    expect(normalizeText('  Price: $1,299.00 (USD)  ')).toBe('price 1299 usd');
  });
});

describe('normalizeUrl', () => {
  it.each([
    ['http://www.Shop.test/p/2/?utm_source=x#top', 'https://shop.test/p/2', true],
    ['/p/2?b=2&a=1', 'http://shop.test/p/2?a=1&b=2', true],
    ['/p/2', '/p/3', false],
    ['/s?q=a', '/s?q=b', false],
  ])('%j vs %j -> equal: %s', (a, b, equal) => {
    const base = 'http://shop.test/';
    expect(normalizeUrl(a, base) === normalizeUrl(b, base)).toBe(equal);
  });

  it('treats # and javascript: as no destination', () => {
    expect(normalizeUrl('#')).toBe('');
    expect(normalizeUrl('javascript:void(0)')).toBe('');
  });
});

describe('elementsEquivalent within one observation', () => {
  const at = (i: number) => elementAt(page, i);
  it.each([
    ['the same element', 0, 0, true],
    ['a span inside a link equals the link', 2, 1, true],
    ['the link equals the span inside it', 1, 2, true],
    ['two links to the same href', 1, 7, true],
    ['an element whose href only differs by fragment', 6, 1, true],
    ['a different element with the same label (Add to cart)', 4, 5, false],
    ['lookalike product links', 1, 3, false],
    ['a button nested in a link is its own target', 8, 1, false],
    ['unrelated elements', 0, 9, false],
  ])('%s', (_label, i, j, equal) => {
    expect(elementsEquivalent(at(i), at(j), page)).toBe(equal);
  });

  it('is false when an element is missing', () => {
    expect(elementsEquivalent(undefined, at(0), page)).toBe(false);
    expect(elementsEquivalent(at(0), undefined, page)).toBe(false);
  });
});

describe('elementsEquivalent across observations', () => {
  // The same page re-rendered: a banner shifted indices and DOM paths.
  const later = obs([
    { index: 0, tag: 'div', role: 'dialog', name: 'Cookie banner', nodeKey: 'banner' },
    { index: 1, tag: 'input', role: 'searchbox', name: 'Search', nodeKey: 'search' },
    {
      index: 2,
      tag: 'a',
      role: 'link',
      name: 'Trail Runner 2',
      attributes: { href: '/p/2' },
      nodeKey: 'moved-card2',
    },
    { index: 3, tag: 'button', role: 'button', name: 'Add to cart', nodeKey: 'moved-add2' },
    { index: 4, tag: 'button', role: 'button', name: 'Add to cart', nodeKey: 'moved-add3' },
    { index: 5, tag: 'select', role: 'combobox', name: 'Sort by', nodeKey: 'moved-sort' },
    {
      index: 6,
      tag: 'a',
      role: 'link',
      name: 'Trail Runner 3',
      attributes: { href: '/p/4' },
      nodeKey: 'card3-link',
    },
  ]);
  const a = (i: number) => elementAt(page, i);
  const b = (i: number) => elementAt(later, i);
  it.each([
    ['same nodeKey', 0, 1, true],
    ['same href, different nodeKey', 1, 2, true],
    ['span in link vs link elsewhere with same href', 2, 2, true],
    ['unique (tag, role, name), different nodeKey', 9, 5, true],
    ['same label but not unique (Add to cart)', 4, 3, false],
    ['same nodeKey but a different destination', 3, 6, false],
    ['different elements', 0, 5, false],
  ])('%s', (_label, i, j, equal) => {
    expect(elementsEquivalent(a(i), b(j), page, later)).toBe(equal);
  });
});

describe('actionsEquivalent', () => {
  const cases: Array<[string, Action, Action, boolean]> = [
    [
      'input, case and spacing',
      { type: 'input', index: 0, text: 'New York', clear: true },
      { type: 'input', index: 0, text: 'new york ', clear: false },
      true,
    ],
    [
      'input, different text',
      { type: 'input', index: 0, text: 'New York', clear: true },
      { type: 'input', index: 0, text: 'New Jersey', clear: true },
      false,
    ],
    ['click span vs its link', { type: 'click', index: 2 }, { type: 'click', index: 1 }, true],
    ['click lookalike', { type: 'click', index: 4 }, { type: 'click', index: 5 }, false],
    [
      'click vs input on the same element',
      { type: 'click', index: 0 },
      { type: 'input', index: 0, text: 'x', clear: true },
      false,
    ],
    [
      'select, number format',
      { type: 'select_dropdown', index: 9, text: 'Under $1,000.00' },
      { type: 'select_dropdown', index: 9, text: 'under 1000' },
      true,
    ],
    [
      'scroll same direction',
      { type: 'scroll', down: true, pages: 1 },
      { type: 'scroll', down: true, pages: 3 },
      true,
    ],
    [
      'scroll opposite direction',
      { type: 'scroll', down: true, pages: 1 },
      { type: 'scroll', down: false, pages: 1 },
      false,
    ],
    [
      'navigate same normalized url',
      { type: 'navigate', url: '/p/2/', new_tab: false },
      { type: 'navigate', url: 'http://shop.test/p/2#x', new_tab: false },
      true,
    ],
    [
      'navigate elsewhere',
      { type: 'navigate', url: '/p/2', new_tab: false },
      { type: 'navigate', url: '/p/3', new_tab: false },
      false,
    ],
    [
      'send_keys aliases',
      { type: 'send_keys', keys: 'Ctrl+A' },
      { type: 'send_keys', keys: 'control+a' },
      true,
    ],
    [
      'done equal answers',
      { type: 'done', text: 'It costs $1,299.00.', success: true },
      { type: 'done', text: 'it costs 1299', success: true },
      true,
    ],
    [
      'done different answers',
      { type: 'done', text: '$25', success: true },
      { type: 'done', text: '$26', success: true },
      false,
    ],
    [
      'done different success',
      { type: 'done', text: '', success: true },
      { type: 'done', text: '', success: false },
      false,
    ],
    ['go_back', { type: 'go_back' }, { type: 'go_back' }, true],
    ['switch_tab other tab', { type: 'switch_tab', tab_id: '1' }, { type: 'switch_tab', tab_id: '2' }, false],
  ];
  it.each(cases)('%s', (_label, a, b, equal) => {
    expect(actionsEquivalent(a, b, page)).toBe(equal);
    expect(actionsEquivalent(b, a, page)).toBe(equal);
  });
});

describe('argumentSimilarity', () => {
  it.each([
    ['New York', 'new york', 1],
    ['', '', 1],
    ['New York', '', 0],
    ['red shoes', 'blue hats', 0],
    ['red running shoes', 'red shoes', 0.8],
  ])('%j vs %j = %s', (a, b, sim) => {
    expect(argumentSimilarity(a, b)).toBeCloseTo(sim, 6);
  });
});
