import { describe, expect, it } from 'vitest';
import type { Action } from '../core/action.ts';
import { Observation } from '../core/observation.ts';
import { POLICY_ACTION_TYPES } from './action-space.ts';
import { buildCandidates, taskParamWords } from './candidates.ts';
import {
  actionTargets,
  choiceToAction,
  DEFAULT_FEATURIZER,
  featurizeState,
  stateStructure,
} from './featurizer.ts';
import { syntheticTrajectories, tinyState } from './testing/synthetic.ts';
import { hashText, PARAM_WORD } from './text.ts';

const limits = DEFAULT_FEATURIZER;
const emptyObs = Observation.parse({ url: 'http://127.0.0.1/travel/' });

describe('argument candidates', () => {
  it('extracts quoted values, numbers and spans after cue words from the task, in a stable order', () => {
    const task = 'Book a flight from Boston to "New York" on 2024-05-01 for 2 adults under $1,250';
    const c = buildCandidates(task, '', emptyObs, [], limits);
    const texts = c.map((x) => x.text);
    for (const want of ['Boston', 'New York', '2024-05-01', '2', '$1,250', '1250', 'down', 'up', 'Enter', ''])
      expect(texts).toContain(want);
    expect(c.find((x) => x.text === '1250')!.norm).toBe(c.find((x) => x.text === '$1,250')!.norm);
    expect(c.find((x) => x.text === 'Boston')!.cue).toBe('from');
    expect(buildCandidates(task, '', emptyObs, [], limits).map((x) => x.text)).toEqual(texts);
    expect(new Set(c.map((x) => x.key)).size).toBe(c.length);
  });

  it('spells the value after a colon as the task does, names without a possessive or a leading verb', () => {
    const texts = (t: string) => buildCandidates(t, '', emptyObs, [], limits).map((x) => x.text);
    expect(texts('Christopher Ortiz emailed me. Reply: Yes, 3 PM works for me.')).toContain(
      'Yes, 3 PM works for me.',
    );
    expect(texts('Update my signature so it reads: Alex Morgan, Marketing Director')).toContain(
      'Alex Morgan, Marketing Director',
    );
    expect(texts("Label Matthew Lee's email about the policy as Finance.")).toContain('Matthew Lee');
    expect(texts('Save Dijon Chicken Stew to my "Weeknight dinners" collection.')).toContain(
      'Dijon Chicken Stew',
    );
  });

  it('adds select options, memory values and page texts', () => {
    const obs = Observation.parse({
      url: 'http://127.0.0.1/shop/p/1',
      texts: [{ text: 'Price: $182.00', tag: 'p' }],
      elements: [
        {
          index: 0,
          tag: 'select',
          name: 'Sort',
          attributes: { options: 'Relevance|Price: low to high' },
          bbox: { x: 0, y: 0, width: 10, height: 10 },
          nodeKey: 'k0',
        },
      ],
    });
    const c = buildCandidates(
      'What does the tent cost?',
      'Steps taken: 1. noted "Alpine 2P"',
      obs,
      obs.elements,
      limits,
    );
    const opt = c.find((x) => x.text === 'Price: low to high')!;
    expect(opt.optionOf).toEqual([0]);
    expect(c.map((x) => x.text)).toEqual(expect.arrayContaining(['Alpine 2P', '$182.00', 'Price: $182.00']));
  });
});

