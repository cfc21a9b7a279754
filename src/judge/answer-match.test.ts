import { describe, expect, it } from 'vitest';
import { Task } from '../core/index.ts';
import { AnswerMatchVerifier, answerFragments, normalizeAnswer } from './answer-match.ts';
import { fakeImageLoader, makeTrajectory } from './testing/trajectory-fixture.ts';

const task = (reference: string, answerType = 'golden') =>
  Task.parse({
    id: 'wv',
    suite: 'webvoyager',
    site: 'Allrecipes',
    objective: 'Find a cookie recipe.',
    startUrl: 'https://www.allrecipes.com/',
    verifier: { kind: 'answer', reference, answerType },
  });
const run = (t: Task, answer: string | null) =>
  new AnswerMatchVerifier().verify({
    task: t,
    trajectory: makeTrajectory(t, { steps: 1 }),
    finalAnswer: answer,
    loadImage: fakeImageLoader(),
  });

describe('answer normalization', () => {
  it('normalizes case, accents, quotes, punctuation and thousands separators', () => {
    expect(normalizeAnswer('  “Crème Brûlée”, 1,234 Reviews; 4.5-star! ')).toBe(
      'creme brulee 1234 reviews 4.5 star',
    );
  });
  it('splits references into fragments, keeping quoted titles whole and dropping placeholders', () => {
    expect(
      answerFragments("'Vegan Chocolate Chip, Oatmeal, and Nut Cookies', 4.9 star, 67 viewers (> 60)"),
    ).toEqual(['vegan chocolate chip oatmeal and nut cookies', '4.9 star', '67 viewers']);
    expect(answerFragments("'Beef Wellington', <Ingredients>")).toEqual(['beef wellington']);
  });
});

describe('AnswerMatchVerifier (heuristic)', () => {
  it('succeeds when every fragment is present, whatever the wording around it', async () => {
    const t = task("'Vegan Chocolate Chip, Oatmeal, and Nut Cookies', 4.9 star, 67 viewers (> 60)");
    const v = await run(
      t,
      'I found "Vegan chocolate chip, oatmeal, and nut cookies" rated 4.9 stars with 67 viewers.',
    );
    expect(v).toMatchObject({ success: true, score: 1, verifierId: 'answer-match-heuristic' });
    expect(v.reason).toMatch(/^heuristic answer match: 3\/3/);
  });
  it('gives partial scores and names what is missing', async () => {
    const v = await run(
      task("'Spinach Lasagna', 4.7-star, 501 reviews", 'possible'),
      'Spinach Lasagna, 4.7 stars',
    );
    expect(v.success).toBe(false);
    expect(v.score).toBeCloseTo(2 / 3, 9);
    expect(v.failedConditions).toEqual(['missing:501 reviews']);
    expect(v.reason).toMatch(/possible/);
  });
  it('fails without an answer, and when the reference is only placeholders', async () => {
    expect((await run(task("'X'"), null)).failedConditions).toEqual(['no_answer']);
    expect((await run(task('<Ingredients>'), 'anything')).failedConditions).toEqual([
      'reference_not_checkable',
    ]);
  });
});
