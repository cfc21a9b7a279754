import type { ActionType } from '../core/action.ts';
import type { Element } from '../core/observation.ts';

/**
 * The student's action space: a practical subset of the Browser Use actions.
 *
 * - click(element), input(element, text), select_dropdown(element, option text)
 * - scroll(up | down): whole-page scroll, always emitted with `pages: 1`
 * - go_back, wait (emitted with `seconds: 1`)
 * - send_keys(key) over a fixed set of keys
 * - done(text): always `success: true`; the text is a candidate span (task, memory, page) or empty
 *
 * Left out on purpose: navigate (the student works from the task's start page), switch_tab and
 * close_tab (tab ids are not stable across episodes). Actions outside the space are "not
 * representable": the SFT trainer counts and skips them, and their log-probability is -Infinity.
 */
export const POLICY_ACTION_TYPES = [
  'click',
  'input',
  'select_dropdown',
  'scroll',
  'go_back',
  'send_keys',
  'wait',
  'done',
] as const satisfies readonly ActionType[];
export type PolicyActionType = (typeof POLICY_ACTION_TYPES)[number];

/** Types whose second sub-decision is an element. */
export const ELEMENT_TYPES: ReadonlySet<ActionType> = new Set(['click', 'input', 'select_dropdown']);
/** Types whose last sub-decision is an argument candidate. */
export const ARGUMENT_TYPES: ReadonlySet<ActionType> = new Set([
  'input',
  'select_dropdown',
  'scroll',
  'send_keys',
  'done',
]);

/** Keys send_keys may press. */
export const POLICY_KEYS = ['Enter', 'Escape', 'Tab'] as const;

const NON_TEXT_INPUT_TYPES = new Set([
  'checkbox',
  'radio',
  'submit',
  'button',
  'reset',
  'image',
  'file',
  'hidden',
  'range',
  'color',
]);

/** True for elements text can be typed into (input, textarea, textbox-like roles, contenteditable). */
export function isTextEntry(el: Element): boolean {
  const tag = el.tag.toLowerCase();
  const role = el.role.toLowerCase();
  if (tag === 'input') return !NON_TEXT_INPUT_TYPES.has((el.attributes.type ?? 'text').toLowerCase());
  if (tag === 'textarea') return true;
  if (role === 'textbox' || role === 'searchbox' || role === 'combobox') return true;
  const ce = el.attributes.contenteditable;
  return ce !== undefined && ce !== 'false';
}

/** True for elements an option can be chosen in (select, listbox, combobox). */
export function isSelectLike(el: Element): boolean {
  const role = el.role.toLowerCase();
  return el.tag.toLowerCase() === 'select' || role === 'listbox' || role === 'combobox';
}

/** Whether an element may be the target of an action of this type. */
export function elementAllowed(type: ActionType, el: Element): boolean {
  if (type === 'click') return true;
  if (type === 'input') return isTextEntry(el);
  if (type === 'select_dropdown') return isSelectLike(el);
  return false;
}

/**
 * The options of a select-like element, when the observation carries them: an `options` attribute
 * (a JSON array, or values separated by `|` or newlines), else the element text split by lines.
 */
export function selectOptions(el: Element): string[] {
  const raw = el.attributes.options;
  let opts: string[] = [];
  if (raw !== undefined) {
    const trimmed = raw.trim();
    if (trimmed.startsWith('[')) {
      try {
        const parsed = JSON.parse(trimmed) as unknown;
        if (Array.isArray(parsed)) {
          opts = parsed.map((o) =>
            typeof o === 'string'
              ? o
              : String(
                  (o as { text?: unknown; label?: unknown })?.text ?? (o as { label?: unknown })?.label ?? '',
                ),
          );
        }
      } catch {
        opts = [];
      }
    }
    if (opts.length === 0) opts = trimmed.split(/\s*(?:\||\n)\s*/);
  } else if (el.tag.toLowerCase() === 'select' && el.text.includes('\n')) {
    opts = el.text.split('\n');
  }
  return [...new Set(opts.map((o) => o.trim()).filter((o) => o.length > 0))];
}