describe('featurizeState', () => {
  it('maps actions to targets and back, and marks unexpressible ones', () => {
    const state = tinyState();
    const st = stateStructure(state, DEFAULT_FEATURIZER);
    const input = st.elements.find((e) => e.tag === 'input')!.index;
    const select = st.elements.find((e) => e.tag === 'select')!.index;
    const actions: Action[] = [
      { type: 'click', index: 1 },
      { type: 'input', index: input, text: 'Trail Runner 2', clear: true },
      { type: 'select_dropdown', index: select, text: 'Price: low to high' },
      { type: 'scroll', down: false, pages: 1 },
      { type: 'send_keys', keys: 'Enter' },
      { type: 'go_back' },
      { type: 'wait', seconds: 1 },
      { type: 'done', text: '', success: true },
    ];
    for (const a of actions) {
      const t = actionTargets(st, a);
      expect(t.representable).toBe(true);
      expect(POLICY_ACTION_TYPES[t.type]).toBe(a.type);
      expect(choiceToAction(st, t.type, t.element, t.argument)).toEqual(a);
    }
    // Case and spacing do not matter; text absent from every source does.
    const loose = actionTargets(st, { type: 'input', index: input, text: '  trail runner 2 ', clear: true });
    expect(loose.representable).toBe(true);
    const partial = actionTargets(st, { type: 'input', index: input, text: 'hiking boots', clear: true });
    expect(partial).toMatchObject({
      type: 1,
      element: st.elements.findIndex((e) => e.index === input),
      argument: -1,
      representable: false,
    });
    // An option that the select does not offer, and input into a button, are not expressible.
    expect(
      actionTargets(st, { type: 'select_dropdown', index: select, text: 'Trail Runner 2' }).argument,
    ).toBe(-1);
    expect(actionTargets(st, { type: 'input', index: 1, text: 'Trail Runner 2', clear: true }).element).toBe(
      -1,
    );
  });

  it('is deterministic and keeps the most task-relevant elements under the cap', () => {
    const state = tinyState();
    const a = featurizeState(state, DEFAULT_FEATURIZER);
    const b = featurizeState(state, DEFAULT_FEATURIZER);
    expect(Array.from(a.elemDense)).toEqual(Array.from(b.elemDense));
    expect(a.candIds).toEqual(b.candIds);
    // 100 distractor links per page, 24 kept: the element each step acts on survives the cap.
    for (const t of syntheticTrajectories(8, 4, 100)) {
      t.steps.forEach((step, i) => {
        const st = stateStructure(
          { task: t.task, observation: step.observation, history: t.steps.slice(0, i).map((x) => x.action) },
          {
            ...DEFAULT_FEATURIZER,
            maxElements: 24,
          },
        );
        expect(st.elements).toHaveLength(24);
        expect(st.elements.map((e) => e.index)).toEqual(
          [...st.elements.map((e) => e.index)].sort((x, y) => x - y),
        );
        if ('index' in step.action)
          expect(st.elements.some((e) => e.index === (step.action as { index: number }).index)).toBe(true);
      });
    }
  });
});

describe('task parameter words', () => {
  it('are the quoted values, numbers and non-initial capitalized words of the objective', () => {
    expect([...taskParamWords('Archive all the emails from Steven Flores that are in my inbox.')]).toEqual([
      'steven',
      'flores',
    ]);
    expect(
      [
        ...taskParamWords(
          'Set my Postbox signature to "Alex Morgan | Marketing Director". Scale it for 9 people.',
        ),
      ].sort(),
    ).toEqual(['9', 'alex', 'director', 'marketing', 'morgan', 'postbox']);
    // A capitalized word that opens a sentence is the template's verb, not a parameter.
    expect(taskParamWords('Save Dijon Chicken Stew. Then Email it.').has('save')).toBe(false);
    expect(taskParamWords('Save Dijon Chicken Stew. Then Email it.').has('then')).toBe(false);
  });

  it('hash as one token, so two tasks that differ only in their values featurize alike', () => {
    const B = 4096;
    const a = hashText('From Steven Flores: invoice', B, 1, 64, '', true, new Set(['steven', 'flores']));
    const b = hashText('From Maria Chen: invoice', B, 1, 64, '', true, new Set(['maria', 'chen']));
    expect(a).toEqual(b);
    expect(a).toContain(hashText('x', B, 1, 1, '', false, new Set(['x']))[0]);
    expect(PARAM_WORD).not.toMatch(/^[\p{L}\p{N}]+$/u);
    // Without parameters the words are their own tokens.
    expect(hashText('From Steven Flores: invoice', B, 1, 64)).not.toEqual(
      hashText('From Maria Chen: invoice', B, 1, 64),
    );
    const s1 = featurizeState(tinyState('Open the email from Steven Flores'), DEFAULT_FEATURIZER);
    const s2 = featurizeState(tinyState('Open the email from Maria Chen'), DEFAULT_FEATURIZER);
    expect(s1.stateBags[0]).toEqual(s2.stateBags[0]);
  });
});
