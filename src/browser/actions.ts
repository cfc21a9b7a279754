import type { Page } from 'playwright-core';
import {
  type Action,
  type ActionError,
  type ActionErrorKind,
  type ActionOf,
  type ActionType,
  formatAction,
  TimeoutError,
} from '../core/index.ts';
import type { Allowlist } from './allowlist.ts';
import { firstLine, isClosedError, sleep, withDeadline } from './deadline.ts';
import { callPage } from './extract.ts';
import type { BrowserEnvOptions } from './options.ts';
import { NavWatch } from './settle.ts';
import type { TabSet } from './tabs.ts';
import { isLoadableUrl, navigationReason, normalizeUrl } from './url.ts';

/** What an executor needs from its environment. */
export interface ActionContext {
  readonly tabs: TabSet;
  readonly config: BrowserEnvOptions;
  readonly allowlist: Allowlist;
  /** Navigations the allowlist blocked since the current action started. */
  readonly blocked: string[];
  /** The active page; a blank tab is opened when none is left. */
  page(): Promise<Page>;
  /** False once the browser or the context is gone: a closed target is then an infrastructure failure. */
  alive(): boolean;
}

/**
 * A reportable failure of an action: its message becomes the next observation's lastActionError
 * and its kind lastActionErrorKind.
 */
export class ActionFailure extends Error {
  override name = 'ActionFailure';
  readonly kind: ActionErrorKind;
  constructor(message: string, kind: ActionErrorKind = 'other') {
    super(message);
    this.kind = kind;
  }
}

/** How to finish an action: watch for a navigation or a new tab it may have started. */
interface Outcome {
  settle: boolean;
  expectTab?: boolean;
}

type Executor<K extends ActionType> = (ctx: ActionContext, a: ActionOf<K>) => Promise<Outcome>;

const STALE =
  'the page changed since the last observation (a new document loaded), so its element indices are unknown; observe again';

/** What the in-page script answers when an action cannot run; `kind` is absent for 'other'. */
interface PageError {
  error: string;
  kind?: ActionErrorKind;
}

/** Calls the in-page script under the action deadline; a `{ error }` result becomes an ActionFailure. */
async function inPage<T>(ctx: ActionContext, page: Page, what: string, expr: string): Promise<T> {
  const r = await withDeadline(
    what,
    ctx.config.actionTimeoutMs,
    callPage<T | PageError>(page, expr, false, { error: STALE, kind: 'detached' }),
  );
  if (typeof r === 'object' && r !== null && 'error' in r && typeof r.error === 'string')
    throw new ActionFailure(r.error, (r as PageError).kind ?? 'other');
  return r as T;
}

interface Probe {
  popups: number;
  x: number;
  y: number;
  disabled: boolean;
  tag: string;
  opensTab: boolean;
  describe: string;
}

async function click(ctx: ActionContext, a: ActionOf<'click'>): Promise<Outcome> {
  const page = await ctx.page();
  const p = await inPage<Probe>(
    ctx,
    page,
    `checking where a click on element ${a.index} lands`,
    `window.__rmsweb.probe(${a.index})`,
  );
  if (p.disabled) throw new ActionFailure(`element ${a.index} ${p.describe} is disabled`);
  // A trusted click at the point we just verified reaches the element (not an overlay), as a user's would.
  await withDeadline(
    `clicking element ${a.index} at (${Math.round(p.x)}, ${Math.round(p.y)})`,
    ctx.config.actionTimeoutMs,
    page.mouse.click(p.x, p.y),
  );
  // A handler that called window.open: its tab is on the way.
  const popups = await callPage<number>(page, 'window.__rmsweb.state.popups', false, 0).catch(() => 0);
  return { settle: true, expectTab: p.opensTab || popups > p.popups };
}

interface Focused {
  kind: 'text' | 'value' | 'editable';
}

async function input(ctx: ActionContext, a: ActionOf<'input'>): Promise<Outcome> {
  const page = await ctx.page();
  const api = 'window.__rmsweb';
  const f = await inPage<Focused>(
    ctx,
    page,
    `focusing element ${a.index}`,
    `${api}.focusEditable(${a.index})`,
  );
  const text = JSON.stringify(a.text);
  if (f.kind === 'value') {
    // Date, range and color inputs take no typed text: set the value and fire the events a user's edit would.
    await inPage(ctx, page, `setting the value of element ${a.index}`, `${api}.setValue(${text})`);
    return { settle: true };
  }
  const typeBudget = ctx.config.actionTimeoutMs + a.text.length * 20;
  if (a.clear) {
    await inPage(ctx, page, `selecting the content of element ${a.index}`, `${api}.selectAll()`);
    if (a.text === '') await page.keyboard.press('Delete');
  } else {
    await inPage(ctx, page, `moving the caret to the end of element ${a.index}`, `${api}.caretToEnd()`);
  }
  // Typed key by key, so sites that listen to key events (autocompletes) see a user typing.
  if (a.text) await withDeadline(`typing into element ${a.index}`, typeBudget, page.keyboard.type(a.text));
  if (a.clear) {
    const now = await withDeadline(
      'reading the typed value',
      ctx.config.actionTimeoutMs,
      callPage<string | null>(page, `${api}.readValue()`, false, null),
    );
    // select() is refused by some inputs (number, email): clear with the keyboard and type again.
    if (now !== null && now !== a.text && now.endsWith(a.text) && now.length > a.text.length) {
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.press('Delete');
      if (a.text)
        await withDeadline(`typing into element ${a.index}`, typeBudget, page.keyboard.type(a.text));
    }
  }
  return { settle: true };
}

