import type { Action } from './action.ts';
import type { Element, Observation } from './observation.ts';

/**
 * Semantic equality of actions and their arguments: the one definition shared by the miner (did the
 * two runs choose different actions?) and the RL rewards (is the sampled action the ground truth?).
 * Everything here is pure and cheap; lookups by element index are cached per observation object.
 */

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

// A number with optional thousands separators and decimals, or a run of letters/digits.
const TOKEN_RE = /\d[\d,]*(?:\.\d+)?|[\p{L}\p{N}]+/gu;
const THOUSANDS_RE = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

function canonicalNumber(tok: string): string[] {
  const parts = THOUSANDS_RE.test(tok) ? [tok.replace(/,/g, '')] : tok.split(',').filter(Boolean);
  return parts.map((p) => {
    if (!p.includes('.')) return p;
    // "1299.00" -> "1299", "25.50" -> "25.5": trailing zeros carry no meaning in an answer.
    const trimmed = p.replace(/0+$/, '').replace(/\.$/, '');
    return trimmed === '' ? '0' : trimmed;
  });
}

/** The normalized tokens of a string (see {@link normalizeText}). */
export function textTokens(s: string): string[] {
  // Apostrophes join ("women's" ~ "womens"); every other punctuation mark or symbol separates.
  const lowered = s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['\u2019`]/g, '');
  const out: string[] = [];
  for (const m of lowered.matchAll(TOKEN_RE)) {
    const tok = m[0];
    if (/^\d/.test(tok)) out.push(...canonicalNumber(tok));
    else out.push(tok);
  }
  return out;
}

/**
 * Normalizes text for comparison: case, whitespace, punctuation, number format
 * ("1,299.00" = "1299", "$25" ~ "25"). Currency symbols and other punctuation are dropped;
 * tokens are joined by single spaces.
 */
export function normalizeText(s: string): string {
  return textTokens(s).join(' ');
}

/** Similarity of two text arguments in [0,1] (token F1 on normalized text), used by partial-credit rewards. */
export function argumentSimilarity(a: string, b: string): number {
  const ta = textTokens(a);
  const tb = textTokens(b);
  if (ta.length === 0 && tb.length === 0) return 1;
  if (ta.length === 0 || tb.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of ta) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of tb) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / tb.length;
  const recall = common / ta.length;
  return (2 * precision * recall) / (precision + recall);
}

// ---------------------------------------------------------------------------------------------
// URLs
// ---------------------------------------------------------------------------------------------

const TRACKING_PARAM_RE = /^(utm_.*|fbclid|gclid|msclkid|mc_eid|ref_src|_ga)$/i;

/**
 * Normalizes a URL for "same destination" checks: resolved against `base`, scheme and `www.` dropped,
 * host lowercased, fragment and tracking parameters dropped, query sorted, trailing slash removed.
 * Returns '' for URLs that lead nowhere (`#`, `javascript:`, empty).
 */
export function normalizeUrl(url: string, base?: string): string {
  const raw = url.trim();
  if (raw === '' || raw === '#' || /^javascript:/i.test(raw)) return '';
  let u: URL;
  try {
    u = new URL(raw, base && /^[a-z][a-z0-9+.-]*:/i.test(base) ? base : 'http://relative.invalid/');
  } catch {
    return raw.toLowerCase();
  }
  const host = u.host.toLowerCase().replace(/^www\./, '');
  let path = u.pathname.replace(/\/+$/, '');
  if (path === '') path = '/';
  const params = [...u.searchParams.entries()].filter(([k]) => !TRACKING_PARAM_RE.test(k));
  params.sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) : x[0] < y[0] ? -1 : 1));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return `${host}${path}${query}`;
}

// ---------------------------------------------------------------------------------------------
// Elements
// ---------------------------------------------------------------------------------------------

const TARGET_TAGS = new Set(['a', 'button', 'input', 'select', 'textarea', 'option', 'summary']);
const TARGET_ROLES = new Set([
  'link',
  'button',
  'checkbox',
  'radio',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'switch',
  'combobox',
  'textbox',
  'searchbox',
  'treeitem',
]);

/** True when clicking the element acts on its own (a link, a button, a form control), rather than bubbling up. */
export function isClickTarget(e: Element): boolean {
  return TARGET_TAGS.has(e.tag.toLowerCase()) || TARGET_ROLES.has(e.role.toLowerCase());
}

const indexCache = new WeakMap<Observation, Map<number, Element>>();

/** The element with this index in the observation (cached per observation object), or undefined. */
export function elementAt(obs: Observation, index: number): Element | undefined {
  // Elements are almost always listed in index order: skip building the map for those.
  const direct = obs.elements[index];
  if (direct !== undefined && direct.index === index) return direct;
  let m = indexCache.get(obs);
  if (!m) {
    m = new Map();
    for (const e of obs.elements) m.set(e.index, e);
    indexCache.set(obs, m);
  }
  return m.get(index);
}

/** Ancestor chain of an element (nearest first), following parentIndex, guarded against cycles. */
function ancestors(e: Element, obs: Observation): Element[] {
  const out: Element[] = [];
  const seen = new Set<number>([e.index]);
  let p = e.parentIndex;
  while (p !== null && !seen.has(p)) {
    const parent = elementAt(obs, p);
    if (!parent) break;
    out.push(parent);
    seen.add(p);
    p = parent.parentIndex;
  }
  return out;
}

/** What a click on `e` activates: `e` if it is a click target, else its nearest click-target ancestor, else `e`. */
export function clickTarget(e: Element, obs: Observation): Element {
  if (isClickTarget(e)) return e;
  for (const a of ancestors(e, obs)) if (isClickTarget(a)) return a;
  return e;
}

