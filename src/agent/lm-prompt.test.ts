import { describe, expect, it } from 'vitest';
import type { Action } from '../core/action.ts';
import { Observation, type ObservationInput } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import type { HistoryEntry } from './agent.ts';
import {
  elementScore,
  estimateTokens,
  lmActionText,
  lmReplyText,
  parseLmAction,
  renderLmObservation,
  taskTerms,
} from './lm-prompt.ts';

const bbox = { x: 0, y: 0, width: 10, height: 10 };
type El = Partial<Observation['elements'][number]> & { index: number };
function obs(elements: El[], extra: Partial<ObservationInput> = {}): Observation {
  return Observation.parse({
    url: 'http://127.0.0.1:4000/mail/inbox',
    title: 'Inbox',
    elements: elements.map((e) => ({ tag: 'a', bbox, nodeKey: `k${e.index}`, ...e })),
    ...extra,
  });
}
/** A parsed element (defaults filled in). */
const el = (e: El) => obs([e]).elements[0];
const task = (objective: string): AgentTask =>
  ({ id: 't1', objective, startUrl: 'http://127.0.0.1:4000/' }) as AgentTask;

/** A long page: 200 links whose names share no word with the task, and two that matter. */
function longPage(): Observation {
  const filler: El[] = Array.from({ length: 200 }, (_, i) => ({
    index: i,
    tag: 'a',
    name: `Newsletter item ${i}`,
  }));
  filler[137] = { index: 137, tag: 'a', name: 'Invoice from Steven Flores' };
  filler[20] = { index: 20, tag: 'input', name: 'Search mail', attributes: { type: 'search' } };
  return obs(filler, {
    texts: [
      { text: 'Total due: $412.50' },
      ...Array.from({ length: 50 }, (_, i) => ({ text: `Unrelated paragraph ${i}` })),
    ],
  });
}

describe('taskTerms', () => {
  it('keeps content words and numbers, drops stopwords and repeats, and adds the aliases of task words', () => {
    expect(
      taskTerms('Open the email from Steven Flores and tell me the total of the invoice (2 items)'),
    ).toEqual(['email', 'steven', 'flores', 'total', 'invoice', 'items', 'compose', 'message']);
    expect(taskTerms('Scale the recipe to 9 servings, 4.5 cups')).toEqual([
      'scale',
      'recipe',
      'servings',
      '4.5',
      'cups',
      'search',
      'recipes',
      'serves',
    ]);
  });
});

describe('elementScore (the ranking rule)', () => {
  const terms = taskTerms('Reply to Steven Flores');
  it('ranks an element naming the task above a bare control above an unrelated link', () => {
    const named = elementScore(terms, el({ index: 1, tag: 'a', name: 'Steven Flores', inViewport: false }));
    const control = elementScore(
      terms,
      el({ index: 2, tag: 'input', name: 'Search', attributes: { type: 'text' } }),
    );
    const other = elementScore(terms, el({ index: 3, tag: 'a', name: 'Promotions' }));
    expect(named).toBeGreaterThan(control);
    expect(control).toBeGreaterThan(other);
  });
  it('gives a dismiss control a bonus, so a blocking banner can be closed', () => {
    const accept = elementScore(terms, el({ index: 4, tag: 'button', name: 'Accept all' }));
    const button = elementScore(terms, el({ index: 5, tag: 'button', name: 'Archive' }));
    expect(accept - button).toBe(4);
  });
});

describe('elementScore, position', () => {
  it("favours the page's first elements, where its navigation and search box are", () => {
    const settings = el({ index: 2, tag: 'a', name: 'Settings' });
    const terms = taskTerms('Add a signature to outgoing mail');
    expect(elementScore(terms, settings, 1) - elementScore(terms, settings, 40)).toBe(2.5);
  });
});

