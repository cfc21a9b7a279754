import { describe, expect, it } from 'vitest';
import { Observation } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import { answerSpan, relabelAnswer, relabelInput } from './answer-span.ts';
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

describe('input relabelling', () => {
  const mailTask = {
    id: 'm',
    objective: 'Send an email to Joseph Campbell with the subject "Invoice question".',
  } as unknown as AgentTask;
  const mailObs = Observation.parse({ url: 'http://127.0.0.1/mail/compose', texts: [] });
  const mailSt = stateStructure({ task: mailTask, observation: mailObs, history: [] }, DEFAULT_FEATURIZER);

  it('completes a name typed in part for suggestions to the task name it starts', () => {
    expect(relabelInput(mailSt, { type: 'input', index: 3, text: 'Joseph Cam', clear: true })).toEqual({
      type: 'input',
      index: 3,
      text: 'Joseph Campbell',
      clear: true,
    });
  });

  it('leaves a composed search query alone and ignores other actions', () => {
    expect(
      relabelInput(mailSt, { type: 'input', index: 3, text: 'invoice from Joseph', clear: true }),
    ).toBeNull();
    expect(relabelInput(mailSt, { type: 'click', index: 3 })).toBeNull();
  });

  it('reduces a composed message to the code it carries from memory', () => {
    const withMemory = stateStructure(
      {
        task: mailTask,
        observation: Observation.parse({
          url: mailObs.url,
          texts: [],
          memory: 'Tracking number: 1Z7V4EFX97',
        }),
        history: [],
      },
      DEFAULT_FEATURIZER,
    );
    expect(
      relabelInput(withMemory, {
        type: 'input',
        index: 22,
        text: 'Here is the tracking number for my order: 1Z7V4EFX97',
        clear: true,
      }),
    ).toMatchObject({ text: '1Z7V4EFX97' });
  });
});
