// One walk of the DOM (frames and shadow roots included) that finds the interactive elements, their
// text, and the visible text blocks between them. Part of the in-page script.
//
// Speed matters (it runs at every step): each element costs one getComputedStyle and as few
// property reads as possible (style reads are the most expensive thing here: a strong element's
// cursor is read only when its descendants need it); a box is read once into numbers; text is
// gathered from the text nodes the walk passes anyway, never by a second traversal (innerText).
// Every change must keep the output byte for byte: extract-reference.test.ts runs the extractor
// of commit 4c2e6bc beside this one (fixtures/extract-reference/).

import { fnv, H1, H2, LEAF, ROLES, SKIP } from './dom.js';
import { boxOf, childCtx, clipFor, hitTest, topCtx, visiblePartOf } from './geometry.js';
import { toResult } from './rows.js';

/** Native tags, ARIA roles, editing hosts and inline handlers: an element that is a target on its own. */
export function isStrong(el, tag) {
  switch (tag) {
    case 'a':
    case 'area':
      if (el.hasAttribute('href')) return true;
      break;
    case 'button':
    case 'select':
    case 'textarea':
    case 'summary':
      return true;
    case 'input':
      return el.type !== 'hidden';
    default:
      break;
  }
  if (el.onclick !== null) return true; // also set by an onclick attribute
  if (!el.hasAttributes()) return false;
  const role = el.getAttribute('role');
  if (role !== null && ROLES.has(role.split(' ')[0])) return true;
  if (el.hasAttribute('contenteditable') && el.isContentEditable && !el.parentElement?.isContentEditable)
    return true;
  return (
    el.hasAttribute('ng-click') ||
    el.hasAttribute('jsaction') ||
    (el.hasAttribute('tabindex') && el.tabIndex >= 0)
  );
}

/**
 * Indexes the page. Returns the JSON string of compact rows (see rows.js). State between the walk's
 * levels: `p` = { h1, h2 (key hash), cursor, clickable (inside an indexed clickable), parent
 * (nearest candidate), own (innermost indexed clickable, whose text is being gathered), shadow,
 * clip (what the ancestors' overflow leaves visible) }; `acc` = the enclosing block's text run
 * (null inside a clickable: that text is the element's).
 */
