// In-page halves of the actions: probing, focusing, choosing, scrolling by element index. Part of
// the in-page script; it ends by installing window.__rmsweb.

import { cap, collapse, describe, TYPED_INPUTS, textOf, VALUE_INPUTS } from './dom.js';
import { extract } from './extract.js';
import { boxOf, ctxOf, hitTest, visiblePart } from './geometry.js';
import { state } from './state.js';

function lookup(i) {
  const el = state.els[i];
  if (!el)
    return {
      error: `there is no element ${i} on this page (valid: 1-${state.els.length - 1})`,
      kind: 'not_found',
    };
  if (!el.isConnected)
    return {
      error: `element ${i} is no longer in the page (it changed since the last observation)`,
      kind: 'detached',
    };
  return { el };
}

function probe(i) {
  const f = lookup(i);
  return f.error ? f : probeEl(f.el, `element ${i}`);
}

/** Scrolls `el` into view when needed and says where a click would land, or why it cannot. */
function probeEl(el, label) {
  const tag = el.localName;
  const st = el.ownerDocument.defaultView.getComputedStyle(el);
  if (st.display === 'none' || st.visibility !== 'visible' || !boxOf(el))
    return { error: `${label} ${describe(el)} is not visible` };
  let ctx = ctxOf(el);
  let vis = visiblePart(boxOf(el), ctx);
  const r0 = boxOf(el);
  if (!vis || vis.r - vis.l < r0.width - 1 || vis.b - vis.t < r0.height - 1) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    ctx = ctxOf(el);
    vis = visiblePart(boxOf(el), ctx);
  }
  if (!vis) return { error: `${label} ${describe(el)} could not be scrolled into view` };
  const x = (vis.l + vis.r) / 2;
  const y = (vis.t + vis.b) / 2;
  const hit = hitTest(el, ctx, x, y);
  if (hit && hit.kind === 'covered')
    return { error: `${label} is covered by ${describe(hit.by)}`, kind: 'covered' };
  const disabled = el.disabled === true || el.getAttribute('aria-disabled') === 'true';
  const link = el.closest ? el.closest('a[href]') : null;
  const form = el.form || null;
  const opensTab =
    (link && link.target === '_blank') ||
    (form && form.target === '_blank' && (el.type === 'submit' || tag === 'button'));
  return { x, y, disabled, tag, opensTab: !!opensTab, describe: describe(el), popups: state.popups };
}

function editableIn(el) {
  const ok = (e) =>
    (e.localName === 'input' && (TYPED_INPUTS.has(e.type) || VALUE_INPUTS.has(e.type))) ||
    e.localName === 'textarea' ||
    e.isContentEditable;
  if (ok(el)) return el;
  const inner = el.querySelectorAll('input, textarea, [contenteditable=""], [contenteditable="true"]');
  const found = Array.from(inner).filter(ok);
  return found.length === 1 ? found[0] : null;
}

function focusEditable(i) {
  const f = lookup(i);
  if (f.error) return f;
  const el = editableIn(f.el);
  if (!el) return { error: `element ${i} ${describe(f.el)} is not editable` };
  if (el.disabled) return { error: `element ${i} is disabled` };
  if (el.readOnly) return { error: `element ${i} is read-only` };
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  el.focus();
  const active = el.getRootNode().activeElement;
  if (active !== el && !el.contains(active))
    return { error: `element ${i} ${describe(el)} could not be focused` };
  const kind =
    el.localName === 'input' && VALUE_INPUTS.has(el.type)
      ? 'value'
      : el.isContentEditable
        ? 'editable'
        : 'text';
  state.target = el;
  return { kind, value: kind === 'editable' ? el.textContent : el.value };
}

function selectAll() {
  const el = state.target;
  if (!el) return false;
  if (el.isContentEditable) {
    const sel = el.ownerDocument.getSelection();
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    sel.removeAllRanges();
    sel.addRange(range);
  } else if (typeof el.select === 'function') {
    try {
      el.select();
    } catch {
      // number inputs refuse select() in some engines; typing replaces nothing then
    }
  }
  return true;
}

function caretToEnd() {
  const el = state.target;
  if (!el) return false;
  if (el.isContentEditable) {
    const sel = el.ownerDocument.getSelection();
    sel.selectAllChildren(el);
    sel.collapseToEnd();
  } else if (typeof el.setSelectionRange === 'function') {
    try {
      el.setSelectionRange(el.value.length, el.value.length);
    } catch {
      // email/number inputs have no selection API
    }
  }
  return true;
}

