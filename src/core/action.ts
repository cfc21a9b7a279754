import { z } from 'zod';
import { describeZodIssues, InputError } from './errors.ts';

/**
 * The action space, mirroring Browser Use's action names. One registry entry per action holds
 * its parameter schema, a description and an example: the prompt, the parser and (in browser/)
 * the executor are all driven from it.
 */
export const ACTION_PARAMS = {
  navigate: z.object({ url: z.string().min(1), new_tab: z.boolean().default(false) }),
  go_back: z.object({}),
  wait: z.object({ seconds: z.number().min(0).max(30).default(1) }),
  click: z.object({ index: z.number().int().nonnegative() }),
  input: z.object({
    index: z.number().int().nonnegative(),
    text: z.string(),
    clear: z.boolean().default(true),
  }),
  select_dropdown: z.object({ index: z.number().int().nonnegative(), text: z.string() }),
  scroll: z.object({
    down: z.boolean().default(true),
    pages: z.number().min(0.1).max(10).default(1),
    index: z.number().int().nonnegative().nullable().optional(),
  }),
  send_keys: z.object({ keys: z.string().min(1) }),
  switch_tab: z.object({ tab_id: z.string().min(1) }),
  close_tab: z.object({ tab_id: z.string().min(1) }),
  done: z.object({ text: z.string().default(''), success: z.boolean().default(true) }),
} as const;

export type ActionType = keyof typeof ACTION_PARAMS;
export const ACTION_TYPES = Object.keys(ACTION_PARAMS) as ActionType[];

export const ACTION_DOCS: Record<ActionType, { description: string; example: Record<string, unknown> }> = {
  navigate: {
    description: 'Open a URL in the current tab (or a new one).',
    example: { url: 'https://example.com', new_tab: false },
  },
  go_back: { description: 'Go back to the previous page in this tab.', example: {} },
  wait: { description: 'Wait for the page to settle, in seconds.', example: { seconds: 2 } },
  click: { description: 'Click the element with this index.', example: { index: 12 } },
  input: {
    description: 'Type text into the input with this index (clears it first unless clear is false).',
    example: { index: 4, text: 'trail shoes', clear: true },
  },
  select_dropdown: {
    description: 'Choose the option with this visible text in the select with this index.',
    example: { index: 7, text: 'Price: low to high' },
  },
  scroll: {
    description: 'Scroll the page (or the element with index) down or up by a number of pages.',
    example: { down: true, pages: 1 },
  },
  send_keys: {
    description: 'Send keys to the focused element, e.g. Enter, Escape, Control+a.',
    example: { keys: 'Enter' },
  },
  switch_tab: { description: 'Switch to the tab with this id.', example: { tab_id: '1' } },
  close_tab: { description: 'Close the tab with this id.', example: { tab_id: '1' } },
  done: {
    description:
      'Finish the task: text is the final answer or summary; success says whether it was achieved.',
    example: { text: 'The cheapest flight costs $182.', success: true },
  },
};

/** The internal action: a discriminated union on `type`. */
export const Action = z.discriminatedUnion('type', [
  ACTION_PARAMS.navigate.extend({ type: z.literal('navigate') }),
  ACTION_PARAMS.go_back.extend({ type: z.literal('go_back') }),
  ACTION_PARAMS.wait.extend({ type: z.literal('wait') }),
  ACTION_PARAMS.click.extend({ type: z.literal('click') }),
  ACTION_PARAMS.input.extend({ type: z.literal('input') }),
  ACTION_PARAMS.select_dropdown.extend({ type: z.literal('select_dropdown') }),
  ACTION_PARAMS.scroll.extend({ type: z.literal('scroll') }),
  ACTION_PARAMS.send_keys.extend({ type: z.literal('send_keys') }),
  ACTION_PARAMS.switch_tab.extend({ type: z.literal('switch_tab') }),
  ACTION_PARAMS.close_tab.extend({ type: z.literal('close_tab') }),
  ACTION_PARAMS.done.extend({ type: z.literal('done') }),
]);
export type Action = z.infer<typeof Action>;
export type ActionOf<T extends ActionType> = Extract<Action, { type: T }>;

/** Browser Use's wire shape: a single-key object, `{ "click": { "index": 3 } }`. */
export type BrowserUseAction = { [K in ActionType]?: Record<string, unknown> };
export const BrowserUseActionSchema = z
  .record(z.string(), z.record(z.string(), z.unknown()).nullable())
  .refine((o) => Object.keys(o).length === 1, {
    message: 'an action object must have exactly one key (the action name)',
  });

/** Parses and validates an internal action; errors name the failing field. */
export function parseAction(input: unknown): Action {
  const r = Action.safeParse(input);
  if (!r.success)
    throw new InputError(`invalid action: ${describeZodIssues(r.error.issues)}`, {
      field: String(r.error.issues[0]?.path.join('.') ?? ''),
    });
  return r.data;
}

/** Converts Browser Use's `{name: params}` shape into an internal action, validating params. */
export function fromBrowserUse(obj: unknown): Action {
  const shape = BrowserUseActionSchema.safeParse(obj);
  if (!shape.success)
    throw new InputError(`invalid action: ${describeZodIssues(shape.error.issues)}`, { field: 'action' });
  const [name, params] = Object.entries(shape.data)[0];
  if (!(name in ACTION_PARAMS)) {
    throw new InputError(`unknown action "${name}"; expected one of ${ACTION_TYPES.join(', ')}`, {
      field: 'action',
    });
  }
  const r = ACTION_PARAMS[name as ActionType].safeParse(params ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new InputError(`invalid ${name} action: ${describeZodIssues(r.error.issues)}`, {
      field: `${name}.${issue?.path.join('.') ?? ''}`,
    });
  }
  return { type: name, ...r.data } as Action;
}

/** Converts an internal action to Browser Use's wire shape. */
export function toBrowserUse(action: Action): BrowserUseAction {
  const { type, ...params } = action;
  return { [type]: params } as BrowserUseAction;
}

/** A compact human-readable form, e.g. `click(12)` or `input(4, "trail shoes")`. */
export function formatAction(a: Action): string {
  switch (a.type) {
    case 'navigate':
      return `navigate(${JSON.stringify(a.url)})`;
    case 'go_back':
      return 'go_back()';
    case 'wait':
      return `wait(${a.seconds})`;
    case 'click':
      return `click(${a.index})`;
    case 'input':
      return `input(${a.index}, ${JSON.stringify(a.text)})`;
    case 'select_dropdown':
      return `select_dropdown(${a.index}, ${JSON.stringify(a.text)})`;
    case 'scroll':
      return `scroll(${a.down ? 'down' : 'up'}, ${a.pages})`;
    case 'send_keys':
      return `send_keys(${JSON.stringify(a.keys)})`;
    case 'switch_tab':
      return `switch_tab(${a.tab_id})`;
    case 'close_tab':
      return `close_tab(${a.tab_id})`;
    case 'done':
      return `done(${a.success}, ${JSON.stringify(a.text)})`;
  }
}

/** Whether `a` gives up on the task (`done` with success false): no label for DAgger to learn. */
export function isGiveUp(a: Action): boolean {
  return a.type === 'done' && !a.success;
}

/** The element index an action targets, or null for an action on no element (scroll without one, done, ...). */
export function targetIndex(a: Action): number | null {
  return 'index' in a && typeof a.index === 'number' ? a.index : null;
}
