import { describe, expect, it } from 'vitest';
import { elementAt } from '../core/index.ts';
import type { BranchJournal } from './branch-journal.ts';
import type { BranchResult } from './branches.ts';
import { page } from './fixtures.ts';
import { mineCriticalStates } from './mine.ts';
import { divergedComparability, MAX_REPLAY_WAITS, mapAction } from './replay.ts';
import { HOME, LOOKALIKE_FAILURE, RESULTS, SUCCESS } from './scenarios.test-helpers.ts';
import { continuation, FakeShop, verifyCart } from './verify.test-helpers.ts';
import { type VerifyOptions, verifyTargets } from './verify.ts';
import { formatVerification, summarizeVerification } from './verify-stats.ts';
import { baselineTargets, minerTargets } from './verify-targets.ts';

function options(over: Partial<VerifyOptions> & { env?: () => FakeShop } = {}): VerifyOptions {
  return {
    makeEnv: async () => (over.env ? over.env() : new FakeShop()),
    start: async (env) => ({ observation: await env.reset({ startUrl: HOME.url }) }),
    verify: verifyCart,
    makeAgent: () => continuation(false),
    policyId: 'sticky',
    notesFor: () => [],
    workers: 1,
    ...over,
  };
}

function memoryJournal(): BranchJournal & { map: Map<string, BranchResult> } {
  const map = new Map<string, BranchResult>();
  return { map, get: (k) => map.get(k), put: (r) => void map.set(r.key, r) };
}

const runs = new Map([SUCCESS, LOOKALIKE_FAILURE].map((t) => [t.id, t]));

describe('mapAction', () => {
  it('re-targets an element by identity when the page lists it at another index', () => {
    const shuffled = page(
      RESULTS.url,
      [...RESULTS.elements].reverse().map((e) => ({
        tag: e.tag,
        role: e.role,
        name: e.name,
        href: e.attributes.href,
        nodeKey: e.nodeKey,
      })),
    );
    const mapped = mapAction({ type: 'click', index: 4 }, RESULTS, shuffled);
    expect(mapped).toEqual({ type: 'click', index: 3 });
    expect(elementAt(shuffled, 3)?.name).toBe('Trail Runner 2');
  });

  it('moves a navigate recorded on another port of the world to the live one', () => {
    const from = { ...HOME, url: 'http://127.0.0.1:7311/shop/' };
    const to = { ...HOME, url: 'http://127.0.0.1:40001/shop/' };
    expect(mapAction({ type: 'navigate', url: '/shop/deals', new_tab: false }, from, to)).toEqual({
      type: 'navigate',
      url: 'http://127.0.0.1:40001/shop/deals',
      new_tab: false,
    });
  });

  it('returns null when the element is not on the page, and passes element-free actions through', () => {
    expect(mapAction({ type: 'click', index: 5 }, RESULTS, HOME)).toBeNull();
    expect(mapAction({ type: 'go_back' }, RESULTS, HOME)).toEqual({ type: 'go_back' });
  });
});