function setValue(value) {
  const el = state.target;
  const proto = Object.getPrototypeOf(el);
  const desc = Object.getOwnPropertyDescriptor(proto, 'value');
  if (desc?.set) desc.set.call(el, value);
  else el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return el.value === value
    ? { value: el.value }
    : { error: `the input rejected the value "${value}" (it holds "${el.value}")` };
}

function readValue() {
  const el = state.target;
  return el ? (el.isContentEditable ? el.textContent : el.value) : null;
}

function matchText(candidates, text) {
  const want = collapse(text);
  const lower = want.toLowerCase();
  const exact = candidates.indexOf(want);
  if (exact >= 0) return exact;
  const ci = candidates.findIndex((t) => t.toLowerCase() === lower);
  if (ci >= 0) return ci;
  const partial = candidates.map((t, k) => [t, k]).filter(([t]) => t.toLowerCase().includes(lower));
  return partial.length === 1 ? partial[0][1] : -1;
}

function choose(i, text) {
  const f = lookup(i);
  if (f.error) return f;
  const el = f.el;
  if (el.localName === 'select') {
    if (el.disabled) return { error: `element ${i} is disabled` };
    const texts = Array.from(el.options, (o) => collapse(o.text));
    let k = matchText(texts, text);
    if (k < 0)
      k = matchText(
        Array.from(el.options, (o) => o.value),
        text,
      );
    if (k < 0)
      return {
        error: `element ${i} has no option "${text}"; options: ${cap(texts.join(', '), 300)}`,
        kind: 'not_found',
      };
    if (el.options[k].disabled) return { error: `option "${texts[k]}" of element ${i} is disabled` };
    el.focus();
    if (el.multiple) el.options[k].selected = true;
    else el.selectedIndex = k;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { chosen: texts[k] };
  }
  // An ARIA listbox/combobox: find the option and let the caller click it like a user would.
  let scope = el;
  const controls = el.getAttribute('aria-controls') || el.getAttribute('aria-owns');
  if (controls) {
    const root = el.getRootNode();
    const target = root.getElementById ? root.getElementById(controls.split(/\s+/)[0]) : null;
    if (target) scope = target;
  }
  const options = Array.from(scope.querySelectorAll('[role="option"]')).filter((o) => o.checkVisibility?.());
  if (!options.length) {
    return {
      error: `element ${i} ${describe(el)} is not a <select> and shows no options; click it to open it, then click the option`,
    };
  }
  const k = matchText(
    options.map((o) => textOf(o, 200)),
    text,
  );
  if (k < 0)
    return {
      error: `element ${i} has no option "${text}"; options: ${cap(options.map((o) => textOf(o, 40)).join(', '), 300)}`,
      kind: 'not_found',
    };
  const pr = probeEl(options[k], `option "${textOf(options[k], 40)}"`);
  return pr.error ? pr : { click: { x: pr.x, y: pr.y }, chosen: textOf(options[k], 80) };
}

function scrollableAncestor(el) {
  for (let n = el; n && n.nodeType === 1; n = n.parentElement || n.getRootNode()?.host) {
    const tag = n.localName;
    if (tag === 'body' || tag === 'html') return null;
    const oy = n.ownerDocument.defaultView.getComputedStyle(n).overflowY;
    if ((oy === 'auto' || oy === 'scroll') && n.scrollHeight > n.clientHeight + 4) return n;
  }
  return null;
}

function scroll(i, down, pages) {
  let target = null;
  let win = window;
  if (i !== null && i !== undefined) {
    const f = lookup(i);
    if (f.error) return f;
    target = scrollableAncestor(f.el);
    win = f.el.ownerDocument.defaultView;
  }
  if (target) {
    const before = target.scrollTop;
    target.scrollBy({ top: (down ? 1 : -1) * pages * target.clientHeight, behavior: 'instant' });
    return { moved: target.scrollTop - before, what: describe(target) };
  }
  const before = win.scrollY;
  win.scrollBy({ top: (down ? 1 : -1) * pages * win.innerHeight, behavior: 'instant' });
  return { moved: win.scrollY - before, what: 'the page' };
}

Object.defineProperty(window, '__rmsweb', {
  value: { state, extract, probe, focusEditable, selectAll, caretToEnd, setValue, readValue, choose, scroll },
  configurable: true,
  enumerable: false,
  writable: false,
});
