import { describe, expect, it } from 'vitest';
import { Element, Observation } from '../core/index.ts';
import { actedElement, overlayBox } from './overlay.ts';

const el = (index: number, bbox: { x: number; y: number; width: number; height: number }) =>
  Element.parse({ index, tag: 'button', bbox, nodeKey: `k${index}` });

function obs(o: {
  scrollY?: number;
  vw?: number;
  vh?: number;
  shot?: [number, number] | null;
  elements?: Element[];
}) {
  return Observation.parse({
    url: 'http://x/',
    elements: o.elements ?? [],
    screenshot: o.shot === null ? null : { hash: 'h', width: o.shot?.[0] ?? 400, height: o.shot?.[1] ?? 300 },
    scroll: { y: o.scrollY ?? 0, viewportWidth: o.vw ?? 800, viewportHeight: o.vh ?? 600 },
  });
}

describe('overlayBox', () => {
  it('subtracts the scroll offset and expresses the box in percent of the viewport (so any image scale fits)', () => {
    const b = overlayBox(obs({ scrollY: 500 }), el(2, { x: 300, y: 700, width: 180, height: 44 }));
    expect(b).toEqual({ left: 37.5, top: 33.333, width: 22.5, height: 7.333, clipped: false });
  });

  it('clips a box that crosses the viewport edge and flags it', () => {
    const b = overlayBox(obs({ scrollY: 0 }), el(1, { x: 700, y: 580, width: 200, height: 40 }));
    expect(b).toEqual({ left: 87.5, top: 96.667, width: 12.5, height: 3.333, clipped: true });
  });

  it('returns null for an element outside the viewport or without a screenshot', () => {
    expect(overlayBox(obs({ scrollY: 0 }), el(1, { x: 10, y: 900, width: 50, height: 20 }))).toBeNull();
    expect(overlayBox(obs({ shot: null }), el(1, { x: 10, y: 10, width: 50, height: 20 }))).toBeNull();
  });

  it('treats the screenshot as 1:1 with the viewport when the viewport size was not recorded', () => {
    const b = overlayBox(
      obs({ vw: 0, vh: 0, shot: [1000, 500] }),
      el(1, { x: 100, y: 50, width: 100, height: 50 }),
    );
    expect(b).toEqual({ left: 10, top: 10, width: 10, height: 10, clipped: false });
  });
});

describe('actedElement', () => {
  it('finds the element an indexed action targets and nothing for element-free actions', () => {
    const o = obs({
      elements: [el(0, { x: 0, y: 0, width: 1, height: 1 }), el(4, { x: 0, y: 0, width: 1, height: 1 })],
    });
    expect(actedElement(o, { type: 'click', index: 4 })?.nodeKey).toBe('k4');
    expect(actedElement(o, { type: 'input', index: 0, text: 'a', clear: true })?.nodeKey).toBe('k0');
    expect(actedElement(o, { type: 'click', index: 9 })).toBeNull();
    expect(actedElement(o, { type: 'go_back' })).toBeNull();
    expect(actedElement(o, { type: 'scroll', down: true, pages: 1 })).toBeNull();
  });
});
