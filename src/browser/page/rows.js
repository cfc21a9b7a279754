// From the walk's findings to the compact rows extract.ts expects: the element cap, indices,
// depths, names and attributes. Part of the in-page script.

import { accName, attributesOf, hex, implicitRole, resetCaches } from './dom.js';
import { state } from './state.js';

/** Marks all but the `max` entries nearest the viewport as dropped; returns how many were dropped. */
function capList(list, max) {
  if (list.length <= max) return 0;
  const byDist = list.slice().sort((a, b) => a.dist - b.dist);
  for (let i = max; i < byDist.length; i++) byDist[i].keep = false;
  return list.length - max;
}

function nearestKept(c) {
  let par = c.parent;
  while (par && !par.keep) par = par.parent;
  return par;
}

/**
 * Numbers the kept candidates from 1 (stored in `state.els` for actions) and returns the JSON:
 * elements as rows [index, tag, role, name (null: same as text), text, attributes, x, y, w, h,
 * nodeKey, inViewport (0/1), frame, inShadow (0/1), depth, parentIndex (0: none)], texts as rows
 * [text, tag, x, y, w, h, inViewport (0/1), elements before it, depth].
 */
export function toResult(cands, texts, frames, opts) {
  const maxText = opts.maxText || 120;
  const truncated = capList(cands, opts.maxElements || 2000);
  capList(texts, opts.maxTexts || 3000);
  resetCaches();
  const els = [null];
  const seen = new Map();
  const kept = [0]; // kept[i]: how many kept candidates precede candidate position i
  const rows = [];
  for (const c of cands) {
    kept.push(kept[kept.length - 1] + (c.keep ? 1 : 0));
    if (!c.keep) continue;
    c.idx = els.length;
    els.push(c.el);
    const par = nearestKept(c);
    c.depth = par ? par.depth + 1 : 0;
    const el = c.el;
    const key = hex(c.h1) + hex(c.h2);
    const n = seen.get(key) || 0;
    seen.set(key, n + 1);
    let text = c.parts.length ? c.parts.join('').replace(/\s+/g, ' ').trim() : '';
    if (text.length > maxText) text = text.slice(0, maxText - 1) + '\u2026';
    const attributes = attributesOf(el, c.tag, c.ctx.win);
    if (c.covered) attributes.covered = 'true';
    if (c.scrollable) attributes.scrollable = 'true';
    const explicit = attributes.role;
    // A container indexed only for scrolling is named only by its label.
    const name = c.clickable ? accName(el, c.tag, text, maxText) : attributes['aria-label'] || '';
    rows.push([
      c.idx,
      c.tag,
      explicit ? explicit.split(' ')[0] : implicitRole(el, c.tag),
      name === text ? null : name,
      text,
      attributes,
      Math.round(c.x),
      Math.round(c.y),
      Math.round(c.w),
      Math.round(c.h),
      n ? `${key}~${n}` : key,
      c.inVp ? 1 : 0,
      c.ctx.path,
      c.shadow ? 1 : 0,
      c.depth,
      par ? par.idx : 0,
    ]);
  }
  state.els = els;
  state.frames = frames;

  const textRows = [];
  for (const t of texts) {
    if (!t.keep) continue;
    const par = nearestKept(t);
    const r = (v) => Math.round(v);
    textRows.push([
      t.text,
      t.tag,
      r(t.x),
      r(t.y),
      r(t.w),
      r(t.h),
      t.inVp ? 1 : 0,
      kept[t.pos],
      par ? par.depth + 1 : 0,
    ]);
  }

  const vh = innerHeight;
  const se = document.scrollingElement || document.documentElement;
  const pageHeight = Math.max(se ? se.scrollHeight : 0, vh);
  const below = Math.max(0, pageHeight - (scrollY + vh));
  return JSON.stringify({
    url: location.href,
    title: document.title,
    // False while the parser is still running (e.g. held at a script behind a loading sheet).
    ready: document.readyState !== 'loading',
    scroll: {
      x: Math.round(scrollX),
      y: Math.round(scrollY),
      viewportWidth: innerWidth,
      viewportHeight: vh,
      pageHeight,
      pagesAbove: Math.round((scrollY / vh) * 10) / 10,
      pagesBelow: Math.round((below / vh) * 10) / 10,
    },
    elements: rows,
    texts: textRows,
    truncated,
  });
}
