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
export const TEXT_SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'select',
  'option',
  'datalist',
  'textarea',
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
export const hex = (n) => n.toString(16).padStart(8, '0');

/** Visible text of a subtree, whitespace-collapsed, stopping once `max` characters are collected. */
export function textOf(root, max) {
  let out = '';
  const doc = root.ownerDocument || root;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode(n) {
      if (n.nodeType === 3) return NodeFilter.FILTER_ACCEPT;
      if (TEXT_SKIP.has(n.localName)) return NodeFilter.FILTER_REJECT;
      if (n.checkVisibility && !n.checkVisibility()) return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_SKIP;
    },
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    out += ' ' + n.nodeValue;
    if (out.length > max * 2) break;
  }
  return cap(collapse(out), max);
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
    if (el.labels?.length) {
      const t = collapse(Array.from(el.labels, (l) => textOf(l, max)).join(' '));
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

function hrefOf(el, win) {
  const raw = el.getAttribute('href');
  if (raw === null) return null;
  if (/^\s*javascript:/i.test(raw)) return 'javascript:';
  try {
    const u = new URL(raw, el.baseURI);
    if (u.origin === win.location.origin) return u.pathname + u.search + u.hash;
    return u.href;
  } catch {
    return raw;
  }
}

export function attributesOf(el, tag, win) {
  const a = {};
  const put = (k, v) => {
    const s = collapse(v);
    if (s) a[k] = cap(s, MAX_ATTR);
  };
  if (tag === 'input') a.type = el.type;
  else if (tag === 'button' && el.hasAttribute('type')) a.type = el.type;
  const explicitRole = el.getAttribute('role');
  if (explicitRole) put('role', explicitRole);
  put('name', el.getAttribute('name'));
  if (el.id && el.id.length <= 40) a.id = el.id;
  put('placeholder', el.getAttribute('placeholder'));
  put('aria-label', el.getAttribute('aria-label'));
  put('title', el.getAttribute('title'));
  if (tag === 'img' || (tag === 'input' && el.type === 'image')) put('alt', el.getAttribute('alt'));
  const href = tag === 'a' || tag === 'area' ? hrefOf(el, win) : null;
  if (href !== null) a.href = cap(href, 200);
  if ((tag === 'a' || tag === 'area') && el.target === '_blank') a.target = '_blank';
  if (tag === 'input') {
    const t = el.type;
    if (t === 'checkbox' || t === 'radio') {
      a.checked = String(el.checked);
      if (el.value && el.value !== 'on') put('value', el.value);
    } else if (t === 'password') {
      if (el.value) a.value = '\u2022'.repeat(Math.min(el.value.length, 12));
    } else if (t !== 'file') {
      if (el.value) a.value = cap(el.value, MAX_ATTR);
    }
    if (el.min) a.min = el.min;
    if (el.max) a.max = el.max;
  } else if (tag === 'textarea') {
    if (el.value) a.value = cap(collapse(el.value), MAX_ATTR);
  } else if (tag === 'select') {
    const sel = Array.from(el.selectedOptions, (o) => collapse(o.text)).join(', ');
    if (sel) a.selected = cap(sel, MAX_ATTR);
    // Every option (code splits on '|'); the text view shortens long lists.
    a.options = cap(Array.from(el.options, (o) => collapse(o.text).replace(/\|/g, '/')).join('|'), 4000);
    if (el.multiple) a.multiple = 'true';
  }
  if (el.disabled || el.getAttribute('aria-disabled') === 'true') a.disabled = 'true';
  if (el.readOnly && (tag === 'input' || tag === 'textarea')) a.readonly = 'true';
  if (el.required) a.required = 'true';
  for (const k of [
    'aria-checked',
    'aria-selected',
    'aria-expanded',
    'aria-pressed',
    'aria-current',
    'aria-haspopup',
    'data-state',
  ]) {
    const v = el.getAttribute(k);
    if (v) a[k] = cap(v, MAX_ATTR);
  }
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
