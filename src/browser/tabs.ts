import type { BrowserContext, Dialog, Page } from 'playwright-core';
import type { Tab } from '../core/index.ts';

/**
 * The tabs of one browser context, with stable string ids ('0', '1', ...) in opening order, and
 * which one is active. Pages the site opens itself (popups, target=_blank) are registered as they
 * appear; when the active tab closes, the most recently opened remaining tab becomes active.
 */
export class TabSet {
  private readonly ids = new Map<Page, string>();
  private readonly seq = new Map<Page, number>();
  private readonly order: Page[] = [];
  private next = 0;
  private activePage: Page | null = null;
  /** Bumped for every new tab, so an action can tell which tabs it opened. */
  opened = 0;
  private readonly onPage = (p: Page) => this.add(p);
  // Per-page listeners, kept so `dispose` can detach them from a page that outlives this set.
  private readonly listeners = new Map<Page, { close: () => void; dialog: (d: Dialog) => void }>();

  constructor(private readonly context: BrowserContext) {
    context.on('page', this.onPage);
  }

  /**
   * Detaches this set from its context and pages. A reused context (see BrowserEnv.reset) gets a
   * fresh set per episode, so tab ids restart at '0' and no listener piles up on a kept page.
   */
  dispose(): void {
    this.context.off('page', this.onPage);
    for (const [page, l] of this.listeners) {
      page.off('close', l.close);
      page.off('dialog', l.dialog);
    }
    this.listeners.clear();
  }

  /** Registers a page (idempotent) and returns its id. */
  add(page: Page): string {
    const known = this.ids.get(page);
    if (known !== undefined) return known;
    const id = String(this.next++);
    this.ids.set(page, id);
    this.order.push(page);
    this.seq.set(page, ++this.opened);
    const l = {
      close: () => this.remove(page),
      // Alerts and confirms would block the page until answered; accept them as a user would.
      dialog: (d: Dialog) => {
        d.accept().catch(() => {});
      },
    };
    this.listeners.set(page, l);
    page.on('close', l.close);
    page.on('dialog', l.dialog);
    this.activePage ??= page;
    return id;
  }

  private remove(page: Page): void {
    this.listeners.delete(page);
    const i = this.order.indexOf(page);
    if (i >= 0) this.order.splice(i, 1);
    this.ids.delete(page);
    if (this.activePage === page) this.activePage = this.order.at(-1) ?? null;
  }

  /** The active page, or null when every tab is closed. */
  get active(): Page | null {
    if (this.activePage?.isClosed()) this.remove(this.activePage);
    return this.activePage;
  }

  activate(page: Page): void {
    this.add(page);
    this.activePage = page;
  }

  idOf(page: Page): string | undefined {
    return this.ids.get(page);
  }

  byId(id: string): Page | undefined {
    return this.order.find((p) => this.ids.get(p) === id);
  }

  /** Open pages in opening order. */
  pages(): Page[] {
    return this.order.filter((p) => !p.isClosed());
  }

  /** Pages opened after the `opened` counter read `mark`, oldest first. */
  openedSince(mark: number): Page[] {
    return this.pages().filter((p) => (this.seq.get(p) ?? 0) > mark);
  }

  /** The Tab list of an observation; `activeTitle` saves a round trip for the active page. */
  async list(activeTitle: string): Promise<Tab[]> {
    const active = this.active;
    return Promise.all(
      this.pages().map(async (p) => ({
        id: this.ids.get(p) ?? '?',
        url: p.url(),
        title: p === active ? activeTitle : await p.title().catch(() => ''),
        active: p === active,
      })),
    );
  }

  /** Opens a blank tab (used when the last one closed) and makes it active. */
  async openBlank(): Promise<Page> {
    const p = await this.context.newPage();
    this.activate(p);
    return p;
  }
}
