import { describe, expect, it } from 'vitest';
import type { Action } from '../../../core/action.ts';
import type { Element, Observation, TextBlock } from '../../../core/observation.ts';
import type { HistoryEntry } from '../../agent.ts';
import { parseGoal } from '../goal.ts';
import type { Rules } from '../kit.ts';
import {
  asksFor,
  formDirty,
  labeledValue,
  namesThing,
  resultLinks,
  sortFor,
  subjectOf,
} from './domain-kit.ts';
import { flightCards } from './travel.ts';

function el(index: number, p: Partial<Element> & { y?: number; x?: number }): Element {
  return {
    index,
    tag: p.tag ?? 'a',
    role: p.role ?? '',
    name: p.name ?? '',
    text: p.text ?? p.name ?? '',
    attributes: p.attributes ?? {},
    bbox: { x: p.x ?? 300, y: p.y ?? index * 40, width: 100, height: 20 },
    nodeKey: `k${index}`,
    inViewport: true,
    frame: '',
    inShadow: false,
    depth: 0,
    parentIndex: null,
  };
}

function block(text: string, tag = 'div', y = 0, x = 300): TextBlock {
  return { text, tag, bbox: { x, y, width: 200, height: 20 }, inViewport: true };
}

function obs(elements: Element[], texts: TextBlock[], url = 'http://x/list'): Observation {
  return {
    schemaVersion: 1,
    url,
    title: 'T',
    tabs: [],
    elements,
    texts,
    scroll: {
      x: 0,
      y: 0,
      viewportWidth: 1280,
      viewportHeight: 800,
      pageHeight: 800,
      pagesAbove: 0,
      pagesBelow: 0,
    },
    text: '',
    screenshot: null,
    lastActionError: null,
    stepIndex: 0,
    memory: '',
    progress: '',
    notes: [],
  } as unknown as Observation;
}

function step(url: string, action: Action, elements: Element[]): HistoryEntry {
  return {
    stepIndex: 0,
    url,
    observation: obs(elements, [], url),
    output: {
      evaluation_previous_goal: '',
      memory: '',
      next_goal: '',
      action: [],
    } as unknown as HistoryEntry['output'],
    action,
    result: { error: null } as HistoryEntry['result'],
  };
}