async function selectDropdown(ctx: ActionContext, a: ActionOf<'select_dropdown'>): Promise<Outcome> {
  const page = await ctx.page();
  const r = await inPage<{ chosen: string; click?: { x: number; y: number } }>(
    ctx,
    page,
    `choosing "${a.text}" in element ${a.index}`,
    `window.__rmsweb.choose(${a.index}, ${JSON.stringify(a.text)})`,
  );
  if (r.click)
    await withDeadline(
      `clicking option "${r.chosen}"`,
      ctx.config.actionTimeoutMs,
      page.mouse.click(r.click.x, r.click.y),
    );
  return { settle: true };
}

async function scroll(ctx: ActionContext, a: ActionOf<'scroll'>): Promise<Outcome> {
  const page = await ctx.page();
  const idx = a.index ?? null;
  const r = await inPage<{ moved: number; what: string }>(
    ctx,
    page,
    'scrolling',
    `window.__rmsweb.scroll(${idx}, ${a.down}, ${a.pages})`,
  );
  if (Math.abs(r.moved) < 1)
    throw new ActionFailure(
      `${r.what} is already at the ${a.down ? 'bottom' : 'top'}; it cannot scroll further`,
    );
  return { settle: false };
}

async function sendKeys(ctx: ActionContext, a: ActionOf<'send_keys'>): Promise<Outcome> {
  const page = await ctx.page();
  const tokens = a.keys.trim().split(/\s+/);
  const budget = ctx.config.actionTimeoutMs;
  // `Enter`, `Control+a`, or a sequence `Tab Tab Enter`; anything else is text typed into the focus.
  for (const [i, key] of tokens.entries()) {
    try {
      await withDeadline(`pressing ${key}`, budget, page.keyboard.press(key));
    } catch (e) {
      if (!/Unknown key/i.test(firstLine(e))) throw e;
      if (i > 0)
        throw new ActionFailure(`unknown key "${key}" (after pressing ${tokens.slice(0, i).join(' ')})`);
      await withDeadline('typing the keys as text', budget + a.keys.length * 20, page.keyboard.type(a.keys));
      break;
    }
  }
  return { settle: true };
}

async function navigate(ctx: ActionContext, a: ActionOf<'navigate'>): Promise<Outcome> {
  const url = normalizeUrl(a.url);
  if (!isLoadableUrl(url))
    throw new ActionFailure(`"${a.url}" is not a URL that can be loaded`, 'navigation');
  if (!ctx.allowlist.allows(url))
    throw new ActionFailure(`navigation to ${url} is blocked by the allowlist`, 'navigation');
  let page = await ctx.page();
  if (a.new_tab) {
    page = await page.context().newPage();
    ctx.tabs.activate(page);
  }
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: ctx.config.navigationTimeoutMs });
  } catch (e) {
    if (isClosedError(e) || e instanceof TimeoutError) throw e;
    if ((e as Error).name === 'TimeoutError')
      throw new ActionFailure(`${url} did not load within ${ctx.config.navigationTimeoutMs}ms`, 'navigation');
    throw new ActionFailure(`cannot reach ${url}: ${navigationReason(firstLine(e))}`, 'navigation');
  }
  return { settle: false };
}

async function goBack(ctx: ActionContext): Promise<Outcome> {
  const page = await ctx.page();
  const before = page.url();
  const r = await page.goBack({ waitUntil: 'domcontentloaded', timeout: ctx.config.navigationTimeoutMs });
  // A same-document back (hash, pushState) returns null too, but changes the URL.
  if (r === null && page.url() === before)
    throw new ActionFailure('there is no previous page in this tab', 'navigation');
  // Every tab starts on about:blank; going back to it is never what the agent wants.
  if (page.url() === 'about:blank' && before !== 'about:blank') {
    await page.goForward({ waitUntil: 'domcontentloaded', timeout: ctx.config.navigationTimeoutMs });
    throw new ActionFailure('there is no previous page in this tab', 'navigation');
  }
  return { settle: false };
}

