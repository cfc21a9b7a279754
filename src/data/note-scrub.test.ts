import { describe, expect, it } from 'vitest';
import { renderNote } from '../core/index.ts';
import { NoteScrubber, noteTexts, sentences, words } from './note-scrub.ts';

const NOTE =
  'Before checking out, always open the zephyr quartz dropdown and choose marmalade delivery; the blue banner link is a decoy.';

describe('note scrubbing rule', () => {
  const s = new NoteScrubber([NOTE]);

  it('splits sentences without losing text', () => {
    const t = 'One. Two! Three?\nFour; five';
    expect(sentences(t).join('')).toBe(t);
    expect(sentences(t)).toHaveLength(5);
  });

  it('drops a sentence that quotes a 4-word run of the note and keeps the rest verbatim', () => {
    expect(s.scrub('The cart holds 2 items. I must open the zephyr quartz dropdown first.')).toBe(
      'The cart holds 2 items.',
    );
  });

  it('catches a quote split across a sentence boundary', () => {
    expect(
      s.scrub('The page shows a shipping select. Open the zephyr. Quartz dropdown is where shipping lives.'),
    ).toBe('The page shows a shipping select.');
  });

  it('drops paraphrases by content-word overlap', () => {
    expect(s.scrub('Pick marmalade in the quartz zephyr dropdown. Total is $40.')).toBe('Total is $40.');
  });

  it('drops sentences that refer to the note or the previous attempt', () => {
    expect(s.scrub('Remember the hint. Like last time, go slow. Shipping chosen.')).toBe('Shipping chosen.');
  });

  it('leaves unrelated text alone and is a no-op without notes', () => {
    const t = 'Shipping set to Express. The cart holds 2 items.';
    expect(s.scrub(t)).toBe(t);
    expect(new NoteScrubber([]).scrub('As the note said, open the zephyr quartz dropdown.')).toBe(
      'As the note said, open the zephyr quartz dropdown.',
    );
  });

  it('detects any 6-word window of a note', () => {
    expect(s.leaks('x always open the zephyr quartz dropdown y')).toBe(true);
    expect(s.leaks('open the zephyr quartz')).toBe(false);
    expect(new NoteScrubber(['Sort by price.']).leaks('then sort by price please')).toBe(true);
  });

  it("does not count a rule's target or value, which a correct action names anyway, as a leak", () => {
    const note = renderNote({
      text: 'Attempt 1 failed: the wrong product went into the cart.',
      avoid: [{ kind: 'click', target: 'Trail Runner 2 GTX', why: 'a lookalike of the wanted item' }],
      prefer: [{ kind: 'select', target: 'Color', value: 'Glacier Silver Blue' }],
    });
    const scrubber = new NoteScrubber([note]);
    expect(scrubber.leaks('{"select_dropdown_option":{"index":4,"text":"Glacier Silver Blue"}}')).toBe(false);
    expect(scrubber.leaks('Clicked Trail Runner 2 GTX by mistake')).toBe(false);
    expect(scrubber.leaks('so a lookalike of the wanted item it is')).toBe(true);
    expect(scrubber.leaks('the wrong product went into the cart')).toBe(true);
  });

  it('compares the RULES line of a rendered note by its strings, not its JSON', () => {
    const note = renderNote({
      text: 'Use the filter.',
      avoid: [{ kind: 'click', target: 'Trail Blazer Deluxe Edition' }],
      prefer: [],
    });
    expect(noteTexts([note])).toEqual(['Use the filter.', 'Trail Blazer Deluxe Edition']);
    const r = new NoteScrubber([note]);
    expect(r.scrub('Do not click Trail Blazer Deluxe Edition again. Price noted.')).toBe('Price noted.');
    expect(words('A-b c')).toEqual(['a', 'b', 'c']);
  });
});
