import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Observation } from '../../core/observation.ts';
import { Rng } from '../../core/rng.ts';
import { randomAction } from './random-play.ts';
import { describeRun, type HarnessRun, WorldHarness } from './solve-harness.ts';

describe('random actions', () => {
  it('are seeded and only target elements of the observation', () => {
    const obs = Observation.parse({
      url: 'http://127.0.0.1/x',
      elements: [
        { index: 3, tag: 'a', name: 'Home', bbox: { x: 0, y: 0, width: 10, height: 10 }, nodeKey: 'a' },
        {
          index: 5,
          tag: 'input',
          attributes: { type: 'text' },
          bbox: { x: 0, y: 0, width: 10, height: 10 },
          nodeKey: 'b',
        },
        {
          index: 8,
          tag: 'select',
          attributes: { options: 'One|Two' },
          bbox: { x: 0, y: 0, width: 10, height: 10 },
          nodeKey: 'c',
        },
      ],
    });
    const a = Array.from({ length: 40 }, (_, i) => randomAction(obs, new Rng(`t:${i}`)));
    const b = Array.from({ length: 40 }, (_, i) => randomAction(obs, new Rng(`t:${i}`)));
    expect(a).toEqual(b);
    for (const x of a)
      if ('index' in x && x.index !== undefined && x.index !== null) expect([3, 5, 8]).toContain(x.index);
    expect(new Set(a.map((x) => x.type))).toEqual(
      new Set(['click', 'input', 'select_dropdown', 'scroll', 'go_back']),
    );
  });
});

describe('random clicking agent in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('scores near zero (success rate at most 5%)', async () => {
    // One seeded task of every site, 15 random actions each, then a random answer. The larger
    // measurement is bench/world-baselines.ts; this keeps CI bounded.
    const rng = new Rng('random-floor');
    const all = h.tasks();
    const sample = [...new Set(all.map((t) => t.site))].map((site) =>
      rng.pick(all.filter((t) => t.site === site)),
    );
    const runs: HarnessRun[] = [];
    for (const t of sample) runs.push(await h.random(t, { seed: 11, steps: 15 }));
    expect(runs.every((r) => !r.error)).toBe(true);
    expect(runs.every((r) => r.actions === 16)).toBe(true);
    const wins = runs.filter((r) => r.verdict.success);
    expect(wins.length / runs.length, wins.map(describeRun).join('\n')).toBeLessThanOrEqual(0.05);
  }, 240_000);
});
