import { normalizeText, textTokens } from '../../core/action-equivalence.ts';
import type { Element, Observation } from '../../core/observation.ts';

/** Readable label of an element: accessible name, else aria-label, placeholder, text, name attribute. */
export function labelOf(e: Element): string {
  return (
    e.name || e.attributes['aria-label'] || e.attributes.placeholder || e.text || e.attributes.name || ''
  );
}

export function isEditable(e: Element): boolean {
  if (e.tag === 'textarea') return true;
  if (e.attributes.contenteditable === 'true') return true;
  if (e.tag !== 'input') return e.role === 'textbox' || e.role === 'searchbox' || e.role === 'combobox';
  const t = (e.attributes.type ?? 'text').toLowerCase();
  return ['text', 'email', 'tel', 'number', 'search', 'password', 'url', 'date', ''].includes(t);
}

export function isSelect(e: Element): boolean {
  return e.tag === 'select';
}

export function isToggle(e: Element): boolean {
  const t = (e.attributes.type ?? '').toLowerCase();
  return (
    (e.tag === 'input' && (t === 'checkbox' || t === 'radio')) ||
    e.role === 'checkbox' ||
    e.role === 'radio' ||
    e.role === 'switch'
  );
}

export function isChecked(e: Element): boolean {
  const c = e.attributes.checked ?? e.attributes['aria-checked'];
  return c === 'true' || c === '' || c === 'checked';
}

export function isClickable(e: Element): boolean {
  return (
    (e.tag === 'a' ||
      e.tag === 'button' ||
      e.role === 'button' ||
      e.role === 'link' ||
      e.role === 'tab' ||
      e.role === 'option' ||
      e.role === 'menuitem' ||
      (e.tag === 'input' && ['submit', 'button'].includes((e.attributes.type ?? '').toLowerCase()))) &&
    !isEditable(e)
  );
}

export function isDisabled(e: Element): boolean {
  return (
    e.attributes.disabled === 'true' ||
    e.attributes.disabled === '' ||
    e.attributes['aria-disabled'] === 'true'
  );
}

export function isCovered(e: Element): boolean {
  return e.attributes.covered === 'true';
}

export function isSearchBox(e: Element): boolean {
  if (!isEditable(e)) return false;
  const l =
    `${e.attributes.type ?? ''} ${e.attributes.name ?? ''} ${e.attributes.placeholder ?? ''} ${e.name}`.toLowerCase();
  return /\bsearch\b|\bq\b/.test(l) || e.role === 'searchbox';
}

/** Options of a select, when the observation lists them (attribute `options`, separated by `|`). */
export function optionsOf(e: Element): string[] {
  const raw = e.attributes.options;
  return raw
    ? raw
        .split('|')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

export function selectedOf(e: Element): string {
  return e.attributes.selected ?? e.attributes.value ?? '';
}

/** All visible text of the page: non-interactive blocks plus element texts. */
export function pageTexts(obs: Observation): string[] {
  return [...obs.texts.map((t) => t.text), ...obs.elements.map((e) => e.text)].filter(Boolean);
}

/** URL path + query, without origin, for "have I been here" checks. */
export function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

export function sameText(a: string, b: string): boolean {
  return normalizeText(a) === normalizeText(b);
}

export function tokensOf(s: string): string[] {
  return textTokens(s);
}
