import type { Frame, Page, Request } from 'playwright-core';
import { firstLine, isClosedError } from './deadline.ts';

/**
 * Watches one page across an action: whether the action started a main-frame navigation, whether
 * it committed or failed. `settle()` then waits for what was started, so the next observation sees
 * the page the action led to rather than the one it left.
 */
export class NavWatch {
  private request: Request | null = null;
  private committed = false;
  private failure: string | null = null;
  private finished = false;
  private wake: (() => void) | null = null;
  private readonly onRequest = (r: Request) => {
    if (this.isMainNav(r)) {
      this.request = r;
      this.failure = null;
      this.finished = false;
      this.ping();
    }
  };
  private readonly onFailed = (r: Request) => {
    if (r === this.request) {
      this.failure = r.failure()?.errorText ?? 'failed';
      this.ping();
    }
  };
  private readonly onFinished = (r: Request) => {
    if (r === this.request) {
      this.finished = true;
      this.ping();
    }
  };
  private readonly onNavigated = (f: Frame) => {
    if (f === this.page.mainFrame()) {
      this.committed = true;
      this.ping();
    }
  };

  constructor(private readonly page: Page) {
    page.on('request', this.onRequest);
    page.on('requestfailed', this.onFailed);
    page.on('requestfinished', this.onFinished);
    page.on('framenavigated', this.onNavigated);
  }

  private isMainNav(r: Request): boolean {
    try {
      return r.isNavigationRequest() && r.frame() === this.page.mainFrame();
    } catch {
      return false; // service-worker requests have no frame
    }
  }

  private ping(): void {
    this.wake?.();
  }

  private async until(cond: () => boolean, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (!cond()) {
      const left = end - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        // Events on this page wake us at once; `extra` conditions (a new tab) are polled.
        const t = setTimeout(resolve, Math.min(left, 20));
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
    return true;
  }

  /**
   * Waits up to `settleMs` for a navigation (or, with `extra`, for that condition, e.g. a new tab)
   * to start, then for a started navigation to reach DOMContentLoaded (and `load`, briefly).
   * Returns a problem to report (failed or unfinished load), or null.
   */
  async settle(settleMs: number, navigationTimeoutMs: number, extra?: () => boolean): Promise<string | null> {
    if (this.page.isClosed()) return null;
    await this.until(() => this.request !== null || this.committed || (extra?.() ?? false), settleMs);
    if (this.request && !this.committed) {
      const done = await this.until(
        () => this.committed || this.failure !== null || this.finished,
        navigationTimeoutMs,
      );
      // A response that does not replace the page (204, a download) finishes without committing.
      if (this.finished && !this.committed) await this.until(() => this.committed, 150);
      if (this.failure !== null) return `navigation to ${this.request.url()} failed (${this.failure})`;
      if (!done) return `navigation to ${this.request.url()} did not commit within ${navigationTimeoutMs}ms`;
    }
    if (!this.committed) return null;
    try {
      await this.page.waitForLoadState('domcontentloaded', { timeout: navigationTimeoutMs });
    } catch (e) {
      if (isClosedError(e)) return null;
      return `the page did not finish loading within ${navigationTimeoutMs}ms (${firstLine(e)})`;
    }
    // Images and late scripts: worth a short wait for the screenshot, not worth an error.
    await this.page
      .waitForLoadState('load', { timeout: Math.min(2_000, navigationTimeoutMs) })
      .catch(() => {});
    return null;
  }

  dispose(): void {
    this.page.off('request', this.onRequest);
    this.page.off('requestfailed', this.onFailed);
    this.page.off('requestfinished', this.onFinished);
    this.page.off('framenavigated', this.onNavigated);
    this.ping();
  }
}
