import { describe, expect, it } from 'vitest';
import { parseGoal } from '../agent/heuristic/goal.ts';
import { Trajectory, type TrajectoryInput } from '../core/index.ts';
import { RulesReflector } from './rules-reflector.ts';

type Step = TrajectoryInput['steps'][number];
type Act = Step['action'];

/** A form control of the fixture page. */
const control = (index: number, tag: string, name: string, attributes: Record<string, string>) => ({
  index,
  tag,
  name,
  attributes,
  bbox: { x: 0, y: 0, width: 10, height: 10 },
  nodeKey: `${tag}-${index}`,
});
const colorSelect = control(3, 'select', 'Color', { options: 'Black | Silver | Rose Gold', value: 'Black' });
const qtyBox = control(4, 'input', 'Quantity', { type: 'number' });
const sortSelect = control(5, 'select', 'Sort by', {
  options: 'Featured | Price: low to high',
  value: 'Featured',
});
const ratingSelect = control(6, 'select', 'Customer rating', { options: 'Any | 4 stars & up', value: 'Any' });

function trajectory(
  objective: string,
  actions: Act[],
  failed: string[],
  answer: string | null = null,
  reason = '',
) {
  const steps: Step[] = actions.map((action, i) => ({
    index: i,
    observation: {
      url: `http://127.0.0.1:1/p${i}`,
      stepIndex: i,
      elements: [colorSelect, qtyBox, sortSelect, ratingSelect],
    },
    output: { action: [{ click: { index: 0 } }] },
    action,
    result: {},
  }));
  return Trajectory.parse({
    id: 'traj_t',
    task: {
      id: 'shop.t.train.000',
      suite: 'world',
      site: 'shop',
      objective,
      startUrl: 'http://127.0.0.1:1/',
      verifier: { kind: 'world', template: 't', params: {} },
    },
    agentId: 'heuristic',
    steps,
    finalAnswer: answer,
    endReason: 'done',
    verdict: { success: false, score: 0, reason, verifierId: 'world', failedConditions: failed },
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:01:00.000Z',
  } satisfies TrajectoryInput);
}

const reflect = (t: Trajectory) => new RulesReflector().reflect({ trajectory: t, previous: [] });

describe('RulesReflector', () => {
  it('names the colour and quantity a cart attempt left at their defaults', async () => {
    const t = trajectory(
      'I want 2 Chronix Fit Solar, size 45 mm, Silver. Add them to the cart.',
      [{ type: 'click', index: 9 }],
      ['cart.color', 'cart.qty'],
      null,
      'failed: cart.color (color Silver missing); cart.qty (quantity 1, expected 2)',
    );
    const r = await reflect(t);
    expect(r.prefer).toContainEqual(
      expect.objectContaining({ kind: 'select', target: 'Color', value: 'Silver' }),
    );
    expect(r.prefer).toContainEqual(
      expect.objectContaining({ kind: 'input', target: 'Quantity', value: '2' }),
    );
    expect(r.prefer).toContainEqual(
      expect.objectContaining({ kind: 'click', target: 'Chronix Fit Solar', value: 'exact' }),
    );
    expect(r.text).toMatch(/colour was left at its default/);
  });

  it('asks for a sort when a rarer superlative went unsorted, even after setting a rating filter', async () => {
    const objective =
      'Which is the lowest-priced Northpeak jacket rated 4 stars or higher? Give me its name.';
    expect(parseGoal(objective).sort).toBeNull();
    const t = trajectory(
      objective,
      [
        { type: 'select_dropdown', index: 6, text: '4 stars & up' },
        { type: 'done', text: 'Northpeak Storm Jacket', success: true },
      ],
      ['answer.name (expected "Northpeak Ridge Jacket", got "Northpeak Storm Jacket")'],
      'Northpeak Storm Jacket',
    );
    const r = await reflect(t);
    expect(r.prefer).toContainEqual(expect.objectContaining({ kind: 'sort', value: 'price low to high' }));
  });

  it('writes no sort rule once the attempt used the sort control', async () => {
    const t = trajectory(
      'Which is the lowest-priced Northpeak jacket? Give me its name.',
      [
        { type: 'select_dropdown', index: 5, text: 'Price: low to high' },
        { type: 'done', text: 'X', success: true },
      ],
      ['answer.name (expected "Y", got "X")'],
      'X',
    );
    const r = await reflect(t);
    expect(r.prefer.some((p) => p.kind === 'sort')).toBe(false);
  });

  it('asks to dismiss overlays when a click failed with kind covered, not when a message merely says so', async () => {
    const covered = (errorKind?: 'covered' | 'other') => {
      const t = trajectory(
        'Add the Trail Runner 2 to the cart.',
        [{ type: 'click', index: 9 }],
        ['cart.item'],
      );
      t.steps[0].result = {
        ...t.steps[0].result,
        error: 'click(9): element 9 is covered by <div class="modal-backdrop">',
        ...(errorKind ? { errorKind } : {}),
      };
      return t;
    };
    // The overlay finding's sentence (without findings the reflector suggests dismissing anyway).
    const dismiss = async (t: Trajectory) => /covered the page; close it first/.test((await reflect(t)).text);
    expect(await dismiss(covered('covered'))).toBe(true);
    expect(await dismiss(covered('other'))).toBe(false);
    expect(await dismiss(covered())).toBe(false);
  });

  it('maps "most recently" to the newest sort', async () => {
    const t = trajectory(
      'Which home in Northeast (Minneapolis) was listed most recently? Give me its address.',
      [{ type: 'done', text: '12 Elm St', success: true }],
      ['answer.address (expected 2206 Washington St)'],
      '12 Elm St',
    );
    const r = await reflect(t);
    expect(r.prefer).toContainEqual(expect.objectContaining({ kind: 'sort', value: 'newest' }));
  });
});
