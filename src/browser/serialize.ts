import type { Element, ScrollInfo, Tab, TextBlock } from '../core/index.ts';

/** What the text view is made from: the parts of an Observation the browser produces. */
export interface PageView {
  url: string;
  title: string;
  tabs: Tab[];
  elements: Element[];
  scroll: ScrollInfo;
  /** Visible non-interactive text blocks, in document order. */
  texts?: TextBlock[];
  /** Per text block: elements before it in document order, and indentation (from extraction). */
  layout?: Array<{ after: number; depth: number }>;
}

// Attributes shown in the text view, in this order. `id` and `data-state`-like internals stay in
// `attributes` for code (reference solvers) but are noise for a model.
const SHOWN = [
  'role',
  'type',
  'name',
  'placeholder',
  'aria-label',
  'title',
  'alt',
  'href',
  'target',
  'value',
  'checked',
  'selected',
  'options',
  'min',
  'max',
  'multiple',
  'disabled',
  'readonly',
  'required',
  'aria-checked',
  'aria-selected',
  'aria-expanded',
  'aria-pressed',
  'aria-current',
  'aria-haspopup',
  'data-state',
  'contenteditable',
  'scrollable',
  'covered',
] as const;

// Roles a tag already implies: repeating them adds nothing.
const NATIVE_ROLE: Record<string, string> = {
  a: 'link',
  button: 'button',
  summary: 'button',
  select: 'combobox',
  textarea: 'textbox',
  option: 'option',
};

// Each shown attribute's place in SHOWN: an element's own few attributes are sorted by it, rather
// than every element looking up every shown name (the text view of a large page is rebuilt per step).
const SHOWN_RANK = new Map<string, number>(SHOWN.map((k, i) => [k, i]));
const byRank = (a: string, b: string) => SHOWN_RANK.get(a)! - SHOWN_RANK.get(b)!;

const SHOWN_OPTIONS = 10;

function quote(v: string): string {
  // Bare when unambiguous; a trailing '/' would read as the end of the tag (`href=/>`).
  return /^[^\s"'<>=]+$/.test(v) && !v.endsWith('/') ? v : JSON.stringify(v);
}

/** The label shown after the tag: the visible text, else the accessible name. */
function labelOf(el: Element): string {
  return el.text || el.name;
}

/** One element as a Browser Use style line, without indentation: `[3]<a href=/cart>Cart />`. */
export function formatElement(el: Element): string {
  const label = labelOf(el);
  const parts: string[] = [];
  const keys: string[] = [];
  for (const key in el.attributes) if (SHOWN_RANK.has(key)) keys.push(key);
  // The role a tag does not already imply is shown even when no attribute states it.
  const impliedRole =
    el.attributes.role === undefined && el.role && el.role !== NATIVE_ROLE[el.tag] && el.tag !== 'input';
  if (impliedRole) keys.push('role');
  if (keys.length > 1) keys.sort(byRank);
  for (const key of keys) {
    let v = key === 'role' && impliedRole ? el.role : el.attributes[key];
    if (v === undefined || v === '') continue;
    if (key === 'options') {
      const all = v.split('|');
      if (all.length > SHOWN_OPTIONS)
        v = `${all.slice(0, SHOWN_OPTIONS).join('|')}|... ${all.length - SHOWN_OPTIONS} more`;
    }
    if (key === 'role' && v === NATIVE_ROLE[el.tag]) continue;
    // An attribute repeating the label (aria-label == text, placeholder used as the name) is dropped.
    if ((key === 'aria-label' || key === 'title' || key === 'alt' || key === 'placeholder') && v === label)
      continue;
    parts.push(`${key}=${quote(v)}`);
  }
  if (el.name && el.name !== label && !Object.values(el.attributes).includes(el.name))
    parts.push(`label=${quote(el.name)}`);
  const attrs = parts.length ? ` ${parts.join(' ')}` : '';
  const off = el.inViewport ? '' : ' (offscreen)';
  return `[${el.index}]<${el.tag}${attrs}>${label} />${off}`;
}

function pixelsHint(px: number, pages: number, where: 'above' | 'below'): string {
  const verb = where === 'above' ? 'scroll up' : 'scroll down';
  return `... ${Math.round(px)} pixels ${where} (${pages.toFixed(1)} pages) - ${verb} to see more ...`;
}

/**
 * Text blocks in view with the element count they follow. Without a layout (a view rebuilt from a
 * stored observation) a block goes after the elements that start above it on the page.
 */
function placedTexts(view: PageView): Array<{ text: string; after: number; depth: number }> {
  const texts = view.texts ?? [];
  const out: Array<{ text: string; after: number; depth: number }> = [];
  texts.forEach((t, i) => {
    if (!t.inViewport) return;
    const place = view.layout?.[i];
    if (place) {
      out.push({ text: t.text, after: place.after, depth: place.depth });
      return;
    }
    const y = t.bbox?.y ?? 0;
    out.push({ text: t.text, after: view.elements.filter((e) => e.bbox.y <= y).length, depth: 0 });
  });
  return out.sort((a, b) => a.after - b.after);
}

/**
 * The Browser Use style text view of a page: a header (url, title, tabs), then one line per
 * element indented by nesting depth (off-viewport elements marked `(offscreen)`), with the text
 * blocks of the viewport between them as plain lines, framed by hints of how much page lies above
 * and below. Pure: the same view gives the same text.
 */
export function serializeView(view: PageView): string {
  const lines: string[] = [`Current URL: ${view.url}`, `Title: ${view.title}`];
  if (view.tabs.length) {
    lines.push('Tabs:');
    for (const t of view.tabs)
      lines.push(`  tab ${t.id}: ${t.title || '(untitled)'} - ${t.url}${t.active ? ' (active)' : ''}`);
  }
  lines.push('Page:');
  const s = view.scroll;
  lines.push(s.y > 0 ? pixelsHint(s.y, s.pagesAbove, 'above') : '[Start of page]');
  if (view.elements.length === 0) lines.push('(no interactive elements)');
  const texts = placedTexts(view);
  let t = 0;
  const flushTexts = (upTo: number) => {
    for (; t < texts.length && texts[t].after <= upTo; t++)
      lines.push('\t'.repeat(texts[t].depth) + texts[t].text);
  };
  view.elements.forEach((el, i) => {
    flushTexts(i);
    lines.push('\t'.repeat(el.depth) + formatElement(el));
  });
  flushTexts(Number.POSITIVE_INFINITY);
  const below = Math.max(0, s.pageHeight - (s.y + s.viewportHeight));
  lines.push(below > 0 ? pixelsHint(below, s.pagesBelow, 'below') : '[End of page]');
  return lines.join('\n');
}
