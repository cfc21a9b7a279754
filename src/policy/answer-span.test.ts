import { describe, expect, it } from 'vitest';
import { Observation } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import { answerSpan, relabelAnswer } from './answer-span.ts';
import { DEFAULT_FEATURIZER, stateStructure } from './featurizer.ts';

const task = {
  id: 't',
  objective: 'How many calories per serving does Miso Ramen have?',
} as unknown as AgentTask;
const observation = Observation.parse({
  url: 'http://127.0.0.1/recipes/r/miso-ramen',
  texts: [
    { text: 'Miso Ramen', tag: 'h1', inViewport: true },
    { text: 'Calories: 775 per serving', tag: 'p', inViewport: true },
    { text: 'Serves 4', tag: 'p', inViewport: true },
  ],
});
const st = stateStructure({ task, observation, history: [] }, DEFAULT_FEATURIZER);

describe('answer spans of composed answers', () => {
  it('picks the candidate the sentence contains, preferring the number asked for', () => {
    expect(answerSpan(st, '775 calories per serving', task.objective)).toBe('775');
    expect(answerSpan(st, 'It is Miso Ramen.')).toBe('Miso Ramen');
    expect(answerSpan(st, 'nothing on this page')).toBeNull();
  });

  it('relabels only successful done actions with a text', () => {
    expect(
      relabelAnswer(st, { type: 'done', text: '775 calories per serving', success: true }, task.objective),
    ).toEqual({
      type: 'done',
      text: '775',
      success: true,
    });
    expect(relabelAnswer(st, { type: 'done', text: '775', success: false })).toBeNull();
    expect(relabelAnswer(st, { type: 'click', index: 1 })).toBeNull();
  });
});
