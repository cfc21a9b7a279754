import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../browser/launch.ts';
import { DEFAULT_CHROMIUM_ARGS } from '../browser/options.ts';
import { startViewer, type ViewerServer } from './server.ts';
import { buildFixtureRun, type FixtureRun, NOTE, SHOP_BOXES, VIEWPORT } from './testing/fixture-run.ts';

const OUT = fileURLToPath(new URL('../../test-output/viewer/', import.meta.url));

let tmp: string;
let browser: Browser;
let page: Page;
let fx: FixtureRun;
let server: ViewerServer;
const problems: string[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rmsweb-viewer-'));
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: DEFAULT_CHROMIUM_ARGS,
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const builder = await context.newPage();
  fx = await buildFixtureRun(tmp, builder);
  await builder.close();
  server = await startViewer({ runDir: fx.runDir, models: [fx.modelsDir], port: 0 });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning')
      problems.push(`console ${m.type()} on ${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('requestfailed', (r) => {
    // A navigation cancels the previous page's pending loads (favicon, images): not a fault.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED')
      problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.url()}`);
  });
});

afterAll(async () => {
  await server?.close();
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function snap(name: string): Promise<void> {
  // A full-page capture of a scrolled page draws the sticky header mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
}

/** The box's rectangle relative to its image, in displayed pixels, plus the image's size. */
async function boxInImage(box: Locator, img: Locator) {
  const [b, i] = await Promise.all([box.boundingBox(), img.boundingBox()]);
  if (!b || !i) throw new Error('box or image not rendered');
  return {
    left: b.x - i.x,
    top: b.y - i.y,
    right: b.x + b.width - i.x,
    bottom: b.y + b.height - i.y,
    width: i.width,
    height: i.height,
  };
}

/** Asserts the box lies inside the image and over `bbox` (page coords at scroll `scrollY`). */
async function expectBoxOver(
  box: Locator,
  img: Locator,
  bbox: { x: number; y: number; width: number; height: number },
  scrollY: number,
) {
  const r = await boxInImage(box, img);
  expect(r.left).toBeGreaterThanOrEqual(-0.5);
  expect(r.top).toBeGreaterThanOrEqual(-0.5);
  expect(r.right).toBeLessThanOrEqual(r.width + 0.5);
  expect(r.bottom).toBeLessThanOrEqual(r.height + 0.5);
  const sx = r.width / VIEWPORT.width;
  const sy = r.height / VIEWPORT.height;
  expect(Math.abs(r.left - bbox.x * sx)).toBeLessThan(2);
  expect(Math.abs(r.top - (bbox.y - scrollY) * sy)).toBeLessThan(2);
  expect(Math.abs(r.right - r.left - bbox.width * sx)).toBeLessThan(2);
}

const naturalWidth = (img: Locator) => img.evaluate((e) => (e as HTMLImageElement).naturalWidth);

describe('run viewer in Chromium', () => {
  it('clicks through home -> tasks (filtered) -> task -> trajectory', async () => {
    await page.goto(server.url);
    await expect(page.locator('h1').textContent()).resolves.toContain('viewer-fixture');
    await expect(
      page.locator('.card', { hasText: 'critical states' }).locator('b').textContent(),
    ).resolves.toBe('2');
    await expect(
      page.locator('.card', { hasText: 'attempts' }).first().locator('b').textContent(),
    ).resolves.toBe('3');
    await snap('home');

    await page.click('header nav a:has-text("Tasks")');
    await page.waitForURL(/\/tasks$/);
    await expect(page.locator('#tasks tbody tr').count()).resolves.toBe(2);
    await page.selectOption('select[name=site]', 'shop');
    await page.waitForURL(/site=shop/);
    await expect(page.locator('#tasks tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('#tasks tbody tr').first().textContent()).resolves.toContain(
      'Add the Trail shoes X1 to the cart.',
    );
    await expect(page.locator('#tasks tbody tr .badge').count()).resolves.toBe(2);
    await snap('tasks');
    await page.selectOption('select[name=outcome]', 'unjudged');
    await page.waitForURL(/outcome=unjudged/);
    await expect(page.locator('#tasks tbody tr').count()).resolves.toBe(0);
    await page.goto(`${server.url}tasks?outcome=solved`);

    await page.click('a.task-link');
    await page.waitForURL(/\/task\/shop-cart-001$/);
    await expect(page.locator('#attempts tbody tr').count()).resolves.toBe(2);
    await expect(page.locator('main').textContent()).resolves.toContain(NOTE);
    await snap('task');

    await page.locator('a.attempt-link').first().click();
    // The page's script marks the current step in the hash (#step-0) as soon as it runs; on a busy
    // machine that can happen before waitForURL looks, so the pattern takes the hash too.
    await page.waitForURL(/\/trajectory\/traj-fail(#.*)?$/);
  });

  it('trajectory: screenshots render, the acted-on box sits on the element, keys move between steps and attempts', async () => {
    await page.goto(`${server.url}trajectory/${fx.failId}`);
    const current = page.locator('section.step.current');
    await expect(current.getAttribute('id')).resolves.toBe('step-0');
    await expect(naturalWidth(current.locator('img'))).resolves.toBe(400);
    await expectBoxOver(current.locator('.box'), current.locator('img'), SHOP_BOXES.search, 0);

    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/#step-1$/);
    await expect(page.locator('#step-1').isVisible()).resolves.toBe(true);
    await expect(page.locator('#step-0').isVisible()).resolves.toBe(false);
    await expect(naturalWidth(page.locator('#step-1 img'))).resolves.toBeGreaterThan(0);
    await expectBoxOver(page.locator('#step-1 .box'), page.locator('#step-1 img'), SHOP_BOXES.wishlist, 500);
    await expect(page.locator('#step-1 .result').textContent()).resolves.toContain(
      'covered by a cookie banner',
    );
    await expect(page.locator('#step-1 .result [data-error-kind]').textContent()).resolves.toContain(
      '(covered by an overlay)',
    );
    await expect(page.locator('.chip.err').count()).resolves.toBe(1);
    await snap('trajectory');

    await page.keyboard.press('j');
    await page.waitForURL(/#step-2$/);
    await expect(page.locator('#step-2 .box').count()).resolves.toBe(0); // done targets no element
    await page.keyboard.press('k');
    await page.waitForURL(/#step-1$/);

    await page.keyboard.press(']');
    await page.waitForURL(/\/trajectory\/traj-ok(#.*)?$/);
    const notes = page.locator('.notes').first();
    await expect(notes.textContent()).resolves.toContain('stripped from training data');
    await expect(notes.textContent()).resolves.toContain(NOTE);
    await page.keyboard.press('l'); // unbound: nothing happens
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/#step-1$/);
    await expectBoxOver(page.locator('#step-1 .box'), page.locator('#step-1 img'), SHOP_BOXES.cart, 500);
    await snap('trajectory-with-notes');
    await page.keyboard.press('[');
    await page.waitForURL(/\/trajectory\/traj-fail(#.*)?$/);
    await page.keyboard.press('u');
    await page.waitForURL(/\/task\/shop-cart-001$/);
  });

  it('falls back to the text view when screenshots were not taken', async () => {
    await page.goto(`${server.url}trajectory/${fx.textId}`);
    await expect(page.locator('img').count()).resolves.toBe(0);
    const step = page.locator('section.step.current');
    await expect(step.locator('.no-shot').textContent()).resolves.toContain('screenshots disabled');
    await expect(step.locator('pre.textview .acted').textContent()).resolves.toContain('[1]<button>Go');
    await snap('trajectory-text-only');
  });

  it('critical states: list and side-by-side pairs with both elements highlighted', async () => {
    await page.goto(`${server.url}critical`);
    await expect(page.locator('#critical tbody tr').count()).resolves.toBe(2);
    await snap('critical-list');
    await page.click('a.critical-link:has-text("cs-1")');
    await page.waitForURL(/\/critical\/cs-1$/);
    const ok = page.locator('.side.success');
    const bad = page.locator('.side.failure');
    await expect(naturalWidth(ok.locator('img'))).resolves.toBeGreaterThan(0);
    await expect(naturalWidth(bad.locator('img'))).resolves.toBeGreaterThan(0);
    await expect(ok.locator('.box.success').count()).resolves.toBe(1);
    await expect(bad.locator('.box.failure').count()).resolves.toBe(1);
    await expectBoxOver(ok.locator('.box.success'), ok.locator('img'), SHOP_BOXES.cart, 500);
    await expectBoxOver(bad.locator('.box.failure'), bad.locator('img'), SHOP_BOXES.wishlist, 500);
    await expect(page.locator('#label').textContent()).resolves.toBe('lookalike-element');
    await expect(page.locator('#comparability tbody tr').count()).resolves.toBe(5);
    await expect(page.locator('main').textContent()).resolves.toContain('no (different elements)');
    await snap('critical-pair');

    await page.keyboard.press('ArrowLeft');
    await page.waitForURL(/\/critical\/cs-2$/);
    await expect(page.locator('.side.success .box.success').count()).resolves.toBe(1);
    await expect(page.locator('.side.failure img').count()).resolves.toBe(0);
    await expect(page.locator('.side.failure .no-shot').textContent()).resolves.toContain(
      'not in the image store',
    );

    await page.click('.side.success a.traj-link');
    await page.waitForURL(/\/trajectory\/traj-ok#step-1$/);
    await expect(page.locator('section.step.current').getAttribute('id')).resolves.toBe('step-1');
  });

  it('RL curves: reward, gates, salvage share, KL and losses from the store and model folders', async () => {
    await page.goto(`${server.url}curves`);
    const sets = page.locator('section.curve-set h2');
    await expect(sets.allTextContents()).resolves.toEqual([
      'rl/salvage-ds/models/sd',
      'grpo · grpo',
      'sft · sft',
    ]);
    const titles = await page
      .locator('section.curve-set')
      .first()
      .locator('.charts:not(.small) svg > text:first-child')
      .allTextContents();
    expect(titles).toEqual(['Reward', 'Gate pass rates', 'Salvage share', 'KL', 'Losses']);
    await expect(page.locator('svg[aria-label="Mean reward per step"] path').count()).resolves.toBe(2);
    // Each salvage-ds chart draws one path per metric: 1 + 2 + 1 + 2 + 3.
    await expect(
      page.locator('section.curve-set').first().locator('.charts:not(.small) svg path').count(),
    ).resolves.toBe(9);
    await snap('curves');
  });

  it('eval and ablation tables', async () => {
    await page.goto(`${server.url}tables`);
    await expect(page.locator('#evals tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('#evals .pass1').textContent()).resolves.toBe('50.0% ± 70.7');
    const ablation = page.locator('table.ablation');
    await expect(ablation.locator('tbody tr').count()).resolves.toBe(3);
    await expect(ablation.locator('tbody tr').nth(1).textContent()).resolves.toContain('49.0% ± 2.0');
    await expect(page.locator('svg').count()).resolves.toBe(2);
    await snap('tables');
  });

  it('pages load without console errors, failed requests or error responses', () => {
    expect(problems).toEqual([]);
  });
});

function get(port: number, path: string, opts: { host?: string; method?: string } = {}) {
  return new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        headers: { host: opts.host ?? `127.0.0.1:${port}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('viewer server', () => {
  it('serves images by hash only, 404s unknown pages, and refuses other hosts and methods', async () => {
    const traj = server.view.store.getTrajectory(fx.failId)!;
    const hash = traj.steps[0].observation.screenshot!.hash;
    const img = await get(server.port, `/img/${hash}`);
    expect(img.status).toBe(200);
    expect(img.type).toBe('image/jpeg');
    expect([...img.body.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect((await get(server.port, `/img/${'0'.repeat(64)}`)).status).toBe(404);
    expect((await get(server.port, '/img/..%2Fstore.sqlite')).status).toBe(404);
    const missing = await get(server.port, '/trajectory/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toContain('Not found');
    expect((await get(server.port, '/', { host: 'evil.example:80' })).status).toBe(403);
    expect((await get(server.port, '/', { method: 'POST' })).status).toBe(405);
    const home = await get(server.port, '/');
    expect(home.body.toString()).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('adds critical states from a --critical file outside the run folder', async () => {
    const line = readFileSync(join(fx.runDir, 'critical.jsonl'), 'utf8').replace(
      '"id":"cs-1"',
      '"id":"cs-extra"',
    );
    mkdirSync(join(tmp, 'elsewhere'), { recursive: true });
    const file = join(tmp, 'elsewhere', 'extra.jsonl');
    writeFileSync(file, line);
    const other = await startViewer({ runDir: fx.runDir, critical: [file] });
    try {
      const list = (await get(other.port, '/critical')).body.toString();
      expect(list).toContain('/critical/cs-extra');
      expect(list).toContain('extra.jsonl');
      expect((await get(other.port, '/critical/cs-extra')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('fails clearly on a missing run folder or --critical file', async () => {
    await expect(startViewer({ runDir: join(tmp, 'nope') })).rejects.toThrow(/does not exist/);
    await expect(startViewer({ runDir: fx.runDir, critical: [join(tmp, 'none.jsonl')] })).rejects.toThrow(
      /none\.jsonl.*does not exist/,
    );
  });
});