async function wait(_ctx: ActionContext, a: ActionOf<'wait'>): Promise<Outcome> {
  await sleep(a.seconds * 1000);
  return { settle: false };
}

function tabIds(ctx: ActionContext): string {
  return ctx.tabs
    .pages()
    .map((p) => ctx.tabs.idOf(p))
    .join(', ');
}

async function switchTab(ctx: ActionContext, a: ActionOf<'switch_tab'>): Promise<Outcome> {
  const page = ctx.tabs.byId(a.tab_id);
  if (!page) throw new ActionFailure(`there is no tab "${a.tab_id}"; open tabs: ${tabIds(ctx)}`, 'not_found');
  ctx.tabs.activate(page);
  await withDeadline(`bringing tab ${a.tab_id} to front`, ctx.config.actionTimeoutMs, page.bringToFront());
  return { settle: false };
}

async function closeTab(ctx: ActionContext, a: ActionOf<'close_tab'>): Promise<Outcome> {
  const page = ctx.tabs.byId(a.tab_id);
  if (!page) throw new ActionFailure(`there is no tab "${a.tab_id}"; open tabs: ${tabIds(ctx)}`, 'not_found');
  await withDeadline(`closing tab ${a.tab_id}`, ctx.config.actionTimeoutMs, page.close());
  const next = await ctx.page();
  await next.bringToFront().catch(() => {});
  return { settle: false };
}

async function done(): Promise<Outcome> {
  return { settle: false };
}

/** One executor per action of the core union (the registry's ACTION_PARAMS keys). */
export const EXECUTORS: { [K in ActionType]: Executor<K> } = {
  navigate,
  go_back: goBack,
  wait,
  click,
  input,
  select_dropdown: selectDropdown,
  scroll,
  send_keys: sendKeys,
  switch_tab: switchTab,
  close_tab: closeTab,
  done,
};

/** The whole-action backstop deadline; the steps inside have their own, tighter ones. */
function budgetOf(a: Action, c: BrowserEnvOptions): number {
  switch (a.type) {
    case 'navigate':
    case 'go_back':
      return c.navigationTimeoutMs + c.actionTimeoutMs;
    case 'wait':
      return a.seconds * 1000 + c.actionTimeoutMs;
    case 'input':
      return 3 * c.actionTimeoutMs + 2 * a.text.length * 20;
    default:
      return 3 * c.actionTimeoutMs;
  }
}

/**
 * Runs one action, then waits for the navigation or new tab it started (switching to a new tab, as
 * Browser Use does). Returns the error to report in the next observation, with its kind, or null.
 * Never throws for a failed action; throws only when the browser or context is gone
 * (TargetClosedError).
 */
export async function runAction(ctx: ActionContext, action: Action): Promise<ActionError | null> {
  const label = formatAction(action);
  const page = await ctx.page();
  const watch = new NavWatch(page);
  const mark = ctx.tabs.opened;
  ctx.blocked.length = 0;
  let problem: ActionError | null = null;
  try {
    const run = EXECUTORS[action.type] as Executor<ActionType>;
    const out = await withDeadline(`running ${label}`, budgetOf(action, ctx.config), () => run(ctx, action));
    if (out.settle) {
      const popupWait = out.expectTab ? Math.max(ctx.config.settleMs, 2_000) : ctx.config.settleMs;
      const unsettled = await watch.settle(
        popupWait,
        ctx.config.navigationTimeoutMs,
        () => ctx.tabs.openedSince(mark).length > 0,
      );
      if (unsettled !== null) problem = { message: unsettled, kind: 'navigation' };
    }
    const opened = action.type === 'navigate' ? [] : ctx.tabs.openedSince(mark);
    const tab = opened.at(-1);
    if (tab && !tab.isClosed()) {
      ctx.tabs.activate(tab);
      await tab
        .waitForLoadState('domcontentloaded', { timeout: ctx.config.navigationTimeoutMs })
        .catch(() => {});
    }
  } catch (e) {
    if (isClosedError(e) && !ctx.alive()) throw e;
    if (e instanceof ActionFailure) problem = { message: e.message, kind: e.kind };
    else if (isClosedError(e)) problem = { message: 'the tab closed during the action', kind: 'detached' };
    else problem = { message: firstLine(e), kind: TimeoutError.isInstance(e) ? 'timeout' : 'other' };
  } finally {
    watch.dispose();
  }
  if (ctx.blocked.length)
    problem = { message: `navigation to ${ctx.blocked[0]} was blocked by the allowlist`, kind: 'navigation' };
  return problem === null ? null : { message: `${label}: ${problem.message}`, kind: problem.kind };
}
