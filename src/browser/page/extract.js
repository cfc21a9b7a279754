// One walk of the DOM (frames and shadow roots included) that indexes the interactive elements and
// collects the visible text blocks between them. Part of the in-page script.

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
    case 'body':
    case 'html':
      return false;
    default:
      break;
  }
  const role = el.getAttribute('role');
  return (
    (role !== null && ROLES.has(role.split(' ')[0])) ||
    (el.isContentEditable && !el.parentElement?.isContentEditable) ||
    el.onclick !== null ||
    el.hasAttribute('onclick') ||
    el.hasAttribute('ng-click') ||
    el.hasAttribute('jsaction') ||
    (el.hasAttribute('tabindex') && el.tabIndex >= 0)
  );
}

export function extract(opts) {
  const maxText = opts.maxText || 120;
  const cands = [];
  const texts = [];
  const frames = {};
  const vh = innerHeight;
  const sx = scrollX;
  const sy = scrollY;
  const distOf = (top, height) => (top < 0 ? -top - height : top >= vh ? top - vh : 0);

  // A run of inline text inside one block, ended by a block child or an indexed element.
  function flush(acc) {
    if (!acc || acc.nodes.length === 0) return;
    const nodes = acc.nodes;
    acc.nodes = [];
    const text = collapse(nodes.map((n) => n.nodeValue).join(' '));
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

  // p: parent state { h1, h2 (key hash), cursor, clickable (inside an indexed clickable), parent (nearest candidate), shadow }
  // acc: the enclosing block's text accumulator, null inside an indexed clickable (its text is the element's).
  function visit(el, ctx, p, seg, acc) {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    const style = ctx.win.getComputedStyle(el);
    const display = style.display;
    if (display === 'none') return;
    const id = el.id;
    const h1 = id ? fnv(tag + '#' + id, H1) : fnv(seg, p.h1);
    const h2 = id ? fnv(tag + '#' + id, H2) : fnv(seg, p.h2);
    const cursor = style.cursor;
    const root = tag === 'body' || tag === 'html';
    const strong = isStrong(el, tag);
    const pointerOrigin = cursor === 'pointer' && p.cursor !== 'pointer' && !root;
    const oy = style.overflowY;
    const scrollable = (oy === 'auto' || oy === 'scroll') && !root && el.scrollHeight > el.clientHeight + 4;
    // Browser Use's rule: a pointer-only element inside an indexed clickable is part of it, not its own target.
    const clickable = strong || (pointerOrigin && !p.clickable);
    // Overflow clipping: what a scrolled container hides is not in view. Fixed boxes escape it.
    const clip = style.position === 'fixed' ? ctx.clip : p.clip;
    let cand = null;
    if ((clickable || scrollable) && style.visibility === 'visible') {
      const r = boxOf(el);
      if (r) {
        const vis = visiblePart(r, ctx, clip);
        const hit = vis ? hitTest(el, ctx, (vis.l + vis.r) / 2, (vis.t + vis.b) / 2) : null;
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
    const inline = display.startsWith('inline') || display === 'contents';
    let inner = acc;
    // The text of a clickable is its own (element text), even when the clickable itself is not shown.
    const innerClip = root ? clip : clipFor(el, style, ctx, clip);
    if (clickable) inner = null;
    else if (acc && (cand || !inline || innerClip !== clip)) {
      flush(acc);
      inner = { tag: inline ? acc.tag : tag, nodes: [], parent: cand || p.parent, ctx, clip: innerClip };
    }
    if (!LEAF.has(tag)) {
      const q = {
        clip: innerClip,
        h1,
        h2,
        cursor,
        clickable: p.clickable || (cand !== null && clickable),
        parent: cand || p.parent,
        shadow: p.shadow,
      };
      const textVisible = style.visibility === 'visible';
      if (tag === 'iframe' || tag === 'frame') {
        visitFrame(el, ctx, q);
      } else {
        if (el.shadowRoot) {
          const sq = { ...q, h1: fnv('#shadow', h1), h2: fnv('#shadow', h2), shadow: true };
          walkChildren(el.shadowRoot, ctx, sq, inner, textVisible, false);
        }
        walkChildren(el, ctx, q, inner, textVisible, !!el.shadowRoot);
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
    visit(
      child.doc.documentElement,
      child,
      { h1: q.h1, h2: q.h2, cursor: 'auto', clickable: false, parent: null, shadow: false, clip: child.clip },
      'html',
      acc,
    );
    flush(acc);
  }

  function walkChildren(parent, ctx, q, acc, textVisible, slotted) {
    const counts = {};
    for (let c = parent.firstChild; c; c = c.nextSibling) {
      const type = c.nodeType;
      if (type === 3) {
        // Light children of a shadow host render only through a slot.
        if (acc && textVisible && (!slotted || c.assignedSlot) && /\S/.test(c.nodeValue)) acc.nodes.push(c);
      } else if (type === 1) {
        const t = c.localName;
        const n = (counts[t] || 0) + 1;
        counts[t] = n;
        const nm = c.getAttribute('name');
        visit(c, ctx, q, nm ? `${t}[${nm}]:${n}` : `${t}:${n}`, acc);
      }
    }
  }

  const top = topCtx();
  const rootAcc = { tag: 'body', nodes: [], parent: null, ctx: top, clip: top.clip };
  visit(
    document.documentElement,
    top,
    { h1: H1, h2: H2, cursor: 'auto', clickable: false, parent: null, shadow: false, clip: top.clip },
    'html',
    rootAcc,
  );
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

  const els = [null];
  const seen = new Map();
  const kept = [0]; // kept[i]: how many kept candidates precede candidate position i
  const out = [];
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
    const ownText =
      !(c.scrollable && !isStrong(el, c.tag)) &&
      c.tag !== 'input' &&
      c.tag !== 'select' &&
      c.tag !== 'textarea';
    const text = !ownText ? '' : textOf(el, maxText) || (el.shadowRoot ? textOf(el.shadowRoot, maxText) : '');
    const attributes = attributesOf(el, c.tag, c.ctx.win);
    if (c.covered) attributes.covered = 'true';
    if (c.scrollable) attributes.scrollable = 'true';
    const explicit = el.getAttribute('role');
    out.push({
      index: c.idx,
      tag: c.tag,
      role: explicit ? explicit.split(' ')[0] : implicitRole(el, c.tag),
      name:
        c.scrollable && !ownText
          ? cap(collapse(el.getAttribute('aria-label')), maxText)
          : accName(el, c.tag, text, maxText),
      text,
      attributes,
      bbox: { x: Math.round(c.x), y: Math.round(c.y), width: Math.round(c.w), height: Math.round(c.h) },
      nodeKey: n ? `${c.key}~${n}` : c.key,
      inViewport: c.inVp,
      frame: c.ctx.path,
      inShadow: c.shadow,
      depth: c.depth,
      parentIndex: par ? par.idx : null,
    });
  }
  state.els = els;
  state.frames = frames;

  // Text blocks, plus where each sits among the elements (layout.after: kept elements before it).
  const textOut = [];
  const layout = [];
  for (const t of texts) {
    if (!t.keep) continue;
    let par = t.parent;
    while (par && !par.keep) par = par.parent;
    textOut.push({
      text: t.text,
      tag: t.tag,
      inViewport: t.inVp,
      bbox: { x: Math.round(t.x), y: Math.round(t.y), width: Math.round(t.w), height: Math.round(t.h) },
    });
    layout.push({ after: kept[t.pos], depth: par ? par.depth + 1 : 0 });
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
    elements: out,
    texts: textOut,
    layout,
    truncated,
  });
}
