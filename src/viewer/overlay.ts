import type { Action, Element, Observation } from '../core/index.ts';

/** A highlight box in percent of the screenshot's width and height, clipped to the image. */
export interface OverlayBox {
  left: number;
  top: number;
  width: number;
  height: number;
  /** True when part of the element lies outside the screenshot (the box was clipped). */
  clipped: boolean;
}

/** The element an action targets, by its index in this observation; null for element-free actions. */
export function actedElement(obs: Observation, action: Action): Element | null {
  const index =
    action.type === 'click' || action.type === 'input' || action.type === 'select_dropdown'
      ? action.index
      : action.type === 'scroll'
        ? (action.index ?? null)
        : null;
  if (index === null) return null;
  return obs.elements.find((e) => e.index === index) ?? null;
}

/**
 * Where an element's box falls on the observation's screenshot. Element boxes are in page
 * (document) CSS pixels while the screenshot shows only the viewport, possibly downscaled: so the
 * scroll offset is subtracted and the result is expressed in percent of the viewport, which is
 * also percent of the image whatever size it is displayed at. Returns null when there is no
 * screenshot or the element lies entirely outside the viewport.
 */
export function overlayBox(obs: Observation, el: Element): OverlayBox | null {
  const shot = obs.screenshot;
  if (!shot) return null;
  // Old or partial observations may lack viewport sizes: then the screenshot is taken to be 1:1.
  const vw = obs.scroll.viewportWidth > 0 ? obs.scroll.viewportWidth : shot.width;
  const vh = obs.scroll.viewportHeight > 0 ? obs.scroll.viewportHeight : (shot.height * vw) / shot.width;
  const x0 = el.bbox.x - obs.scroll.x;
  const y0 = el.bbox.y - obs.scroll.y;
  const x1 = x0 + Math.max(1, el.bbox.width);
  const y1 = y0 + Math.max(1, el.bbox.height);
  const cx0 = Math.max(0, x0);
  const cy0 = Math.max(0, y0);
  const cx1 = Math.min(vw, x1);
  const cy1 = Math.min(vh, y1);
  if (cx1 <= cx0 || cy1 <= cy0) return null;
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return {
    left: r((100 * cx0) / vw),
    top: r((100 * cy0) / vh),
    width: r((100 * (cx1 - cx0)) / vw),
    height: r((100 * (cy1 - cy0)) / vh),
    clipped: cx0 !== x0 || cy0 !== y0 || cx1 !== x1 || cy1 !== y1,
  };
}

/** A one-line description of an element for captions: `[12] <button> "Add to cart"`. */
export function describeElement(el: Element): string {
  const label = el.name || el.text || el.attributes.placeholder || el.attributes['aria-label'] || '';
  return `[${el.index}] <${el.tag}>${label ? ` "${label.length > 80 ? `${label.slice(0, 77)}...` : label}"` : ''}`;
}
