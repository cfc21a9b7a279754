import { describe, expect, it } from 'vitest';
import { Observation } from '../../../core/observation.ts';
import { careful, fillPage, holds, questionOf, selectValue, wantsCheckbox } from './forms-fill.ts';

const at = (y: number) => ({ x: 0, y, width: 100, height: 18 });
const PASSPORT =
  "Renew my passport online. I'm Tyler Fischer, born 01/05/1954, and my current passport number is 561039951. My name has not changed. I want routine processing and the passport book only.";

describe('filling a form page', () => {
  it('compares against values the page shows cut at 80 characters', () => {
    const want = 'Here is the tracking number for my Rubbermaid Shelf Organizer order: 863729449275';
    expect(holds(`${want.slice(0, 79)}\u2026`, want)).toBe(true);
    expect(holds('Something else entirely', want)).toBe(false);
    expect(holds('Zone B', 'zone b')).toBe(true);
  });

  it('ticks an optional add-on only when the task asks for it', () => {
    const label = 'Also request a passport card (+$30)';
    expect(wantsCheckbox(label, PASSPORT, 'Passport renewal')).toBe(false);
    expect(
      wantsCheckbox(label, 'I want routine processing and the passport book and card.', 'Passport renewal'),
    ).toBe(true);
  });

  it('picks states by address and counts by number', () => {
    const states = ['Arizona', 'Illinois', 'Oregon'];
    expect(selectValue('State', states, 'Mail it to 5385 Willow Ct, Springfield, Illinois 62750.')).toBe(
      'Illinois',
    );
    expect(selectValue('People in your household', ['1', '2', '3', '4'], 'We are a household of 3.')).toBe(
      '3',
    );
  });

  it('reads a radio question from its legend and answers it; only a careful read sees "not"', () => {
    const obs = Observation.parse({
      url: 'http://x/apply/step/1',
      texts: [
        { text: 'Has your name changed since your passport was issued?', tag: 'legend', bbox: at(100) },
        { text: 'Yes', tag: 'label', bbox: at(128) },
        { text: 'No', tag: 'label', bbox: at(150) },
      ],
      elements: [
        {
          index: 1,
          tag: 'input',
          name: 'Yes',
          attributes: { type: 'radio', name: 'changed', checked: 'false' },
          bbox: at(130),
          nodeKey: 'y',
        },
        {
          index: 2,
          tag: 'input',
          name: 'No',
          attributes: { type: 'radio', name: 'changed', checked: 'false' },
          bbox: at(152),
          nodeKey: 'n',
        },
      ],
    });
    expect(questionOf(obs, obs.elements[0], ['Yes', 'No'])).toBe(
      'Has your name changed since your passport was issued?',
    );
    const quick = { avoid: [], prefer: [] };
    const noted = { avoid: [], prefer: [{ kind: 'page' as const }] };
    expect(careful(quick)).toBe(false);
    expect(fillPage(obs, [], PASSPORT, quick)?.action).toEqual({ type: 'click', index: 1 });
    expect(fillPage(obs, [], PASSPORT, noted)?.action).toEqual({ type: 'click', index: 2 });
  });
});
