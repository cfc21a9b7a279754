import { describe, expect, it } from 'vitest';
import { answerHasNumber, answerNames, nameCondition, numberCondition, quantitiesIn } from './answer.ts';

describe('answer matching', () => {
  it('names a product but not its lookalike', () => {
    const others = ['Stridex Trail Runner 2', 'Stridex Trail Runner 2 GTX', 'Velora Swift 3'];
    expect(answerNames('It is the stridex trail-runner 2.', 'Stridex Trail Runner 2', others)).toBe(true);
    expect(answerNames('Stridex Trail Runner 2 GTX', 'Stridex Trail Runner 2', others)).toBe(false);
    expect(answerNames('Stridex Trail Runner 2 GTX ($120)', 'Stridex Trail Runner 2 GTX', others)).toBe(true);
    expect(
      answerNames('Either Stridex Trail Runner 2 or Velora Swift 3', 'Stridex Trail Runner 2', others),
    ).toBe(false);
    expect(answerNames(null, 'x')).toBe(false);
  });

  it('reads prices, fractions and plain numbers', () => {
    expect(quantitiesIn('$1,299.00 total')).toEqual([1299]);
    expect(quantitiesIn('1 1/2 cups and 3/4 tsp')).toEqual([1.5, 0.75]);
    expect(answerHasNumber('It costs $89.99.', 89.99)).toBe(true);
    expect(answerHasNumber('89', 89.99)).toBe(false);
    expect(answerHasNumber('1, 2, 3, 4, 5 or 6', 3)).toBe(false);
  });

  it('builds conditions with a detail only when they fail', () => {
    expect(numberCondition('answer.price', '$5', 5)).toEqual({ id: 'answer.price', ok: true });
    const c = nameCondition('answer.name', 'nope', 'Tempo 3');
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('Tempo 3');
  });
});
