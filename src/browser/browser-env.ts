import type { Browser, BrowserContext, CDPSession, Page, Route } from 'playwright-core';
import { z } from 'zod';
import {
  Action,
  type ActionError,
  describeZodIssues,
  InputError,
  NavigationError,
  OBSERVATION_SCHEMA_VERSION,
  type Observation,
  TargetClosedError,
} from '../core/index.ts';
import { type ActionContext, runAction } from './actions.ts';
import { type Allowlist, compileAllowlist } from './allowlist.ts';
import { firstLine, isClosedError, withDeadline } from './deadline.ts';
import { extractElements, type PageExtraction } from './extract.ts';
import type { BrowserEnvOptions } from './options.ts';
import { captureScreenshot, type Screenshot } from './screenshot.ts';
import { serializeView } from './serialize.ts';
import { TabSet } from './tabs.ts';
import { isLoadableUrl, navigationReason, normalizeUrl } from './url.ts';

/** What reset needs of a task: where it starts. A core Task fits. */
export interface ResetTask {
  startUrl: string;
}

const ResetOptions = z.object({
  cookies: z
    .array(z.object({ name: z.string().min(1), value: z.string(), url: z.string().url() }))
    .default([]),
});
/** Options of one reset: cookies to set before the start page loads (e.g. a world session). */
export type ResetOptions = z.input<typeof ResetOptions>;

/** Where the time of the last step went, in ms. */
export interface StepTiming {
  actionMs: number;
  observeMs: number;
  totalMs: number;
}

// A page that navigates while we index it destroys the evaluation context; indexing again is right.
const RETRYABLE = /Execution context was destroyed|Cannot find context|navigation|frame was detached/i;

/**
 * One browsing environment: an isolated browser context (own cookies, storage and tabs) in a shared
 * browser. `reset(task)` opens the start page, `step(action)` acts and observes. A failed action
 * never throws: it is reported as `lastActionError` in the returned observation; only a browser or
 * context that went away throws (TargetClosedError), and an observation past its deadline
 * (TimeoutError). Obtain one with `BrowserHost.newEnv(options)`.
 */
export class BrowserEnv {
  private context: BrowserContext | null = null;
  private tabs: TabSet | null = null;
  private contextClosed = false;
  /** The tab kept from one episode to the next, and a protocol session on it. */
  private home: Page | null = null;
  private cdp: CDPSession | null = null;
  /** Origins loaded since the last reset, whose storage the next reset clears. */
  private readonly origins = new Set<string>();
  private steps = 0;
  private readonly blocked: string[] = [];
  private readonly allowlist: Allowlist;
  /** Timing of the last step, for benchmarks and logs. */
  lastStepTiming?: StepTiming;

  /** @internal use BrowserHost.newEnv */
  constructor(
    private readonly browser: Browser,
    readonly config: BrowserEnvOptions,
    private readonly onClose: (env: BrowserEnv) => void = () => {},
  ) {
    this.allowlist = compileAllowlist(config.allowlist);
  }

  /** The active page. For reference solvers and tests; agents act through step(). */
  get page(): Page {
    const p = this.tabs?.active;
    if (!p) throw new InputError('the environment has no open page: call reset(task) first');
    return p;
  }