describe('domain kit', () => {
  it('reads a value printed under or after its label', () => {
    const o = obs(
      [],
      [block('Prep'), block('20 min'), block('Total'), block('30 min'), block('Price: $12.50')],
    );
    expect(labeledValue(o, /^total$/i)).toBe('30 min');
    expect(labeledValue(o, /^price$/i)).toBe('$12.50');
    expect(labeledValue(o, /^calories$/i)).toBeNull();
  });

  it('names the subject without command words or trailing connectors', () => {
    expect(subjectOf(parseGoal('Save Dijon Chicken Stew to my "Weeknight dinners" collection.'))).toBe(
      'Dijon Chicken Stew',
    );
    expect(subjectOf(parseGoal('Get me one Auralis Fit 4 and one of the Velora Headlamp'))).toBe(
      'Auralis Fit 4',
    );
  });

  it('accepts lookalike headings without a note and only the exact one with a note', () => {
    const none = { avoid: [], prefer: [] };
    const noted = {
      avoid: [],
      prefer: [{ kind: 'click' as const, target: 'Trail Runner 2', value: 'exact' }],
    };
    expect(namesThing('Trail Runner 2', 'Trail Runner 2 GTX', none)).toBe(true);
    expect(namesThing('Trail Runner 2', 'Trail Runner 2 GTX', noted)).toBe(false);
    expect(namesThing('Trail Runner 2', 'Trail Runner 2', noted)).toBe(true);
  });

  it('lists result links below the count line and in its column', () => {
    const o = obs(
      [
        el(1, { name: 'Clear all', y: 500, x: 20 }),
        el(2, { name: 'Peanut Eggplant Stir-Fry', y: 200 }),
        el(3, { name: 'Help', y: 900 }),
        el(4, { name: '2', y: 700 }),
        el(5, { name: 'Home', y: 10 }),
      ],
      [block('11 recipes', 'p', 150)],
    );
    expect(resultLinks(o, o.elements).map((e) => e.name)).toEqual(['Peanut Eggplant Stir-Fry']);
  });

  it('knows when filter changes are waiting for Apply', () => {
    const box = el(1, { tag: 'input', name: 'Vegan', attributes: { type: 'checkbox' } });
    const apply = el(2, { tag: 'button', name: 'Apply' });
    const url = 'http://x/search';
    const ticked = [step(url, { type: 'click', index: 1 }, [box, apply])];
    expect(formDirty(ticked, url)).toBe(true);
    expect(formDirty([...ticked, step(url, { type: 'click', index: 2 }, [box, apply])], url)).toBe(false);
    expect(formDirty(ticked, 'http://x/search?diet=vegan')).toBe(false);
  });

  it('reads ordering words closely only after a note says an answer was wrong', () => {
    const g = parseGoal('Which hotel in Rome costing at most $200 a night has the best guest rating?');
    expect(sortFor(g, { avoid: [], prefer: [] })).toBeNull();
    expect(sortFor(g, { avoid: [{ kind: 'done', value: 'Hotel X' }], prefer: [] })).toBe('rating');
    expect(sortFor(parseGoal('What is the cheapest flight?'), { avoid: [], prefer: [] })).toBe('price-asc');
  });

  it('reads flight cards in order', () => {
    const o = obs(
      [],
      [
        block('12 flights found · prices per person', 'p'),
        block('7:20 PM – 10:10 PM'),
        block('Summit Airways · SM 1099'),
        block('2h 50m'),
        block('Nonstop'),
        block('$166.00'),
        block('6:05 AM – 8:50 AM'),
        block('Northstar Air · NX 2840'),
        block('5h 45m'),
        block('1 stop (ORD)'),
        block('$174.00'),
      ],
    );
    expect(flightCards(o)).toEqual([
      {
        depart: '7:20 PM',
        airline: 'Summit Airways',
        number: 'SM 1099',
        duration: '2h 50m',
        stops: 'Nonstop',
        price: '$166.00',
      },
      {
        depart: '6:05 AM',
        airline: 'Northstar Air',
        number: 'NX 2840',
        duration: '5h 45m',
        stops: '1 stop (ORD)',
        price: '$174.00',
      },
    ]);
  });
});

describe('asksFor', () => {
  const none: Rules = { avoid: [], prefer: [] };
  const noted: Rules = { avoid: [{ kind: 'done', value: 'Hotel X' }], prefer: [] };
  const asks = (task: string, label: string, rules: Rules = none) => asksFor(parseGoal(task), label, rules);

  it('takes labels the task mentions verbatim', () => {
    expect(asks('Find the top-rated vegan Thai recipe', 'Vegan')).toBe(true);
    expect(asks('takes 45 minutes or less in total', '45 minutes or less')).toBe(true);
    expect(asks('the cheapest 3-star hotel with free WiFi', 'Free WiFi')).toBe(true);
  });

  it('misses qualified labels until a note makes it read closely', () => {
    for (const [task, label] of [
      ['the cheapest nonstop flight from Lisbon to Denver', 'Nonstop only'],
      ['Count the in-stock Sonique items', 'In stock only'],
      ['a customer rating of at least 4 stars', '4 stars & up'],
      ['the cheapest 3-star hotel in London', '3 stars'],
      ['ready in at most 60 minutes', '60 minutes or less'],
    ]) {
      expect(asks(task, label)).toBe(false);
      expect(asks(task, label, noted)).toBe(true);
    }
    expect(asks('a customer rating of at least 4 stars', '4.5 stars & up', noted)).toBe(false);
  });
});
