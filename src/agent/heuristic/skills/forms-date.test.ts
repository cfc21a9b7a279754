import { describe, expect, it } from 'vitest';
import { Observation, type ObservationInput } from '../../../core/observation.ts';
import type { HistoryEntry } from '../../agent.ts';
import { isDateField, pickDay } from './forms-date.ts';

const box = { x: 0, y: 0, width: 10, height: 10 };
const field = {
  index: 1,
  tag: 'input',
  name: 'First day',
  attributes: { placeholder: 'Select date', readonly: '' },
  bbox: box,
  nodeKey: 'f1',
};

function obs(extra: ObservationInput['elements'] = []): Observation {
  return Observation.parse({ url: 'http://x/settings', elements: [field, ...(extra ?? [])] });
}

function clicked(o: Observation, index: number): HistoryEntry {
  return {
    stepIndex: 0,
    url: o.url,
    observation: o,
    output: {} as HistoryEntry['output'],
    action: { type: 'click', index },
    result: { error: null } as HistoryEntry['result'],
  };
}

const calendar = (month: string, days: number[]) => [
  {
    index: 2,
    tag: 'button',
    name: 'Previous month',
    attributes: { 'aria-label': 'Previous month' },
    bbox: box,
    nodeKey: 'p',
  },
  {
    index: 3,
    tag: 'button',
    name: 'Next month',
    attributes: { 'aria-label': 'Next month' },
    bbox: box,
    nodeKey: 'n',
  },
  ...days.map((d) => ({
    index: 10 + d,
    tag: 'button',
    name: String(d),
    attributes: { 'aria-label': `${month} ${d}, 2027` },
    bbox: box,
    nodeKey: `d${d}`,
  })),
];

describe('calendar date fields', () => {
  it('recognises read-only date fields', () => {
    expect(isDateField(obs().elements[0])).toBe(true);
  });

  it('opens the calendar, moves to the month, then picks the day', () => {
    const closed = obs();
    expect(pickDay(closed, [], closed.elements[0], '2027-03-05', 'the first day')?.action).toEqual({
      type: 'click',
      index: 1,
    });
    const feb = obs(calendar('February', [1, 2, 3]));
    const open = [clicked(closed, 1)];
    expect(pickDay(feb, open, feb.elements[0], '2027-03-05', 'the first day')?.action).toEqual({
      type: 'click',
      index: 3,
    });
    const mar = obs(calendar('March', [4, 5, 6]));
    expect(pickDay(mar, open, mar.elements[0], '2027-03-05', 'the first day')?.action).toEqual({
      type: 'click',
      index: 15,
    });
  });

  it('does nothing once the field holds the day', () => {
    const o = Observation.parse({
      url: 'http://x/',
      elements: [{ ...field, attributes: { ...field.attributes, value: '2027-03-05' } }],
    });
    expect(pickDay(o, [], o.elements[0], '2027-03-05', 'the first day')).toBeNull();
  });
});
