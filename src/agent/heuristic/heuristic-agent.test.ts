import { describe, expect, it } from 'vitest';
import type { Action } from '../../core/action.ts';
import type { ActionErrorKind } from '../../core/action-error.ts';
import { Observation } from '../../core/observation.ts';
import type { ActionResult } from '../../core/trajectory.ts';
import type { HistoryEntry } from '../agent.ts';
import { parseGoal } from './goal.ts';
import { decide } from './heuristic-agent.ts';

const URL_ = 'http://127.0.0.1/shop/p/2';
const box = (y: number) => ({ x: 10, y, width: 100, height: 20 });
const page = Observation.parse({
  url: URL_,
  elements: [
    {
      index: 0,
      tag: 'button',
      name: 'Add to cart',
      attributes: { covered: 'true' },
      bbox: box(100),
      nodeKey: 'a',
    },
    { index: 1, tag: 'button', name: 'Close', bbox: box(10), nodeKey: 'c' },
  ],
});
const MESSAGE = 'click(0): element 0 <button "Add to cart"> is covered by <div class="modal-backdrop">';

function failedClick(errorKind?: ActionErrorKind): HistoryEntry {
  const action: Action = { type: 'click', index: 0 };
  const result = { error: MESSAGE, isDone: false, success: null, extractedContent: null } as ActionResult;
  if (errorKind) result.errorKind = errorKind;
  return {
    stepIndex: 0,
    url: URL_,
    observation: page,
    output: { action: [action] } as unknown as HistoryEntry['output'],
    action,
    result,
  };
}

describe('the teacher reads the kind of an action error', () => {
  const goal = parseGoal('Add the Trail Runner 2 to the cart.');
  const rules = { avoid: [], prefer: [] };

  it('dismisses the overlay after a click failed with kind covered', () => {
    const c = decide(goal, { ...page, lastActionErrorKind: 'covered' }, [failedClick('covered')], rules);
    expect(c.action).toEqual({ type: 'click', index: 1 });
  });

  it('does not read the message: the same words without the kind are no overlay', () => {
    for (const kind of [undefined, 'other'] as const) {
      const c = decide(goal, page, [failedClick(kind)], rules);
      expect(c.action).not.toEqual({ type: 'click', index: 1 });
    }
  });
});
