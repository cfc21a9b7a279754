import { describe, expect, it } from 'vitest';
import { ScriptedChatModel } from '../models/testing/scripted-chat-model.ts';
import { DEFAULT_COMPARABILITY_WEIGHTS } from './comparability.ts';
import { findDivergences } from './divergence.ts';
import { act, element, trajectory } from './fixtures.ts';
import { buildTaggerMessages, LlmTagger, TAGGER_SYSTEM_PROMPT } from './llm-tagger.ts';
import { mineCriticalStates } from './mine.ts';
import { LOOKALIKE_FAILURE, RESULTS, SUCCESS, T } from './scenarios.test-helpers.ts';
import { Interner, trajectoryFeatures } from './state-features.ts';
import { LABEL_ORDER } from './taxonomy.ts';

describe('LlmTagger', () => {
  it('sends the taxonomy and both sides, and records the model label', async () => {
    const model = new ScriptedChatModel([
      JSON.stringify({
        label: 'lookalike-element',
        reason: 'Clicked the GTX variant instead of Trail Runner 2.',
      }),
    ]);
    const tagger = new LlmTagger(model);
    const { criticalStates, stats } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE], { tagger });
    expect(criticalStates[0]).toMatchObject({
      label: 'lookalike-element',
      labelSource: 'llm:scripted-model',
      labelReason: 'Clicked the GTX variant instead of Trail Runner 2.',
    });
    expect(stats.options.tagger).toBe('llm:scripted-model');
    expect(model.calls).toHaveLength(1);
    const [system, user] = model.calls[0].messages;
    expect(system.content).toBe(TAGGER_SYSTEM_PROMPT);
    for (const l of LABEL_ORDER) expect(TAGGER_SYSTEM_PROMPT).toContain(`- ${l}:`);
    expect(user.content).toContain('Trail Runner 2 GTX');
    expect(user.content).toContain('Action chosen at step 1: click(5)');
    expect(model.calls[0].temperature).toBe(0);
    expect(model.calls[0].responseFormat).toMatchObject({ type: 'json_schema', name: 'failure_label' });
    expect(tagger.usage.calls).toBe(1);
  });

  it('falls back to the rules when the reply fails its schema twice', async () => {
    const model = new ScriptedChatModel(['not json', JSON.stringify({ label: 'bogus', reason: 'x' })]);
    const tagger = new LlmTagger(model);
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE], { tagger });
    expect(criticalStates[0].label).toBe('lookalike-element');
    expect(criticalStates[0].labelSource).toBe('rules');
    expect(criticalStates[0].labelReason).toContain('model reply unusable');
    expect(tagger.fallbacks).toBe(1);
    expect(tagger.usage.calls).toBe(2);
  });

  it('bounds the page view on big pages', async () => {
    const big = {
      ...RESULTS,
      elements: Array.from({ length: 200 }, (_, i) => element(i, { name: `Item ${i}`, href: `/p/${i}` })),
    };
    const s = trajectory('s-big', T, [[big, act.click(3)]], true);
    const f = trajectory('f-big', T, [[big, act.click(4)]], false);
    const interner = new Interner();
    const [d] = findDivergences(trajectoryFeatures(s, interner), trajectoryFeatures(f, interner), {
      weights: DEFAULT_COMPARABILITY_WEIGHTS,
      minComparability: 0.7,
      maxCandidates: 1,
    });
    const user = String(buildTaggerMessages(d)[1].content);
    expect(user).toContain('(140 more elements)');
    expect(user).not.toContain('Item 150');
    expect(user.length).toBeLessThan(6000);
  });
});