/** True when `anc` is an ancestor of `desc` and no click target sits between them (desc included). */
function bubblesTo(desc: Element, anc: Element, obs: Observation): boolean {
  if (isClickTarget(desc)) return false;
  for (const a of ancestors(desc, obs)) {
    if (a.index === anc.index) return true;
    if (isClickTarget(a)) return false;
  }
  return false;
}

function hrefOf(e: Element, obs: Observation): string {
  const t = clickTarget(e, obs);
  const href = t.attributes.href ?? e.attributes.href ?? '';
  return href ? normalizeUrl(href, obs.url) : '';
}

function labelOf(e: Element): string {
  return normalizeText(e.name || e.text || e.attributes['aria-label'] || e.attributes.placeholder || '');
}

function signature(e: Element): string {
  return `${e.tag.toLowerCase()}\u0000${e.role.toLowerCase()}\u0000${labelOf(e)}`;
}

const signatureCache = new WeakMap<Observation, Map<string, number>>();

function signatureCount(obs: Observation, sig: string): number {
  let m = signatureCache.get(obs);
  if (!m) {
    m = new Map();
    for (const e of obs.elements) {
      const s = signature(e);
      m.set(s, (m.get(s) ?? 0) + 1);
    }
    signatureCache.set(obs, m);
  }
  return m.get(sig) ?? 0;
}

/**
 * Elements are equivalent when they share the stable nodeKey, are ancestor/descendant (via parentIndex
 * chains within one observation) with the same click target, or link to the same destination (same
 * normalized href). When two observations are given, elements are compared across them by nodeKey, then
 * href, then (tag, role, normalized name) uniqueness.
 *
 * Across observations a conflicting href vetoes a nodeKey match: list pages reuse one DOM path for
 * different items, so the destination is the stronger evidence. The (tag, role, name) fallback applies
 * only when the label is non-empty and unique on both pages: a lookalike is never "the same element".
 */
export function elementsEquivalent(
  a: Element | undefined,
  b: Element | undefined,
  obsA: Observation,
  obsB?: Observation,
): boolean {
  if (!a || !b) return false;
  if (!obsB || obsB === obsA) return sameObservationEquivalent(a, b, obsA);
  const ta = clickTarget(a, obsA);
  const tb = clickTarget(b, obsB);
  const ha = hrefOf(a, obsA);
  const hb = hrefOf(b, obsB);
  if (ha && hb && ha !== hb) return false;
  if (a.nodeKey === b.nodeKey || ta.nodeKey === tb.nodeKey) return true;
  if (ha && hb) return true;
  const sa = signature(ta);
  if (labelOf(ta) === '' || sa !== signature(tb)) return false;
  return signatureCount(obsA, sa) === 1 && signatureCount(obsB, sa) === 1;
}

function sameObservationEquivalent(a: Element, b: Element, obs: Observation): boolean {
  if (a.index === b.index || a.nodeKey === b.nodeKey) return true;
  if (bubblesTo(a, b, obs) || bubblesTo(b, a, obs)) return true;
  const ta = clickTarget(a, obs);
  const tb = clickTarget(b, obs);
  if (ta.index === tb.index && isClickTarget(ta)) return true;
  const ha = hrefOf(a, obs);
  return ha !== '' && ha === hrefOf(b, obs);
}

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

const KEY_ALIASES: Record<string, string> = {
  ctrl: 'control',
  cmd: 'meta',
  command: 'meta',
  return: 'enter',
  esc: 'escape',
  del: 'delete',
  option: 'alt',
};

function normalizeKeys(keys: string): string {
  return keys
    .split(/\s+/)
    .filter(Boolean)
    .map((combo) =>
      combo
        .split('+')
        .map((k) => {
          const l = k.trim().toLowerCase();
          return KEY_ALIASES[l] ?? l;
        })
        .join('+'),
    )
    .join(' ');
}

/**
 * Semantic equality of actions: same type, equivalent elements, normalized-equal text arguments, same
 * scroll direction (and equivalent scroll containers when both name one), navigate to the same
 * normalized URL, same keys up to aliases (ctrl = control), same tab, done with the same success flag
 * and equal normalized answers. `obsA` is the state `a` was taken in; `obsB` that of `b` (default `obsA`).
 */
export function actionsEquivalent(a: Action, b: Action, obsA: Observation, obsB?: Observation): boolean {
  const ob = obsB ?? obsA;
  const el = (x: { index: number }, y: { index: number }) =>
    elementsEquivalent(elementAt(obsA, x.index), elementAt(ob, y.index), obsA, obsB);
  switch (a.type) {
    case 'click':
      return b.type === 'click' && el(a, b);
    case 'input':
      return b.type === 'input' && el(a, b) && normalizeText(a.text) === normalizeText(b.text);
    case 'select_dropdown':
      return b.type === 'select_dropdown' && el(a, b) && normalizeText(a.text) === normalizeText(b.text);
    case 'scroll': {
      if (b.type !== 'scroll' || a.down !== b.down) return false;
      const ia = a.index ?? null;
      const ib = b.index ?? null;
      return ia === null || ib === null || el({ index: ia }, { index: ib });
    }
    case 'navigate':
      return b.type === 'navigate' && normalizeUrl(a.url, obsA.url) === normalizeUrl(b.url, ob.url);
    case 'go_back':
    case 'wait':
      return b.type === a.type;
    case 'send_keys':
      return b.type === 'send_keys' && normalizeKeys(a.keys) === normalizeKeys(b.keys);
    case 'switch_tab':
      return b.type === 'switch_tab' && a.tab_id === b.tab_id;
    case 'close_tab':
      return b.type === 'close_tab' && a.tab_id === b.tab_id;
    case 'done':
      return b.type === 'done' && a.success === b.success && normalizeText(a.text) === normalizeText(b.text);
  }
}
