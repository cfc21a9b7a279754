// Element semantics: roles, accessible names, text, attributes. Part of the in-page script (see
// ../extract.ts): the files of page/ are concatenated into one function body, so they share scope.

export const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'meta',
  'link',
  'title',
  'base',
]);
// Tags whose subtree holds no separately indexable element.
export const LEAF = new Set([
  'select',
  'textarea',
  'svg',
  'option',
  'datalist',
  'video',
  'audio',
  'canvas',
  'img',
  'input',
  'object',
  'embed',
  'math',
]);
export const ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'combobox',
  'switch',
  'textbox',
  'searchbox',
  'slider',
  'spinbutton',
  'treeitem',
  'listbox',
  'gridcell',
]);
export const TYPED_INPUTS = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number']);
export const VALUE_INPUTS = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
const MAX_ATTR = 80;

export const collapse = (s) => (s ? String(s).replace(/\s+/g, ' ').trim() : '');
export const cap = (s, n) => (s.length > n ? s.slice(0, n - 1) + '\u2026' : s);

// Two FNV-1a variants chained from the parent's hash: a 64-bit key without building path strings.
export const fnv = (s, h) => {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
};
export const H1 = 2166136261;
export const H2 = 3323198485;
// Byte to two hex digits: four lookups are an order of magnitude faster than toString(16) + padStart.
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** A 32-bit unsigned integer as eight hex digits. */
export const hex = (n) =>
  HEX_BYTE[n >>> 24] + HEX_BYTE[(n >>> 16) & 255] + HEX_BYTE[(n >>> 8) & 255] + HEX_BYTE[n & 255];

/**
 * Rendered text of an element, whitespace-collapsed and capped. innerText runs in C++ and skips
 * hidden parts; a shadow root (no innerText) falls back to its text content.
 */
export function textOf(root, max) {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is wanted, hidden parts excluded
  const t = root.nodeType === 1 ? root.innerText : root.textContent;
  return cap(collapse(t), max);
}

export function implicitRole(el, tag) {
  switch (tag) {
    case 'a':
    case 'area':
      return el.hasAttribute('href') ? 'link' : '';
    case 'button':
    case 'summary':
      return 'button';
    case 'select':
      return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'textarea':
      return 'textbox';
    case 'option':
      return 'option';
    case 'input': {
      const t = el.type;
      if (t === 'button' || t === 'submit' || t === 'reset' || t === 'image') return 'button';
      if (t === 'checkbox' || t === 'radio') return t;
      if (t === 'range') return 'slider';
      if (t === 'number') return 'spinbutton';
      if (t === 'search') return 'searchbox';
      if (el.hasAttribute('list')) return 'combobox';
      return TYPED_INPUTS.has(t) ? 'textbox' : '';
    }
    default:
      return el.isContentEditable ? 'textbox' : '';
  }
}

// label[for] elements by id, per document or shadow root: `el.labels` scans the whole tree on each
// call, which made naming every control of a large form quadratic.
let labelIndex = new WeakMap();

/** Forgets the label index and the cached origin (the DOM or a frame's document may have changed). */
export function resetCaches() {
  labelIndex = new WeakMap();
  originWin = null;
}

function labelsOf(el) {
  const root = el.getRootNode();
  let byId = labelIndex.get(root);
  if (!byId) {
    byId = new Map();
    for (const l of root.querySelectorAll('label[for]')) {
      const id = l.htmlFor;
      const list = byId.get(id);
      if (list) list.push(l);
      else byId.set(id, [l]);
    }
    labelIndex.set(root, byId);
  }
  const out = el.id ? (byId.get(el.id) ?? []).slice() : [];
  const wrap = el.parentElement?.closest('label');
  if (wrap && !wrap.htmlFor && !out.includes(wrap)) out.push(wrap);
  return out;
}

/** A label's text; textContent is cheap, but a label wrapping a select would list its options. */
function labelText(l) {
  return l.getElementsByTagName('select').length ? textOf(l, 200) : l.textContent;
}

export function accName(el, tag, text, max) {
  const lb = el.getAttribute('aria-labelledby');
  if (lb) {
    const root = el.getRootNode();
    const parts = lb.split(/\s+/).map((id) => {
      const r = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
      return r ? textOf(r, max) : '';
    });
    const t = collapse(parts.join(' '));
    if (t) return cap(t, max);
  }
  const al = collapse(el.getAttribute('aria-label'));
  if (al) return cap(al, max);
  if (tag === 'input' || tag === 'select' || tag === 'textarea') {
    const labels = labelsOf(el);
    if (labels.length) {
      const t = collapse(labels.map(labelText).join(' '));
      if (t) return cap(t, max);
    }
    if (tag === 'input') {
      const t = el.type;
      if (t === 'submit' || t === 'reset' || t === 'button')
        return cap(collapse(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : ''), max);
      if (t === 'image') return cap(collapse(el.alt), max);
    }
    return cap(collapse(el.getAttribute('placeholder') || el.getAttribute('title')), max);
  }
  if (text) return text;
  if (tag === 'img') return cap(collapse(el.alt), max);
  const icon = el.querySelector('img[alt], [aria-label], svg title');
  if (icon) {
    const t = collapse(
      icon.localName === 'img'
        ? icon.alt
        : icon.localName === 'title'
          ? icon.textContent
          : icon.getAttribute('aria-label'),
    );
    if (t) return cap(t, max);
  }
  return cap(collapse(el.getAttribute('title')), max);
}

