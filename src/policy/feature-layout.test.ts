import { describe, expect, it } from 'vitest';
import { CANDIDATE, PAIR, pairDense } from './candidate-features.ts';
import { ELEMENT } from './element-features.ts';
import { FeatureLayout } from './feature-layout.ts';
import { DEFAULT_FEATURIZER, featurizeState, pairFeatures, STATE } from './featurizer.ts';
import { MATCH } from './match-features.ts';
import { syntheticTrajectories, tinyState } from './testing/synthetic.ts';

describe('named feature layouts', () => {
  it('refuses a record whose names and values disagree with the layout', () => {
    const L = new FeatureLayout(['a', 'b', 'c'] as const);
    const out = new Float32Array(6);
    L.write(out, 1, { a: 1, b: 2, c: 3 });
    expect([...out]).toEqual([0, 0, 0, 1, 2, 3]);
    expect(L.read(out, 1, 'b')).toBe(2);
    expect(() => L.write(out, 0, { a: 1, b: 2 } as never)).toThrow(/"c" has no value/);
    expect(() => L.write(out, 0, { a: 1, b: 2, c: 3, d: 4 } as never)).toThrow(/not in the layout: d/);
    expect(() => L.col('d' as never)).toThrow(/no feature named "d"/);
    expect(() => new FeatureLayout(['a', 'a'])).toThrow(/twice/);
  });

  it('appends the match features to the element features under their own names', () => {
    for (const n of MATCH.names) expect(ELEMENT.names).toContain(n);
    expect(ELEMENT.col(MATCH.names[0])).toBe(ELEMENT.size - MATCH.size);
  });

  it('every featurizer writes exactly its layout, and readers find values under their names', () => {
    // Writing goes through FeatureLayout.write, which throws on any name mismatch: featurizing
    // real states covers every record the featurizers build.
    for (const t of syntheticTrajectories(4, 5, 2)) {
      for (let i = 0; i < t.steps.length; i++) {
        const f = featurizeState(
          {
            task: t.task,
            observation: t.steps[i].observation,
            history: t.steps.slice(0, i).map((s) => s.action),
          },
          DEFAULT_FEATURIZER,
        );
        expect(f.stateDense.length).toBe(STATE.size);
        expect(f.elemDense.length).toBe(f.elements.length * ELEMENT.size);
        expect(f.candDense.length).toBe(f.candidates.length * CANDIDATE.size);
        for (let p = -1; p < f.elements.length; p++)
          expect(pairFeatures(f, p).length).toBe(f.candidates.length * PAIR.size);
      }
    }
    const f = featurizeState(tinyState(), DEFAULT_FEATURIZER);
    const search = f.elements.findIndex((e) => e.tag === 'input');
    const link = f.elements.findIndex((e) => e.tag === 'a');
    expect(ELEMENT.read(f.elemDense, search, 'textEntry')).toBe(1);
    expect(ELEMENT.read(f.elemDense, search, 'link')).toBe(0);
    expect(ELEMENT.read(f.elemDense, link, 'link')).toBe(1);
    expect(ELEMENT.read(f.elemDense, link, 'hasHref')).toBe(1);
    expect(ELEMENT.read(f.elemDense, link, 'textEntry')).toBe(0);
    expect(STATE.read(f.stateDense, 0, 'last_none')).toBe(1);
    expect(STATE.read(f.stateDense, 0, 'numTextEntries')).toBeCloseTo(Math.log1p(1) / 3, 6);
    const quoted = f.candidates.findIndex((c) => c.text === 'Trail Runner 2');
    expect(CANDIDATE.read(f.candDense, quoted, 'kindText')).toBe(1);
    expect(CANDIDATE.read(f.candDense, quoted, 'src_quoted')).toBe(1);
    const scroll = f.candidates.findIndex((c) => c.kind === 'scroll');
    expect(CANDIDATE.read(f.candDense, scroll, 'kindScroll')).toBe(1);
    expect(CANDIDATE.read(f.candDense, scroll, 'src_quoted')).toBe(0);
    const pair = pairDense(f.candidates, f.elements[search], search, false, f.ctx);
    expect(PAIR.read(pair, quoted, 'noOptionsKnown')).toBe(1);
  });
});