export function extract(opts) {
  const maxText = opts.maxText || 120;
  const cands = [];
  const texts = [];
  const frames = {};
  const vh = innerHeight;
  const sx = scrollX;
  const sy = scrollY;
  const distOf = (top, height) => (top < 0 ? -top - height : top >= vh ? top - vh : 0);
  const textCap = maxText * 2;

  /** One Range per document, moved from run to run: each new Range is a live object the DOM tracks. */
  function rangeFor(ctx) {
    if (ctx.range === null) ctx.range = ctx.doc.createRange();
    return ctx.range;
  }

  /** Ends a run of inline text (at a block boundary or an indexed element) as a text block. */
  function flush(acc) {
    if (!acc || acc.first === null) return;
    const text = acc.parts.join('').replace(/\s+/g, ' ').trim();
    // A block holding nothing but this text (a heading, a cell, a price) is its own box; a run
    // between other blocks needs a Range, which costs several times more.
    const el = acc.el;
    let r;
    if (el !== null && el.firstElementChild === null && acc.first.parentNode === el) {
      r = el.getBoundingClientRect();
    } else {
      const range = rangeFor(acc.ctx);
      range.setStartBefore(acc.first);
      range.setEndAfter(acc.last);
      r = range.getBoundingClientRect();
    }
    acc.parts = [];
    acc.first = null;
    acc.last = null;
    if (!text) return;
    const width = r.width;
    const height = r.height;
    if (width < 2 || height < 2) return; // screen-reader-only text
    const ctx = acc.ctx;
    const l = r.left + ctx.ox;
    const t = r.top + ctx.oy;
    const vis = visiblePartOf(l, t, r.right + ctx.ox, r.bottom + ctx.oy, acc.clip);
    texts.push({
      text: text.length > 500 ? text.slice(0, 499) + '\u2026' : text,
      tag: acc.tag,
      parent: acc.parent,
      pos: cands.length,
      keep: true,
      x: l + sx,
      y: t + sy,
      w: width,
      h: height,
      inVp: vis !== null,
      dist: vis ? 0 : distOf(t, height),
    });
  }

  /** A text node goes to the clickables around it, or else to the block's text run. */
  function addText(node, acc, own) {
    const v = node.nodeValue;
    const blank = !/\S/.test(v);
    if (own !== null) {
      for (let o = own; o !== null; o = o.owner) {
        if (o.len > textCap) continue;
        if (!blank && gap(o, node, v)) o.parts.push(' ');
        o.parts.push(blank ? ' ' : v);
        o.len += v.length;
        o.lastNode = node;
      }
    } else if (acc !== null) {
      if (blank) {
        if (acc.first !== null) acc.parts.push(' ');
        return;
      }
      if (acc.first === null) acc.first = node;
      else if (gap(acc, node, v)) acc.parts.push(' ');
      acc.parts.push(v);
      acc.last = node;
    }
  }

  /**
   * Text of sibling elements with no whitespace between them (`<b>$84</b><s>$99</s>`) renders
   * apart when a number or price follows a word or number; glue within a word stays (`trail<b>s</b>`).
   */
  function gap(sink, node, v) {
    const prev = sink.lastNode ?? sink.last;
    if (!prev || prev.parentNode === node.parentNode) return false;
    return /[\p{L}\p{N}]$/u.test(prev.nodeValue) && /^[\p{N}$€£¥₹]/u.test(v);
  }

  /** A block boundary inside a clickable separates words, as rendering does. */
  function separate(own) {
    for (let o = own; o !== null; o = o.owner) o.parts.push(' ');
  }

  function visit(el, ctx, p, nth, acc) {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    const style = ctx.win.getComputedStyle(el);
    const display = style.display;
    if (display === 'none') return;
    // Key: chained from the parent's by tag, name and position; an id anchors it on its own.
    const id = el.id;
    let h1;
    let h2;
    if (id) {
      h1 = fnv(id, fnv(tag, H1 ^ 35));
      h2 = fnv(id, fnv(tag, H2 ^ 35));
    } else {
      const nm = el.hasAttributes() ? (el.getAttribute('name') ?? '') : '';
      h1 = Math.imul(fnv(nm, fnv(tag, p.h1)) ^ nth, 16777619) >>> 0;
      h2 = Math.imul(fnv(nm, fnv(tag, p.h2)) ^ nth, 16777619) >>> 0;
    }
    const root = tag === 'body' || tag === 'html';
    const strong = !root && isStrong(el, tag);
    // Inside an indexed clickable a pointer cursor changes nothing (Browser Use's nesting rule). A
    // strong element is clickable whatever its cursor: it is read below, only if its descendants
    // will need it (when the element is not indexed).
    let cursor = p.clickable ? p.cursor : strong ? null : style.cursor;
    const pointerOrigin = !p.clickable && !root && cursor === 'pointer' && p.cursor !== 'pointer';
    const clickable = strong || pointerOrigin;
    const frame = tag === 'iframe' || tag === 'frame';
    const hasKids = el.firstElementChild !== null || el.shadowRoot !== null || frame;
    // Only a box with child elements can scroll or clip anything worth knowing about.
    // (overflow-y visible implies overflow-x visible, but for the rare x-only `clip`.)
    const overflow = hasKids && !root ? style.overflowY : 'visible';
    const scrollable =
      (overflow === 'auto' || overflow === 'scroll') && el.scrollHeight > el.clientHeight + 4;
    // Fixed boxes escape their ancestors' overflow clipping.
    const clip = p.clip !== ctx.clip && style.position === 'fixed' ? ctx.clip : p.clip;
    let cand = null;
    if ((clickable || scrollable) && style.visibility === 'visible') {
      const r = boxOf(el);
      if (r) {
        // The box in top-viewport coordinates, each DOMRect field read once (every read is a call
        // into the browser).
        const width = r.width;
        const height = r.height;
        const l = r.left + ctx.ox;
        const t = r.top + ctx.oy;
        const rr = r.right + ctx.ox;
        const b = r.bottom + ctx.oy;
        const vis = visiblePartOf(l, t, rr, b, clip);
        // A clickable whose center reaches it vouches for what lies inside its box: no hit test.
        const pp = p.parent;
        const vouched =
          vis !== null && pp?.clear === true && l >= pp.l && rr <= pp.r && t >= pp.t && b <= pp.b;
        const hit = vis && !vouched ? hitTest(el, ctx, (vis.l + vis.r) / 2, (vis.t + vis.b) / 2) : null;
        cand = {
          el,
          tag,
          ctx,
          parent: pp,
          owner: p.own,
          clickable,
          scrollable,
          shadow: p.shadow,
          h1,
          h2,
          x: l + sx,
          y: t + sy,
          w: width,
          h: height,
          // the box in top-viewport coordinates, and whether its center was seen to reach it
          l,
          t,
          r: rr,
          b,
          clear: clickable && vis !== null && (vouched || hit === null),
          inVp: vis !== null,
          covered: hit !== null && hit.kind === 'covered',
          dist: vis ? 0 : distOf(t, height),
          parts: [],
          len: 0,
          lastNode: null,
          keep: true,
          idx: 0,
          depth: 0,
        };
        flush(acc);
        cands.push(cand);
      }
    }
    if (cursor === null) cursor = cand !== null ? p.cursor : style.cursor;
    if (LEAF.has(tag) || (el.firstChild === null && !hasKids)) {
      if (tag === 'br') {
        if (p.own !== null) separate(p.own);
        else if (acc?.first) acc.parts.push(' ');
      }
      return;
    }
    const inline = display.startsWith('inline') || display === 'contents';
    const innerClip = overflow === 'visible' ? clip : clipFor(el, ctx, clip);
    const own = cand !== null && clickable ? cand : p.own;
    let inner = acc;
    // The text of a clickable is its own (element text), even when the clickable is not shown.
    if (clickable) inner = null;
    else if (acc && (cand || !inline || innerClip !== clip)) {
      flush(acc);
      inner = newRun(inline ? acc.tag : tag, inline ? null : el, cand || p.parent, ctx, innerClip);
    }
    if (!inline && p.own !== null) separate(p.own);
    if (!hasKids) {
      // Only text children: the common leaf (a link, a label, a price).
      let visible = -1;
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType !== 3) continue;
        if (visible === -1) visible = style.visibility === 'visible' ? 1 : 0;
        if (visible === 0) break;
        addText(c, inner, own);
      }
    } else {
      const q = {
        h1,
        h2,
        cursor,
        clickable: p.clickable || (cand !== null && clickable),
        parent: cand || p.parent,
        own,
        shadow: p.shadow,
        clip: innerClip,
      };
      if (frame) {
        visitFrame(el, ctx, q);
      } else {
        if (el.shadowRoot) {
          const sq = { ...q, h1: fnv('#shadow', h1), h2: fnv('#shadow', h2), shadow: true };
          walkChildren(el.shadowRoot, ctx, sq, inner, style, false);
        }
        walkChildren(el, ctx, q, inner, style, el.shadowRoot !== null);
      }
    }
    if (!inline && p.own !== null) separate(p.own);
    if (inner !== acc) flush(inner);
  }

  function visitFrame(el, ctx, q) {
    const path = ctx.path ? ctx.path + '.' + ctx.frames : String(ctx.frames);
    ctx.frames++;
    let child = null;
    try {
      child = childCtx(ctx, el, path);
    } catch {
      child = null; // cross-origin: not reachable from here
    }
    if (!child) return;
    frames[path] = el;
    const acc = q.clickable ? null : newRun('body', null, null, child, child.clip);
    visit(child.doc.documentElement, child, rootState(q.h1, q.h2, child.clip), 1, acc);
    flush(acc);
  }

  function walkChildren(parent, ctx, q, acc, style, slotted) {
    const counts = new Map(); // per tag name, for the key's position
    let visible = -1; // read lazily: most elements hold no text of their own
    for (let c = parent.firstChild; c; c = c.nextSibling) {
      const type = c.nodeType;
      if (type === 3) {
        // Light children of a shadow host render only through a slot.
        if (slotted && !c.assignedSlot) continue;
        if (visible === -1) visible = style.visibility === 'visible' ? 1 : 0;
        if (visible === 1) addText(c, acc, q.own);
      } else if (type === 1) {
        const t = c.localName;
        const n = (counts.get(t) || 0) + 1;
        counts.set(t, n);
        visit(c, ctx, q, n, acc);
      }
    }
  }

  const newRun = (tag, el, parent, ctx, clip) => ({
    tag,
    el,
    parts: [],
    first: null,
    last: null,
    parent,
    ctx,
    clip,
  });
  const rootState = (h1, h2, clip) => ({
    h1,
    h2,
    cursor: 'auto',
    clickable: false,
    parent: null,
    own: null,
    shadow: false,
    clip,
  });

  const top = topCtx();
  const rootAcc = newRun('body', null, null, top, top.clip);
  visit(document.documentElement, top, rootState(H1, H2, top.clip), 1, rootAcc);
  flush(rootAcc);
  return toResult(cands, texts, frames, opts);
}
