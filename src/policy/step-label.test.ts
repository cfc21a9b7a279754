import { describe, expect, it } from 'vitest';
import type { Action } from '../core/action.ts';
import { Observation } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import { labelRlExamples } from '../rl/critical-data.ts';
import { DEFAULT_FEATURIZER } from './featurizer.ts';
import { filterRepresentable } from './sft-trainer.ts';
import { labelStep } from './step-label.ts';

const task = {
  id: 't',
  objective: 'How many calories per serving does Miso Ramen have?',
} as unknown as AgentTask;
const observation = Observation.parse({
  url: 'http://127.0.0.1/recipes/r/miso-ramen',
  texts: [
    { text: 'Miso Ramen', tag: 'h1', inViewport: true },
    { text: 'Calories: 775 per serving', tag: 'p', inViewport: true },
  ],
});
const state = { task, observation, history: [] };

const actions: Action[] = [
  { type: 'done', text: '775 calories per serving', success: true },
  { type: 'done', text: '', success: false },
  { type: 'scroll', down: true, pages: 1 },
  // The page has no interactive element, so the policy cannot click at all here.
  { type: 'click', index: 999 },
];

describe('labelStep: one labelling of recorded steps for SFT and RL', () => {
  it('relabels a composed answer to its span and names why other steps are no label', () => {
    expect(labelStep(state, actions[0], DEFAULT_FEATURIZER)).toEqual({
      ok: true,
      action: { type: 'done', text: '775', success: true },
      relabeled: true,
      partial: false,
    });
    expect(labelStep(state, actions[1], DEFAULT_FEATURIZER)).toEqual({ ok: false, reason: 'gave-up' });
    expect(labelStep(state, actions[2], DEFAULT_FEATURIZER)).toMatchObject({ ok: true, relabeled: false });
    expect(labelStep(state, actions[3], DEFAULT_FEATURIZER)).toEqual({
      ok: false,
      reason: 'type-unavailable',
    });
  });

  it('gives SFT examples and RL examples the same labels and drops the same steps', () => {
    const sft = filterRepresentable(
      actions.map((action, i) => ({ state, action, taskId: 't', trajectoryId: 'x', stepIndex: i })),
      DEFAULT_FEATURIZER,
    );
    const rl = labelRlExamples(
      actions.map((truth, i) => ({ id: `x#${i}`, state, truth })),
      DEFAULT_FEATURIZER,
    );
    expect(rl.kept.map((e) => e.truth)).toEqual(sft.kept.map((e) => e.action));
    expect(rl.skipped).toEqual(sft.skipped);
    expect(rl.relabeled).toBe(sft.relabeled);
    expect(rl.partial).toBe(sft.partial);
    expect(rl.kept.map((e) => e.id)).toEqual(['x#0', 'x#2']);
  });
});