describe('renderLmObservation', () => {
  it('stays within the budget and keeps the relevant elements with their original indices', () => {
    const r = renderLmObservation(
      { task: task('Open the invoice from Steven Flores'), observation: longPage(), history: [] },
      200,
    );
    expect(r.tokens).toBeLessThanOrEqual(200);
    expect(r.keptElements).toContain(137);
    expect(r.keptElements).toContain(20);
    expect(r.keptElements.length).toBeLessThan(200);
    expect(r.user).toContain('[137] a "Invoice from Steven Flores"');
    expect(r.user).toContain('[20] input search "Search mail"');
  });

  it('shows kept elements in document order and text blocks that hold numbers', () => {
    const r = renderLmObservation(
      { task: task('What is the total due on the invoice?'), observation: longPage(), history: [] },
      300,
    );
    const shown = [...r.user.matchAll(/^\[(\d+)\]/gm)].map((m) => Number(m[1]));
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    expect(shown).toEqual(r.keptElements);
    expect(r.user).toContain('- Total due: $412.50');
  });

  it('shows everything when the budget allows, and a larger budget keeps a superset', () => {
    const small = obs([
      { index: 0, name: 'Inbox' },
      { index: 1, name: 'Sent' },
    ]);
    const r = renderLmObservation({ task: task('Open sent mail'), observation: small, history: [] }, 512);
    expect(r.keptElements).toEqual([0, 1]);
    const page = longPage();
    const a = renderLmObservation({ task: task('Open the invoice'), observation: page, history: [] }, 250);
    const b = renderLmObservation({ task: task('Open the invoice'), observation: page, history: [] }, 600);
    for (const i of a.keptElements) expect(b.keptElements).toContain(i);
    for (const i of a.keptTexts) expect(b.keptTexts).toContain(i);
    expect(b.keptElements.length + b.keptTexts.length).toBeGreaterThan(
      a.keptElements.length + a.keptTexts.length,
    );
  });

  it('is deterministic, shows the last four actions with their elements, and never shows notes', () => {
    const page = obs([{ index: 3, tag: 'button', name: 'Search' }], { notes: ['SECRET NOTE: click 3'] });
    const history: HistoryEntry[] = Array.from({ length: 6 }, (_, i) => ({
      stepIndex: i,
      url: page.url,
      observation: page,
      output: { evaluation_previous_goal: '', memory: '', next_goal: '', action: [{ click: { index: 3 } }] },
      action: { type: 'click', index: 3 },
      result: { error: i === 5 ? 'covered' : null, isDone: false, success: null, extractedContent: null },
    }));
    const input = { task: task('Search'), observation: page, history };
    const r = renderLmObservation(input);
    expect(renderLmObservation(input)).toEqual(r);
    expect(r.user).not.toContain('SECRET');
    expect(r.user).toContain('3. click(3) "Search" -> ok');
    expect(r.user).toContain('6. click(3) "Search" -> failed');
    expect(r.user).not.toContain('2. click(3)');
  });

  it('estimates tokens conservatively from characters', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('x'.repeat(27))).toBe(10);
  });
});

describe('the reply: lmActionText, lmReplyText and parseLmAction', () => {
  it('writes an action as compact JSON with defaults left out, and reads it back', () => {
    const cases: Action[] = [
      { type: 'click', index: 12 },
      { type: 'input', index: 3, text: 'Paris', clear: true },
      { type: 'input', index: 3, text: 'more', clear: false },
      { type: 'select_dropdown', index: 7, text: 'Price: low to high' },
      { type: 'scroll', down: true, pages: 1 },
      { type: 'done', text: '775 calories', success: true },
    ];
    expect(lmActionText(cases[1])).toBe('{"input":{"index":3,"text":"Paris"}}');
    expect(lmActionText(cases[2])).toBe('{"input":{"index":3,"text":"more","clear":false}}');
    for (const a of cases) expect(parseLmAction(lmActionText(a))).toEqual(a);
  });
  it('writes the element before an action on one, nothing before one on no element, and reads it back', () => {
    expect(lmReplyText({ type: 'input', index: 3, text: 'Paris', clear: true })).toBe(
      '[3] {"input":{"index":3,"text":"Paris"}}',
    );
    expect(lmReplyText({ type: 'click', index: 0 })).toBe('[0] {"click":{"index":0}}');
    expect(lmReplyText({ type: 'scroll', down: true, pages: 1 })).toBe('{"scroll":{"down":true}}');
    expect(lmReplyText({ type: 'done', text: 'ok', success: true })).toBe('{"done":{"text":"ok"}}');
    const actions: Action[] = [
      { type: 'click', index: 12 },
      { type: 'select_dropdown', index: 7, text: 'Work' },
      { type: 'go_back' },
    ];
    for (const a of actions) expect(parseLmAction(lmReplyText(a))).toEqual(a);
    // The JSON's index is the action's: a reply whose pointer disagrees acts where its JSON says.
    expect(parseLmAction('[4] {"click":{"index":9}}')).toEqual({ type: 'click', index: 9 });
  });
  it('takes the first balanced object of a reply, braces inside strings included', () => {
    expect(
      parseLmAction(' {"input": {"index": 2, "text": "a {b} c"}}\nAction: {"click": {"index": 1}}'),
    ).toEqual({
      type: 'input',
      index: 2,
      text: 'a {b} c',
      clear: true,
    });
  });
  it('refuses a reply with no action, naming what is wrong', () => {
    expect(() => parseLmAction('I think we should click')).toThrow(/invalid action/);
    expect(() => parseLmAction('{"click": {"index": 1}')).toThrow(/invalid action/);
    expect(() => parseLmAction('{"fly": {}}')).toThrow(/unknown action "fly"/);
  });
});