// The last frame's origin: `location.origin` builds a new string on every read, and a page of links
// asks for it once per link.
let originWin = null;
let originOf = '';

/** The link target: path + query + hash on this origin, the full URL elsewhere. */
function hrefOf(el, win) {
  if (!el.hasAttribute('href')) return null;
  const abs = el.href; // resolved by the browser, cheaper than new URL()
  if (abs.startsWith('javascript:')) return 'javascript:';
  if (originWin !== win) {
    originWin = win;
    originOf = win.location.origin;
  }
  const origin = originOf;
  return abs.startsWith(origin) && abs.charAt(origin.length) === '/' ? abs.slice(origin.length) : abs;
}

// Attributes copied as they are (whitespace-collapsed, capped) when present.
const PLAIN_ATTRS = new Set([
  'role',
  'name',
  'placeholder',
  'aria-label',
  'title',
  'aria-checked',
  'aria-selected',
  'aria-expanded',
  'aria-pressed',
  'aria-current',
  'aria-haspopup',
  'data-state',
]);

export function attributesOf(el, tag, win) {
  const a = {};
  // Names as strings, in the element's order: iterating `el.attributes` wraps each one in an Attr.
  const names = el.getAttributeNames();
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (!PLAIN_ATTRS.has(name)) continue;
    const v = collapse(el.getAttribute(name));
    if (v) a[name] = cap(v, MAX_ATTR);
  }
  if (el.id && el.id.length <= 40) a.id = el.id;
  switch (tag) {
    case 'a':
    case 'area': {
      const href = hrefOf(el, win);
      if (href !== null) a.href = cap(href, 200);
      if (el.target === '_blank') a.target = '_blank';
      break;
    }
    case 'img':
      if (el.alt) a.alt = cap(collapse(el.alt), MAX_ATTR);
      break;
    case 'button':
      if (el.hasAttribute('type')) a.type = el.type;
      break;
    case 'input': {
      const t = el.type;
      a.type = t;
      if (t === 'checkbox' || t === 'radio') {
        a.checked = String(el.checked);
        if (el.value && el.value !== 'on') a.value = cap(collapse(el.value), MAX_ATTR);
      } else if (t === 'password') {
        if (el.value) a.value = '\u2022'.repeat(Math.min(el.value.length, 12));
      } else if (t !== 'file' && el.value) {
        a.value = cap(el.value, MAX_ATTR);
      }
      if (t === 'image' && el.alt) a.alt = cap(collapse(el.alt), MAX_ATTR);
      if (el.min) a.min = el.min;
      if (el.max) a.max = el.max;
      if (el.readOnly) a.readonly = 'true';
      break;
    }
    case 'textarea':
      if (el.value) a.value = cap(collapse(el.value), MAX_ATTR);
      if (el.readOnly) a.readonly = 'true';
      break;
    case 'select': {
      // One pass over the options for both lists (Array.from with a callback is several times slower).
      const opts = el.options;
      let sel = '';
      let nsel = 0;
      let all = '';
      for (let i = 0; i < opts.length; i++) {
        const o = opts[i];
        const t = collapse(o.text);
        if (o.selected) sel = nsel++ ? sel + ', ' + t : t;
        all += (i ? '|' : '') + (t.includes('|') ? t.replace(/\|/g, '/') : t);
      }
      if (sel) a.selected = cap(sel, MAX_ATTR);
      // Every option (code splits on '|'); the text view shortens long lists.
      a.options = cap(all, 4000);
      if (el.multiple) a.multiple = 'true';
      break;
    }
    default:
      break;
  }
  if (el.disabled || a['aria-disabled'] === 'true' || el.getAttribute('aria-disabled') === 'true')
    a.disabled = 'true';
  if (el.required) a.required = 'true';
  if (el.isContentEditable && tag !== 'input' && tag !== 'textarea') a.contenteditable = 'true';
  return a;
}

export function describe(el) {
  if (!el) return 'nothing';
  let s = '<' + el.localName;
  if (el.id) s += ` id="${cap(el.id, 30)}"`;
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).slice(0, 2).join(' ') : '';
  if (cls) s += ` class="${cap(cls, 40)}"`;
  const role = el.getAttribute('role');
  if (role) s += ` role="${role}"`;
  s += '>';
  const t = textOf(el, 40);
  return t ? `${s} "${t}"` : s;
}