describe('verifyTargets', () => {
  it('confirms the lookalike divergence when the continuation cannot recover', async () => {
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const { targets, skipped } = minerTargets(criticalStates, runs);
    expect(skipped).toEqual([]);
    expect(targets).toHaveLength(1);
    expect(targets[0].i).toBe(1);
    const r = await verifyTargets(targets, options());
    const v = r.results[0].verification;
    expect(v.label).toBe('confirmed');
    expect(v.replay.reproduced).toBe(true);
    expect(v.replay.comparability).toBeGreaterThan(0.99);
    expect(v.success?.success).toBe(true);
    expect(v.failure?.success).toBe(false);
    expect(v.failure?.steps[0]).toEqual({ url: RESULTS.url, action: 'click(5)' });
    expect(v.episodes).toBe(2);
    expect(r.episodes).toBe(2);
  });

  it('labels a divergence not-causal when the same continuation recovers from the failure action', async () => {
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const { targets } = minerTargets(criticalStates, runs);
    const r = await verifyTargets(
      targets,
      options({ makeAgent: () => continuation(true), policyId: 'recovering' }),
    );
    expect(r.results[0].verification.label).toBe('not-causal');
    expect(r.results[0].verification.reason).toMatch(/recovers/);
  });

  it('reads the comparability of a replay that diverged back off its detail (the state is not recorded)', () => {
    expect(divergedComparability('state 3 replayed at comparability 0.512 < 0.9')).toBe(0.512);
    expect(divergedComparability('step 1: click [4] has no counterpart on http://x/shop')).toBe(0);
  });

  it('labels replay-failed when the world no longer reproduces the prefix', async () => {
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const { targets } = minerTargets(criticalStates, runs);
    const r = await verifyTargets(targets, options({ env: () => new FakeShop({ brokenSearch: true }) }));
    const v = r.results[0].verification;
    expect(v.label).toBe('replay-failed');
    expect(v.replay.reproduced).toBe(false);
    expect(v.replay.comparability).toBeLessThan(0.9);
    expect(v.success).toBeNull();
  });

  it('waits for a page that renders late, up to MAX_REPLAY_WAITS, and keeps the waits out of the prefix', async () => {
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const [t] = minerTargets(criticalStates, runs).targets;
    // At the results page itself (the state) and on the product page (a prefix click on a listing).
    const targets = [t, { ...t, id: `${t.id}:product`, i: 2, j: 2 }];
    const slow = (n: number) => options({ env: () => new FakeShop({ slowResults: n }) });
    const late = await verifyTargets(targets, slow(2));
    const onTime = await verifyTargets(targets, options());
    for (const [k, r] of late.results.entries()) {
      const v = r.verification;
      expect(v.replay.reproduced).toBe(true);
      expect(v.label).toBe(onTime.results[k].verification.label);
      // The branch steps start at the branch action: the inserted waits are not among them.
      expect(v.success?.steps).toEqual(onTime.results[k].verification.success?.steps);
      expect(v.failure?.steps).toEqual(onTime.results[k].verification.failure?.steps);
    }
    expect(late.results[0].verification.label).toBe('confirmed');
    const tooLate = await verifyTargets(targets, slow(MAX_REPLAY_WAITS + 1));
    for (const r of tooLate.results) expect(r.verification.label).toBe('replay-failed');
    expect(tooLate.results[1].verification.replay.detail).toMatch(/step 1: click\(4\) has no counterpart/);
  });

  it('resumes from the journal without running episodes again', async () => {
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const { targets } = minerTargets(criticalStates, runs);
    const journal = memoryJournal();
    const first = await verifyTargets(targets, options({ journal }));
    expect(journal.map.size).toBe(2);
    let made = 0;
    const second = await verifyTargets(
      targets,
      options({
        journal,
        env: () => {
          made++;
          return new FakeShop();
        },
      }),
    );
    expect(second.episodes).toBe(0);
    expect(second.fromJournal).toBe(2);
    expect(made).toBeLessThanOrEqual(1);
    expect(second.results[0].verification.label).toBe(first.results[0].verification.label);
  });

  it('checks the baselines on the same pair and shares the success branch of one state', async () => {
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const { targets } = minerTargets(criticalStates, runs);
    const baselines = baselineTargets(targets, 7);
    // The two runs differ at step 1 (the lookalike) and step 3 (the same answer on other pages is
    // equal text, so only step 1 differs): both baselines land on step 1 here.
    expect(baselines.map((b) => [b.method, b.i])).toEqual([
      ['first-diff', 1],
      ['random', 1],
    ]);
    const r = await verifyTargets([...targets, ...baselines], options());
    // Three targets on one state: one success branch and one failure branch.
    expect(r.episodes).toBe(2);
    const summary = summarizeVerification(r.results, {
      cost: { episodes: r.episodes, wallMs: r.wallMs, fromJournal: r.fromJournal },
      options: { policy: 'sticky', replayThreshold: 0.9, maxSteps: 30, workers: 1, seed: 7 },
      skipped: [],
    });
    for (const m of ['miner', 'first-diff', 'random'] as const) {
      expect(summary.methods[m].overall).toMatchObject({
        states: 1,
        replayed: 1,
        confirmed: 1,
        confirmedShare: 1,
      });
      expect(summary.methods[m].perSite.shop.confirmed).toBe(1);
    }
    expect(summary.cost.perMinerState.episodes).toBe(2);
    const text = formatVerification(summary);
    expect(text).toMatch(/overall\s+100\.0% \(1\/1\)/);
    expect(text).toMatch(/lookalike-element/);
  });

  it('skips states whose runs are missing or not world tasks', async () => {
    const { criticalStates } = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
    const { targets, skipped } = minerTargets(criticalStates, new Map([[SUCCESS.id, SUCCESS]]));
    expect(targets).toEqual([]);
    expect(skipped[0].reason).toMatch(/not in the runs/);
  });
});
