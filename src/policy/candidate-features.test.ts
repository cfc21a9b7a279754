import { describe, expect, it } from 'vitest';
import { PAIR, pairDense, questionKind } from './candidate-features.ts';
import type { ArgCandidate } from './candidates.ts';
import { taskContext } from './element-features.ts';
import type { FeatureName } from './feature-layout.ts';

const cand = (text: string): ArgCandidate =>
  ({
    text,
    kind: 'text',
    norm: text.toLowerCase(),
    key: text.toLowerCase(),
    sources: 64,
    context: '',
    cue: '',
    taskPos: -1,
    optionOf: [],
  }) as unknown as ArgCandidate;

describe('answer features (done)', () => {
  it('reads what a question asks for', () => {
    expect(questionKind('How many condos with exactly 1 bedroom are for sale in Columbus?')).toMatchObject({
      count: true,
      name: false,
    });
    expect(questionKind('How many calories per serving does Sweet and Sour Tofu have?')).toMatchObject({
      count: false,
      quantity: true,
    });
    expect(
      questionKind("What's the cheapest 3-star hotel in London with free WiFi? Give me the hotel's name."),
    ).toMatchObject({ name: true, money: false });
    expect(
      questionKind("What's the cheapest nonstop flight from Toronto to Vancouver? Tell me its price."),
    ).toMatchObject({ name: false, money: true });
    expect(questionKind('Send Anthony Walker an email with the tracking number of my order.')).toMatchObject({
      count: false,
      code: true,
    });
  });

  it('sets only the answer features, and only when there is no element', () => {
    const ctx = taskContext('Find the cheapest Brightside lamp. What is it called?', '', []);
    const cands = [cand('11'), cand('Brightside Reading Lamp'), cand('$40.99')];
    const f = pairDense(cands, null, -1, false, ctx);
    const at = (i: number, name: FeatureName<typeof PAIR>) => PAIR.read(f, i, name);
    expect(at(1, 'answerNameLike')).toBe(1);
    expect(at(0, 'answerNameLike')).toBe(0);
    expect(at(0, 'answerBareNumberForNonNumber')).toBe(1);
    expect(at(2, 'answerBareNumberForNonNumber')).toBe(1);
    expect(at(1, 'optionOfElement')).toBe(0);
    const money = pairDense(cands, null, -1, false, taskContext('How much does the lamp cost?', '', []));
    expect(PAIR.read(money, 2, 'answerMoneyAmount')).toBe(1);
    expect(PAIR.read(money, 0, 'answerMoneyAmount')).toBe(0);
  });
});
