// One walk of the DOM (frames and shadow roots included) that indexes the interactive elements and
// collects the visible text blocks between them. Part of the in-page script.
//
// Speed matters (it runs at every step): each element costs one getComputedStyle and as few
// property reads as possible (a style read is the most expensive thing here), and the result
// travels as compact rows that extract.ts turns back into objects.

import {
  accName,
  attributesOf,
  cap,
  collapse,
  fnv,
  H1,
  H2,
  hex,
  implicitRole,
  LEAF,
  ROLES,
  SKIP,
  textOf,
} from './dom.js';
import { boxOf, childCtx, clipFor, hitTest, topCtx, visiblePart } from './geometry.js';
import { state } from './state.js';

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

export function extract(opts) {
  resetLabelIndex();
  const maxText = opts.maxText || 120;
  const cands = [];
  const texts = [];
  const frames = {};
  const vh = innerHeight;
  const sx = scrollX;
  const sy = scrollY;
  const inside = (r, ctx, box) =>
    r.left + ctx.ox >= box.l &&
    r.right + ctx.ox <= box.r &&
    r.top + ctx.oy >= box.t &&
    r.bottom + ctx.oy <= box.b;
  const distOf = (top, height) => (top < 0 ? -top - height : top >= vh ? top - vh : 0);

  // A run of inline text inside one block, ended by a block child or an indexed element.
  function flush(acc) {
    if (!acc || acc.nodes.length === 0) return;
    const nodes = acc.nodes;
    acc.nodes = [];
    const text = collapse(nodes.length === 1 ? nodes[0].nodeValue : nodes.map((n) => n.nodeValue).join(' '));
    if (!text) return;
    const range = acc.ctx.doc.createRange();
    range.setStartBefore(nodes[0]);
    range.setEndAfter(nodes[nodes.length - 1]);
    const r = range.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return; // screen-reader-only text
    const vis = visiblePart(r, acc.ctx, acc.clip);
    texts.push({
      text: cap(text, 500),
      tag: acc.tag,
      parent: acc.parent,
      pos: cands.length,
      keep: true,
      x: r.left + acc.ctx.ox + sx,
      y: r.top + acc.ctx.oy + sy,
      w: r.width,
      h: r.height,
      inVp: vis !== null,
      dist: vis ? 0 : distOf(r.top + acc.ctx.oy, r.height),
    });
  }

  // p: parent state { h1, h2 (key hash), cursor, clickable (inside an indexed clickable), parent
  //    (nearest candidate), shadow, clip (what the ancestors' overflow leaves visible) }.
  // acc: the enclosing block's text accumulator; null inside a clickable (its text is the element's).
  // nth: the element's position among same-tag siblings (for its key).
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
      const nm = el.getAttribute('name');
      h1 = Math.imul(fnv(nm ?? '', fnv(tag, p.h1)) ^ nth, 16777619) >>> 0;
      h2 = Math.imul(fnv(nm ?? '', fnv(tag, p.h2)) ^ nth, 16777619) >>> 0;
    }
    const root = tag === 'body' || tag === 'html';
    // Inside an indexed clickable a pointer cursor changes nothing (Browser Use's nesting rule).
    const cursor = p.clickable ? p.cursor : style.cursor;
    const strong = !root && isStrong(el, tag);
    const pointerOrigin = !p.clickable && !root && cursor === 'pointer' && p.cursor !== 'pointer';
    const clickable = strong || pointerOrigin;
    const frame = tag === 'iframe' || tag === 'frame';
    const hasKids = el.firstElementChild !== null || el.shadowRoot !== null || frame;
    // Only a box with child elements can scroll or clip anything worth knowing about.
    const overflow = hasKids && !root ? style.overflow : 'visible';
    const scrollable =
      overflow !== 'visible' && /auto|scroll/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 4;
    // Fixed boxes escape their ancestors' overflow clipping.
    const clip = p.clip !== ctx.clip && style.position === 'fixed' ? ctx.clip : p.clip;
    let cand = null;
    if ((clickable || scrollable) && style.visibility === 'visible') {
      const r = boxOf(el);
      if (r) {
        const vis = visiblePart(r, ctx, clip);
        // A clickable's center that reaches it vouches for what lies inside its box.
        const par = p.parent;
        const vouched = vis !== null && par?.clear === true && inside(r, ctx, par);
        const hit = vis && !vouched ? hitTest(el, ctx, (vis.l + vis.r) / 2, (vis.t + vis.b) / 2) : null;
        cand = {
          el,
          tag,
          parent: p.parent,
          ctx,
          shadow: p.shadow,
          key: hex(h1) + hex(h2),
          x: r.left + ctx.ox + sx,
          y: r.top + ctx.oy + sy,
          w: r.width,
          h: r.height,
          // top-viewport box, and whether its center was seen to reach it (see `vouched`)
          l: r.left + ctx.ox,
          t: r.top + ctx.oy,
          r: r.right + ctx.ox,
          b: r.bottom + ctx.oy,
          clear: clickable && vis !== null && (vouched || hit === null),
          inVp: vis !== null,
          covered: hit !== null && hit.kind === 'covered',
          scrollable,
          dist: vis ? 0 : distOf(r.top + ctx.oy, r.height),
          keep: true,
          idx: 0,
          depth: 0,
        };
        flush(acc);
        cands.push(cand);
      }
    }
    if (LEAF.has(tag) || (el.firstChild === null && !hasKids)) return;
    const inline = display.startsWith('inline') || display === 'contents';
    const innerClip = overflow === 'visible' ? clip : clipFor(el, ctx, clip);
    let inner = acc;
    // The text of a clickable is its own (element text), even when the clickable is not shown.
    if (clickable) inner = null;
    else if (acc && (cand || !inline || innerClip !== clip)) {
      flush(acc);
      inner = { tag: inline ? acc.tag : tag, nodes: [], parent: cand || p.parent, ctx, clip: innerClip };
    }
    if (!hasKids) {
      collectText(el, inner, style, false);
    } else {
      const q = {
        h1,
        h2,
        cursor,
        clickable: p.clickable || (cand !== null && clickable),
        parent: cand || p.parent,
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
    const acc = q.clickable ? null : { tag: 'body', nodes: [], parent: null, ctx: child, clip: child.clip };
    const top = {
      h1: q.h1,
      h2: q.h2,
      cursor: 'auto',
      clickable: false,
      parent: null,
      shadow: false,
      clip: child.clip,
    };
    visit(child.doc.documentElement, child, top, 1, acc);
    flush(acc);
  }

  /** Text nodes of an element without element children. */
  function collectText(el, acc, style, slotted) {
    if (acc === null) return;
    let visible = -1; // read lazily: most elements hold no text of their own
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType !== 3 || !/\S/.test(c.nodeValue)) continue;
      // Light children of a shadow host render only through a slot.
      if (slotted && !c.assignedSlot) continue;
      if (visible === -1) visible = style.visibility === 'visible' ? 1 : 0;
      if (visible === 0) return;
      acc.nodes.push(c);
    }
  }

  function walkChildren(parent, ctx, q, acc, style, slotted) {
    const counts = {};
    let visible = -1;
    for (let c = parent.firstChild; c; c = c.nextSibling) {
      const type = c.nodeType;
      if (type === 3) {
        if (acc === null || !/\S/.test(c.nodeValue) || (slotted && !c.assignedSlot)) continue;
        if (visible === -1) visible = style.visibility === 'visible' ? 1 : 0;
        if (visible === 1) acc.nodes.push(c);
      } else if (type === 1) {
        const t = c.localName;
        const n = (counts[t] || 0) + 1;
        counts[t] = n;
        visit(c, ctx, q, n, acc);
      }
    }
  }

  const top = topCtx();
  const rootAcc = { tag: 'body', nodes: [], parent: null, ctx: top, clip: top.clip };
  const rootState = {
    h1: H1,
    h2: H2,
    cursor: 'auto',
    clickable: false,
    parent: null,
    shadow: false,
    clip: top.clip,
  };
  visit(document.documentElement, top, rootState, 1, rootAcc);
  flush(rootAcc);

  // Over the cap: keep the viewport, then what lies nearest to it.
  const capList = (list, max) => {
    if (list.length <= max) return 0;
    const byDist = list.slice().sort((a, b) => a.dist - b.dist);
    for (let i = max; i < byDist.length; i++) byDist[i].keep = false;
    return list.length - max;
  };
  const truncated = capList(cands, opts.maxElements || 2000);
  capList(texts, opts.maxTexts || 3000);

  // Rows: [index, tag, role, name (null: same as text), text, attributes, x, y, w, h, nodeKey,
  //        inViewport (0/1), frame, inShadow (0/1), depth, parentIndex (0: none)]
  const els = [null];
  const seen = new Map();
  const kept = [0]; // kept[i]: how many kept candidates precede candidate position i
  const rows = [];
  for (const c of cands) {
    kept.push(kept[kept.length - 1] + (c.keep ? 1 : 0));
    if (!c.keep) continue;
    c.idx = els.length;
    els.push(c.el);
    let par = c.parent;
    while (par && !par.keep) par = par.parent;
    c.depth = par ? par.depth + 1 : 0;
    const el = c.el;
    const n = seen.get(c.key) || 0;
    seen.set(c.key, n + 1);
    // A container indexed only for scrolling shows its content as text blocks, not as its own text.
    const scrollOnly = c.scrollable && !isStrong(el, c.tag);
    const formControl = c.tag === 'input' || c.tag === 'select' || c.tag === 'textarea';
    const text =
      scrollOnly || formControl
        ? ''
        : textOf(el, maxText) || (el.shadowRoot ? textOf(el.shadowRoot, maxText) : '');
    const attributes = attributesOf(el, c.tag, c.ctx.win);
    if (c.covered) attributes.covered = 'true';
    if (c.scrollable) attributes.scrollable = 'true';
    const explicit = attributes.role;
    const name = scrollOnly ? attributes['aria-label'] || '' : accName(el, c.tag, text, maxText);
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
      n ? `${c.key}~${n}` : c.key,
      c.inVp ? 1 : 0,
      c.ctx.path,
      c.shadow ? 1 : 0,
      c.depth,
      par ? par.idx : 0,
    ]);
  }
  state.els = els;
  state.frames = frames;

  // Text rows: [text, tag, x, y, w, h, inViewport (0/1), elements before it, depth]
  const textRows = [];
  for (const t of texts) {
    if (!t.keep) continue;
    let par = t.parent;
    while (par && !par.keep) par = par.parent;
    textRows.push([
      t.text,
      t.tag,
      Math.round(t.x),
      Math.round(t.y),
      Math.round(t.w),
      Math.round(t.h),
      t.inVp ? 1 : 0,
      kept[t.pos],
      par ? par.depth + 1 : 0,
    ]);
  }

  const se = document.scrollingElement || document.documentElement;
  const pageHeight = Math.max(se ? se.scrollHeight : 0, vh);
  const below = Math.max(0, pageHeight - (sy + vh));
  return JSON.stringify({
    url: location.href,
    title: document.title,
    scroll: {
      x: Math.round(sx),
      y: Math.round(sy),
      viewportWidth: innerWidth,
      viewportHeight: vh,
      pageHeight,
      pagesAbove: Math.round((sy / vh) * 10) / 10,
      pagesBelow: Math.round((below / vh) * 10) / 10,
    },
    elements: rows,
    texts: textRows,
    truncated,
  });
}