  /**
   * Opens the task's start URL in a clean state: no cookies, storage, tabs, history, dialogs or
   * page state from earlier episodes. The context and tab of the last episode are reused when they
   * are still healthy (see `recycle`), so no renderer process starts per episode; otherwise a new
   * context is opened.
   */
  async reset(task: ResetTask, opts: ResetOptions = {}): Promise<Observation> {
    const raw = typeof task?.startUrl === 'string' ? task.startUrl.trim() : '';
    const url = normalizeUrl(raw);
    if (!raw || !isLoadableUrl(url))
      throw new InputError(`invalid start URL "${raw}"`, { field: 'startUrl' });
    const parsed = ResetOptions.safeParse(opts);
    if (!parsed.success)
      throw new InputError(`invalid reset options: ${describeZodIssues(parsed.error.issues)}`, {
        field: String(parsed.error.issues[0]?.path.join('.')),
      });
    if (!this.allowlist.allows(url)) throw new NavigationError(url, 'blocked by the allowlist');
    const c = this.config;
    const page = (await this.recycle()) ?? (await this.openContext());
    this.steps = 0;
    this.blocked.length = 0;
    if (parsed.data.cookies.length) await this.context!.addCookies(parsed.data.cookies);
    try {
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: c.navigationTimeoutMs });
    } catch (e) {
      if (isClosedError(e)) throw new TargetClosedError(`loading ${url}`, e);
      throw new NavigationError(url, navigationReason(firstLine(e)), e);
    }
    // Back would lead into the last episode, or to the blank page a tab opens on.
    await this.cdp?.send('Page.resetNavigationHistory').catch(() => {});
    if (this.blocked.length)
      throw new NavigationError(url, `it led to ${this.blocked[0]}, which the allowlist blocks`);
    await page.waitForLoadState('load', { timeout: Math.min(2_000, c.navigationTimeoutMs) }).catch(() => {});
    return this.capture(null);
  }

  /** A new context with one blank tab, replacing the current one. */
  private async openContext(): Promise<Page> {
    await this.closeContext();
    const c = this.config;
    const context = await withDeadline(
      'creating a browser context',
      c.navigationTimeoutMs,
      this.browser.newContext({
        viewport: c.viewport,
        deviceScaleFactor: 1,
        acceptDownloads: false,
        locale: c.locale,
        timezoneId: c.timezoneId,
        userAgent: c.userAgent,
        ignoreHTTPSErrors: c.ignoreHTTPSErrors,
        reducedMotion: 'reduce',
        // Service workers would serve pages past our routes and the allowlist.
        serviceWorkers: 'block',
      }),
    );
    this.context = context;
    this.contextClosed = false;
    this.origins.clear();
    context.on('close', () => {
      this.contextClosed = true;
    });
    // Every origin a frame of this context loads may keep storage: recycle() clears each one.
    context.on('page', (p) => {
      p.on('framenavigated', (f) => this.noteOrigin(f.url()));
    });
    context.setDefaultTimeout(c.actionTimeoutMs);
    context.setDefaultNavigationTimeout(c.navigationTimeoutMs);
    if (this.allowlist.patterns.length) await context.route('**/*', (route) => this.gate(route));
    this.tabs = new TabSet(context);
    // A new tab starts a renderer process: slow on a busy machine, so it gets the navigation deadline.
    const page = await withDeadline('opening a tab', c.navigationTimeoutMs, context.newPage());
    this.tabs.activate(page);
    this.home = page;
    // Chromium's protocol clears storage and history; without it (another browser behind
    // --browser-ws) every episode gets a new context instead.
    this.cdp = await context.newCDPSession(page).catch(() => null);
    return page;
  }

  /**
   * Readies the last episode's context for the next one and returns its kept tab, or null when it
   * cannot be reused (none yet, closed, crashed, the kept tab gone, or cleaning failed: then the
   * context is closed). Every other tab is closed; the kept one is unloaded (about:blank: its
   * timers, forms, dialogs and unload handlers end with the document); then cookies, the storage
   * of every origin the context loaded (local, session, IndexedDB, cache) and window.name are
   * cleared. Its history is reset once the start page loads (see reset).
   */
  private async recycle(): Promise<Page | null> {
    const ctx = this.context;
    const keep = this.home;
    const cdp = this.cdp;
    if (!ctx || !keep || !cdp || !this.tabs || keep.isClosed()) return null;
    if (this.contextClosed || !this.browser.isConnected()) return null;
    try {
      await withDeadline(
        'clearing the browser context for the next episode',
        this.config.navigationTimeoutMs,
        (async () => {
          await Promise.all(
            ctx
              .pages()
              .filter((p) => p !== keep)
              .map((p) => p.close()),
          );
          await keep.goto('about:blank', { waitUntil: 'commit' });
          const origins = [...this.origins];
          this.origins.clear();
          await Promise.all([
            ctx.clearCookies(),
            keep.evaluate("window.name = ''"),
            ...origins.map((origin) =>
              cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' }),
            ),
          ]);
        })(),
      );
    } catch {
      await this.closeContext();
      return null;
    }
    this.tabs.dispose();
    this.tabs = new TabSet(ctx);
    this.tabs.activate(keep);
    return keep;
  }

  /** The protocol session of the kept tab; other tabs screenshot through Playwright. */
  private sessionOf(page: Page): CDPSession | null {
    return page === this.home ? this.cdp : null;
  }

  private noteOrigin(url: string): void {
    if (!url.startsWith('http:') && !url.startsWith('https:')) return;
    try {
      this.origins.add(new URL(url).origin);
    } catch {
      // not a URL with an origin: nothing stored under it
    }
  }

  /** Blocks document loads outside the allowlist; other requests pass. */
  private async gate(route: Route): Promise<void> {
    const req = route.request();
    if (req.isNavigationRequest() && !this.allowlist.allows(req.url())) {
      this.blocked.push(req.url());
      // A 204 answer cancels a navigation and leaves the page as it was; an abort would show an error page.
      await route.fulfill({ status: 204, body: '' }).catch(() => {});
      return;
    }
    await route.fallback().catch(() => {});
  }

  /**
   * Validates and runs one action, then observes. An invalid action (a zod error naming the field)
   * or a failed one is reported in `lastActionError`; it does not throw.
   */
  async step(action: Action | unknown): Promise<Observation> {
    this.requireContext();
    const t0 = performance.now();
    this.steps++;
    const parsed = Action.safeParse(action);
    const error: ActionError | null = parsed.success
      ? await runAction(this.actionContext(), parsed.data)
      : { message: `invalid action: ${describeZodIssues(parsed.error.issues)}`, kind: 'invalid' };
    const t1 = performance.now();
    const obs = await this.capture(error);
    const t2 = performance.now();
    this.lastStepTiming = { actionMs: t1 - t0, observeMs: t2 - t1, totalMs: t2 - t0 };
    return obs;
  }

  /** A fresh observation of the active tab, without acting. */
  async observe(): Promise<Observation> {
    this.requireContext();
    return this.capture(null);
  }

  /** Closes this environment's context and tabs. The shared browser stays up. */
  async close(): Promise<void> {
    await this.closeContext();
    this.onClose(this);
  }

  private requireContext(): void {
    if (!this.context || !this.tabs)
      throw new InputError('the environment has no open page: call reset(task) first');
    if (this.contextClosed || !this.browser.isConnected()) throw new TargetClosedError('browser context');
  }

  private async closeContext(): Promise<void> {
    const ctx = this.context;
    this.context = null;
    this.tabs?.dispose();
    this.tabs = null;
    this.home = null;
    this.cdp = null;
    if (ctx) await ctx.close().catch(() => {});
  }

  private actionContext(): ActionContext {
    const tabs = this.tabs!;
    return {
      tabs,
      config: this.config,
      allowlist: this.allowlist,
      blocked: this.blocked,
      page: () => this.activePage(),
      alive: () => !this.contextClosed && this.browser.isConnected(),
    };
  }

  private async activePage(): Promise<Page> {
    this.requireContext();
    return this.tabs!.active ?? (await this.tabs!.openBlank());
  }

  private async capture(error: ActionError | null): Promise<Observation> {
    const c = this.config;
    let page = await this.activePage();
    let ex: PageExtraction | null = null;
    let shot: Screenshot | null = null;
    for (let attempt = 0; ; attempt++) {
      try {
        // The capture is asked for first, so that its frame need not wait behind the extraction
        // on the page's main thread; the encoding can then run beside the extraction.
        [shot, ex] = await Promise.all([
          c.screenshot.enabled
            ? captureScreenshot(page, c.screenshot, c.actionTimeoutMs, this.sessionOf(page))
            : Promise.resolve(null),
          extractElements(
            page,
            { maxElements: c.maxElements, maxTextLength: c.maxTextLength },
            c.actionTimeoutMs,
          ),
        ]);
        // A navigation that began after the action settled can leave the new document half-parsed
        // (its parser held at a script behind a loading stylesheet): its elements then sit unstyled
        // at the body's edge. Observe it again once parsed, so the step sees the page it acts on.
        if (ex.ready || attempt >= 2) break;
        await page.waitForLoadState('domcontentloaded', { timeout: c.navigationTimeoutMs }).catch(() => {});
      } catch (e) {
        if (isClosedError(e)) {
          if (!this.browser.isConnected() || this.contextClosed)
            throw new TargetClosedError('observing the page', e);
          page = await this.activePage(); // the tab closed itself: observe the one now active
        } else if (attempt >= 2 || !RETRYABLE.test(firstLine(e))) {
          throw e;
        }
        await page.waitForLoadState('domcontentloaded', { timeout: c.navigationTimeoutMs }).catch(() => {});
      }
    }
    const tabs = await this.tabs!.list(ex.title);
    const view = {
      url: ex.url,
      title: ex.title,
      tabs,
      elements: ex.elements,
      texts: ex.texts,
      scroll: ex.scroll,
    };
    return {
      schemaVersion: OBSERVATION_SCHEMA_VERSION,
      ...view,
      text: serializeView({ ...view, layout: ex.layout }),
      screenshot: shot,
      lastActionError: error?.message ?? null,
      ...(error ? { lastActionErrorKind: error.kind } : {}),
      stepIndex: this.steps,
      memory: '',
      progress: '',
      notes: [],
    };
  }
}
