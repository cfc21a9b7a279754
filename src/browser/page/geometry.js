// Frames, boxes and hit testing, in top-viewport coordinates. Part of the in-page script.

export function topCtx() {
  return {
    doc: document,
    win: window,
    ox: 0,
    oy: 0,
    clip: { l: 0, t: 0, r: innerWidth, b: innerHeight },
    parent: null,
    frameEl: null,
    path: '',
    frames: 0,
    range: null,
  };
}

export function childCtx(p, fe, path) {
  const doc = fe.contentDocument;
  if (!doc?.documentElement) return null;
  const r = fe.getBoundingClientRect();
  const cs = p.win.getComputedStyle(fe);
  const pl = parseFloat(cs.paddingLeft) || 0;
  const pt = parseFloat(cs.paddingTop) || 0;
  const ox = p.ox + r.left + fe.clientLeft + pl;
  const oy = p.oy + r.top + fe.clientTop + pt;
  const w = fe.clientWidth - pl - (parseFloat(cs.paddingRight) || 0);
  const h = fe.clientHeight - pt - (parseFloat(cs.paddingBottom) || 0);
  const clip = {
    l: Math.max(p.clip.l, ox),
    t: Math.max(p.clip.t, oy),
    r: Math.min(p.clip.r, ox + w),
    b: Math.min(p.clip.b, oy + h),
  };
  return { doc, win: doc.defaultView, ox, oy, clip, parent: p, frameEl: fe, path, frames: 0, range: null };
}

/** The frame context of an element at this moment (offsets change when a parent scrolls). */
export function ctxOf(el) {
  const chain = [];
  let w = el.ownerDocument.defaultView;
  while (w && w !== window) {
    const fe = w.frameElement;
    if (!fe) break;
    chain.unshift(fe);
    w = fe.ownerDocument.defaultView;
  }
  let c = topCtx();
  for (const fe of chain) c = childCtx(c, fe, '') || c;
  return c;
}

function deepHit(root, x, y) {
  let h = root.elementFromPoint(x, y);
  while (h?.shadowRoot) {
    const inner = h.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === h) break;
    h = inner;
  }
  return h;
}

/** Whether `a` contains `b` in the composed tree (through shadow roots). */
function composedContains(a, b) {
  for (let n = b; n; n = n.parentNode || n.host) if (n === a) return true;
  return false;
}

/** null when (x, y) in top-viewport coordinates reaches `el`; else what is there instead. */
export function hitTest(el, ctx, x, y) {
  const hit = deepHit(ctx.doc, x - ctx.ox, y - ctx.oy);
  if (!hit) return { kind: 'outside', by: null };
  if (!composedContains(el, hit)) {
    if (composedContains(hit, el)) return { kind: 'ancestor', by: hit };
    const label = hit.closest ? hit.closest('label') : null;
    if (!(label && label.control === el)) return { kind: 'covered', by: hit };
  }
  for (let c = ctx; c.parent; c = c.parent) {
    const h = deepHit(c.parent.doc, x - c.parent.ox, y - c.parent.oy);
    if (h !== c.frameEl) return { kind: 'covered', by: h };
  }
  return null;
}

/** The visible part of a client rect (top-viewport coordinates), or null. */
export function visiblePart(r, ctx, clip = ctx.clip) {
  return visiblePartOf(r.left + ctx.ox, r.top + ctx.oy, r.right + ctx.ox, r.bottom + ctx.oy, clip);
}

/** The visible part of the box (left, top, right, bottom) in top-viewport coordinates, or null. */
export function visiblePartOf(left, top, right, bottom, clip) {
  const l = Math.max(left, clip.l);
  const t = Math.max(top, clip.t);
  const r = Math.min(right, clip.r);
  const b = Math.min(bottom, clip.b);
  return r - l >= 1 && b - t >= 1 ? { l, t, r, b } : null;
}

/** The clip rect for the content of `el` (top-viewport coordinates), whose overflow is not visible. */
export function clipFor(el, ctx, clip) {
  const r = el.getBoundingClientRect();
  return {
    l: Math.max(clip.l, r.left + ctx.ox),
    t: Math.max(clip.t, r.top + ctx.oy),
    r: Math.min(clip.r, r.right + ctx.ox),
    b: Math.min(clip.b, r.bottom + ctx.oy),
  };
}

export function boxOf(el) {
  const r = el.getBoundingClientRect();
  if (r.width >= 1 && r.height >= 1) return r;
  // A zero-size inline wrapper (a link around a floated card) is as large as its children.
  let l = Infinity;
  let t = Infinity;
  let rr = -Infinity;
  let b = -Infinity;
  for (const c of el.children) {
    const cr = c.getBoundingClientRect();
    if (cr.width < 1 || cr.height < 1) continue;
    l = Math.min(l, cr.left);
    t = Math.min(t, cr.top);
    rr = Math.max(rr, cr.right);
    b = Math.max(b, cr.bottom);
  }
  return rr > l ? { left: l, top: t, right: rr, bottom: b, width: rr - l, height: b - t } : null;
}
