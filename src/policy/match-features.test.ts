import { describe, expect, it } from 'vitest';
import { Observation } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import { ELEMENT } from './element-features.ts';
import type { FeatureName } from './feature-layout.ts';
import { DEFAULT_FEATURIZER, featurizeState, STATE } from './featurizer.ts';
import { countProgress } from './match-features.ts';

const box = { x: 0, y: 0, width: 10, height: 10 };
const task = {
  id: 't',
  objective:
    'Apply for a permit at 12 Oak St, ZIP 27688. Project type: deck. Tell me the confirmation number.',
  startUrl: 'http://127.0.0.1/forms/apply',
} as unknown as AgentTask;

function obs(zipValue?: string) {
  return Observation.parse({
    url: 'http://127.0.0.1/forms/apply/step/1',
    elements: [
      {
        index: 1,
        tag: 'input',
        role: 'textbox',
        name: 'ZIP code',
        attributes: zipValue ? { value: zipValue } : {},
        bbox: box,
        nodeKey: 'a',
      },
      {
        index: 2,
        tag: 'select',
        role: 'combobox',
        name: 'Project type',
        attributes: { options: '- Select -|Fence|Deck', selected: '- Select -' },
        bbox: box,
        nodeKey: 'b',
      },
      {
        index: 3,
        tag: 'button',
        role: 'button',
        name: 'Continue',
        text: 'Continue',
        attributes: { type: 'submit' },
        bbox: box,
        nodeKey: 'c',
      },
    ],
  });
}

const at = (f: ReturnType<typeof featurizeState>, p: number, name: FeatureName<typeof ELEMENT>) =>
  ELEMENT.read(f.elemDense, p, name);

describe('task-element match features', () => {
  it('marks the field a pending task value is stated for, the select offering a named option, and flow buttons', () => {
    const f = featurizeState({ task, observation: obs(), history: [] }, DEFAULT_FEATURIZER);
    expect(at(f, 0, 'cueLabelPending')).toBeGreaterThanOrEqual(0.5);
    expect(at(f, 0, 'emptyEntry')).toBe(1);
    expect(at(f, 1, 'selectOptionPending')).toBe(1);
    expect(at(f, 2, 'submitLike')).toBe(1);
    expect(STATE.read(f.stateDense, 0, 'anyPendingEntry')).toBe(1);
    expect(STATE.read(f.stateDense, 0, 'taskQuestion')).toBe(1);
  });

  it('stops counting a value as pending once it is typed, and scopes index history to the page it was on', () => {
    const typed = { type: 'input' as const, index: 1, text: '27688', clear: true };
    const here = featurizeState(
      {
        task,
        observation: obs('27688'),
        history: [typed],
        historyUrls: ['http://127.0.0.1/forms/apply/step/1'],
      },
      DEFAULT_FEATURIZER,
    );
    expect(at(here, 0, 'cueLabelPending')).toBe(0);
    expect(at(here, 0, 'typedInto')).toBe(1);
    expect(STATE.read(here.stateDense, 0, 'anyPendingEntry')).toBe(0);
    const elsewhere = featurizeState(
      { task, observation: obs(), history: [typed], historyUrls: ['http://127.0.0.1/forms/other'] },
      DEFAULT_FEATURIZER,
    );
    expect(at(elsewhere, 0, 'typedInto')).toBe(0);
    expect(at(elsewhere, 0, 'actedBefore')).toBe(0);
  });
});

describe('count progress', () => {
  it('compares the count the task states with the one the page shows', () => {
    const task = "I'm cooking Sichuan Shrimp for 5 people. How much ginger should I use?";
    expect(countProgress(task, 'ingredients 4 servings 1 tbsp ginger')).toEqual({
      shown: 0,
      below: 1,
      above: 0,
    });
    expect(countProgress(task, 'ingredients 8 servings')).toEqual({ shown: 0, below: 0, above: 1 });
    expect(countProgress(task, 'ingredients 5 servings')).toEqual({ shown: 1, below: 0, above: 0 });
    expect(countProgress('What is the total time?', '5 servings')).toEqual({ shown: 0, below: 0, above: 0 });
  });
});
