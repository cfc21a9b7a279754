import { describe, expect, it } from 'vitest';
import { Element, ScrollInfo } from '../core/index.ts';
import { formatElement, type PageView, serializeView } from './serialize.ts';

function el(partial: Partial<Element> & { index: number; tag: string }): Element {
  return Element.parse({
    bbox: { x: 0, y: partial.index * 30, width: 100, height: 20 },
    nodeKey: `k${partial.index}`,
    ...partial,
  });
}

const scroll = ScrollInfo.parse({
  y: 0,
  viewportWidth: 1280,
  viewportHeight: 800,
  pageHeight: 800,
  pagesAbove: 0,
  pagesBelow: 0,
});

describe('formatElement', () => {
  it('writes one Browser Use style line with quoted values where needed', () => {
    const line = formatElement(
      el({
        index: 3,
        tag: 'input',
        role: 'textbox',
        name: 'Search',
        attributes: { type: 'text', name: 'q', placeholder: 'Search products' },
      }),
    );
    expect(line).toBe('[3]<input type=text name=q placeholder="Search products">Search />');
  });

  it('drops attributes repeating the label and roles the tag implies; shows other roles', () => {
    expect(
      formatElement(
        el({
          index: 1,
          tag: 'button',
          role: 'button',
          text: 'Close',
          name: 'Close',
          attributes: { 'aria-label': 'Close' },
        }),
      ),
    ).toBe('[1]<button>Close />');
    expect(formatElement(el({ index: 2, tag: 'div', role: 'button', text: 'Go', name: 'Go' }))).toBe(
      '[2]<div role=button>Go />',
    );
  });

  it('shows the accessible name when it differs from the text and appears nowhere else', () => {
    expect(
      formatElement(
        el({
          index: 4,
          tag: 'a',
          role: 'link',
          text: '×',
          name: 'Dismiss banner',
          attributes: { href: '/x' },
        }),
      ),
    ).toBe('[4]<a href=/x label="Dismiss banner">× />');
  });

  it('marks off-viewport and covered elements and shortens long option lists', () => {
    const options = Array.from({ length: 14 }, (_, i) => `O${i}`).join('|');
    const line = formatElement(
      el({
        index: 5,
        tag: 'select',
        role: 'combobox',
        inViewport: false,
        attributes: { selected: 'O1', options, covered: 'true' },
      }),
    );
    expect(line).toBe(
      '[5]<select selected=O1 options="O0|O1|O2|O3|O4|O5|O6|O7|O8|O9|... 4 more" covered=true> /> (offscreen)',
    );
  });
});

describe('serializeView', () => {
  const view: PageView = {
    url: 'http://shop.test/cart',
    title: 'Cart',
    tabs: [
      { id: '0', url: 'http://shop.test/cart', title: 'Cart', active: true },
      { id: '1', url: 'http://shop.test/help', title: 'Help', active: false },
    ],
    elements: [
      el({ index: 1, tag: 'a', role: 'link', text: 'Home', name: 'Home', attributes: { href: '/' } }),
      el({
        index: 2,
        tag: 'a',
        role: 'link',
        text: 'Trail shoe',
        name: 'Trail shoe',
        attributes: { href: '/p/1' },
      }),
      el({ index: 3, tag: 'span', text: 'Remove', name: 'Remove', depth: 1, parentIndex: 2 }),
    ],
    texts: [
      { text: 'Your cart', tag: 'h1', inViewport: true },
      { text: 'Total $89', tag: 'p', inViewport: true },
      { text: 'Far below', tag: 'p', inViewport: false },
    ],
    layout: [
      { after: 1, depth: 0 },
      { after: 3, depth: 0 },
      { after: 3, depth: 0 },
    ],
    scroll,
  };

  it('prints header, tabs, elements indented by depth and texts between them', () => {
    expect(serializeView(view)).toBe(
      [
        'Current URL: http://shop.test/cart',
        'Title: Cart',
        'Tabs:',
        '  tab 0: Cart - http://shop.test/cart (active)',
        '  tab 1: Help - http://shop.test/help',
        'Page:',
        '[Start of page]',
        '[1]<a href="/">Home />',
        'Your cart',
        '[2]<a href=/p/1>Trail shoe />',
        '\t[3]<span>Remove />',
        'Total $89',
        '[End of page]',
      ].join('\n'),
    );
  });

  it('gives pixel hints when the page extends above and below', () => {
    const text = serializeView({
      ...view,
      elements: [],
      texts: [],
      scroll: { ...scroll, y: 400, pageHeight: 3000, pagesAbove: 0.5, pagesBelow: 2.2 },
    });
    expect(text).toContain('... 400 pixels above (0.5 pages) - scroll up to see more ...');
    expect(text).toContain('(no interactive elements)');
    expect(text).toContain('... 1800 pixels below (2.2 pages) - scroll down to see more ...');
  });

  it('places texts by position when no layout is given, and is deterministic', () => {
    const noLayout = {
      ...view,
      layout: undefined,
      texts: [{ text: 'Between', tag: 'p', inViewport: true, bbox: { x: 0, y: 45, width: 10, height: 10 } }],
    };
    const a = serializeView(noLayout);
    expect(a.indexOf('Between')).toBeGreaterThan(a.indexOf('Home'));
    expect(a.indexOf('Between')).toBeLessThan(a.indexOf('Trail shoe'));
    expect(serializeView(noLayout)).toBe(a);
  });
});
