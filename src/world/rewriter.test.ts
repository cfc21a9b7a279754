import { describe, expect, it } from 'vitest';
import { Task } from '../core/task.ts';
import { flatEqual } from './grounding/ground.ts';
import { createOfflineRewriter, rewriteRawQueryOffline, worldRawQueries } from './rewriter.ts';
import type { RawQuery } from './site.ts';
import { World } from './world.ts';

const world = new World(1);
const MINE = ['mail', 'forms', 'homes'];
const corpus = worldRawQueries(world);

/** Every k-th query of a site's corpus: a deterministic sample spread over its templates. */
function sample(site: string, n: number): RawQuery[] {
  const qs = corpus.filter((q) => q.site === site);
  const step = Math.max(1, Math.floor(qs.length / n));
  return qs.filter((_, i) => i % step === 0).slice(0, n);
}

describe('offline rewriter', () => {
  it('has a corpus of at least 200 raw queries per site, each grounded in a template', () => {
    for (const site of world.sites.keys())
      expect(corpus.filter((q) => q.site === site).length).toBeGreaterThanOrEqual(200);
    expect(corpus.every((q) => world.template(q.grounding.template) !== undefined)).toBe(true);
  });

  it('grounds sampled corpus queries into tasks equal to their grounding, from the text alone', () => {
    for (const site of MINE) {
      const qs = sample(site, 30);
      let equal = 0;
      const misses: string[] = [];
      for (const q of qs) {
        const r = rewriteRawQueryOffline({ site: q.site, text: q.text }, world);
        const v = r.feasible ? r.task.verifier : null;
        if (
          v?.kind === 'world' &&
          v.template === q.grounding.template &&
          flatEqual(v.params, q.grounding.params)
        )
          equal++;
        else misses.push(`${q.text} -> ${r.feasible ? JSON.stringify(r.task.verifier) : r.reason}`);
      }
      expect(equal / qs.length, `${site}: ${misses.join(' | ')}`).toBeGreaterThanOrEqual(0.9);
    }
  }, 120_000);

  it('produces clean, verifiable tasks worded by the template', () => {
    const q = sample('homes', 5)[2];
    const r = rewriteRawQueryOffline(q, world);
    expect(r.feasible).toBe(true);
    if (!r.feasible) return;
    const task = Task.parse(r.task);
    expect(task.suite).toBe('world');
    expect(task.startUrl).toMatch(/^http:\/\/127\.0\.0\.1:7311\/homes\//);
    const entry = world.template(q.grounding.template)!;
    const params = (task.verifier as { params: Record<string, unknown> }).params;
    expect(task.objective).toBe(entry.template.draftFor!(params as never, entry.site.data)!.objective);
    expect(task.objective).not.toBe(q.text);
    expect(task.meta?.rawQuery).toBe(q.text);
    const verdict = world.verify(task, 'untouched-session', null);
    expect(verdict.success).toBe(false);
    expect(verdict.failedConditions.length).toBeGreaterThan(0);
  }, 60_000);

  it('rejects text that cannot be grounded, with a reason', () => {
    const nonsense = [
      { site: 'mail', text: 'asdf qwerty zxcv' },
      { site: 'homes', text: "what's the weather in paris tomorrow" },
      { site: 'forms', text: 'sing me a song about the ocean' },
      { site: 'mail', text: '' },
      { site: 'nowhere', text: 'cheapest condo in austin' },
      { site: 'homes', text: 'cheapest 2 bedroom condo on mars' },
    ];
    for (const q of nonsense) {
      const r = rewriteRawQueryOffline(q, world);
      expect(r.feasible, q.text).toBe(false);
      if (!r.feasible) expect(r.reason.length).toBeGreaterThan(5);
    }
  }, 60_000);

  it('serves `tasks synth --model offline`: site from the start URL, outcomes per query', async () => {
    const rw = createOfflineRewriter({ world });
    const q = sample('mail', 3)[1];
    const out = await rw.rewrite([
      { query: q.text, startUrl: 'http://127.0.0.1:7311/mail/folder/inbox', line: 1 },
      { query: 'zzzz yyyy', site: 'forms', line: 2 },
    ]);
    expect(out).toHaveLength(2);
    expect(out[0].feasible && out[0].task.site).toBe('mail');
    expect(out[1].feasible).toBe(false);
    expect(out[1].query.line).toBe(2);
  }, 60_000);
});
