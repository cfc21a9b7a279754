/**
 * Observation benchmark (`npm run bench:observe [-- --runs N]`).
 *
 * On a generated 200-element and 1,000-element page, the median time of one full observation
 * (`env.observe()`: element extraction + text view + JPEG screenshot + tabs) against, in the same
 * run and on the same pages:
 *   floor      one no-op `page.evaluate` plus one JPEG `page.screenshot` (same quality and options
 *              as the observation's screenshot), back to back;
 *   floor-cdp  the same with the screenshot as one `Page.captureScreenshot` protocol call, which is
 *              how the observation takes it (the same bytes, fewer round trips): the stricter floor;
 *   stagehand  Stagehand 3.7.3's `page.snapshot()` (its own Chromium, same binary and viewport).
 * Ours and the floor run interleaved in one browser, so machine load hits both alike; Stagehand runs
 * after, with our browser closed.
 * Targets: observation <= 1.5x floor, and <= 0.2x Stagehand's snapshot, on both pages; the ratio
 * to floor-cdp is printed beside it.
 */

import { cpus, loadavg } from 'node:os';
import { generatedPage } from '../src/browser/fixtures/generated.ts';
import { serveFixtures } from '../src/browser/fixtures/server.ts';
import { BrowserHost, chromiumPath, DEFAULT_CHROMIUM_ARGS } from '../src/browser/index.ts';

const argRuns = process.argv.indexOf('--runs');
const RUNS = Number(argRuns > 0 ? process.argv[argRuns + 1] : (process.env.BENCH_RUNS ?? 15));
const WARMUP = 3;
const QUALITY = 60;
const VIEWPORT = { width: 1280, height: 800 };

// ---- timing -----------------------------------------------------------------------------------

type Runner = () => Promise<unknown>;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function time(fn: Runner): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

interface StagehandPage {
  goto(url: string): Promise<unknown>;
  snapshot(): Promise<unknown>;
}

/** Starts Stagehand on its own Chromium; on failure, the exact error stands in for the column. */
async function openStagehand(): Promise<{ page: StagehandPage; close(): Promise<void> } | { error: string }> {
  try {
    const { Stagehand } = await import('@browserbasehq/stagehand');
    const sh = new Stagehand({
      env: 'LOCAL',
      verbose: 0,
      disablePino: true,
      localBrowserLaunchOptions: {
        executablePath: chromiumPath(),
        headless: true,
        args: DEFAULT_CHROMIUM_ARGS,
        viewport: VIEWPORT,
      },
    });
    await sh.init();
    const page = sh.context.pages()[0] as unknown as StagehandPage;
    return { page, close: () => sh.close() };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

// ---- main -------------------------------------------------------------------------------------

/** Runs each runner WARMUP + RUNS times, rotating the order so no column always follows another. */
async function measure(runners: Record<string, Runner>): Promise<Record<string, number[]>> {
  const names = Object.keys(runners);
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      const ms = await time(runners[name]);
      if (i >= WARMUP) times[name].push(ms);
    }
  }
  return times;
}

const PAGES = ['/p200', '/p1000'];
const loadBefore = loadavg();
const srv = await serveFixtures({ '/p200': generatedPage(200, 1), '/p1000': generatedPage(1000, 2) });
const results: Record<string, { elements: number; texts: number; times: Record<string, number[]> }> = {};
let stagehandError = '';
try {
  // Phase 1: our observation and the floor, interleaved, in one browser.
  const host = await BrowserHost.launch();
  try {
    const env = await host.newEnv({ viewport: VIEWPORT, screenshot: { enabled: true, quality: QUALITY } });
    for (const path of PAGES) {
      const first = await env.reset({ startUrl: srv.url(path) });
      const page = env.page;
      const cdp = await page.context().newCDPSession(page);
      const times = await measure({
        observe: () => env.observe(),
        floor: async () => {
          await page.evaluate('0');
          await page.screenshot({ type: 'jpeg', quality: QUALITY, caret: 'initial' });
        },
        'floor-cdp': async () => {
          await page.evaluate('0');
          await cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: QUALITY });
        },
      });
      await cdp.detach();
      results[path] = { elements: first.elements.length, texts: first.texts.length, times };
    }
  } finally {
    await host.close();
  }
  // Phase 2: Stagehand on its own browser, so neither browser's work slows the other's timings.
  const stagehand = await openStagehand();
  if ('error' in stagehand) stagehandError = stagehand.error;
  else {
    try {
      for (const path of PAGES) {
        await stagehand.page.goto(srv.url(path));
        Object.assign(results[path].times, await measure({ stagehand: () => stagehand.page.snapshot() }));
      }
    } finally {
      await stagehand.close().catch(() => {});
    }
  }
} finally {
  await srv.close();
}

const cell = (xs: number[]) => `${median(xs).toFixed(1)} ms (min ${Math.min(...xs).toFixed(1)})`;
const rows: string[] = [];
const verdicts: string[] = [];
for (const path of PAGES) {
  const { elements, texts, times } = results[path];
  const ours = median(times.observe);
  const vsFloor = ours / median(times.floor);
  const sh = times.stagehand ? median(times.stagehand) : null;
  rows.push(
    `${path} (${elements} elements, ${texts} text blocks)\n  observe   ${cell(times.observe)}\n  floor     ${cell(times.floor)}\n  floor-cdp ${cell(times['floor-cdp'])}\n` +
      `  stagehand ${sh === null ? `n/a (${stagehandError})` : cell(times.stagehand)}`,
  );
  verdicts.push(
    `${path}: observe/floor ${vsFloor.toFixed(2)}x ${vsFloor <= 1.5 ? '<= 1.5 (met)' : '> 1.5 (NOT met)'}; observe/floor-cdp ${(ours / median(times['floor-cdp'])).toFixed(2)}x`,
  );
  if (sh !== null) {
    const vsSh = ours / sh;
    verdicts.push(
      `${path}: observe/stagehand ${vsSh.toFixed(2)}x ${vsSh <= 0.2 ? '<= 0.2 (met)' : '> 0.2 (NOT met)'}`,
    );
  }
}

const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
process.stdout.write(
  `rmsweb observation benchmark: median (and min) of ${RUNS} runs after ${WARMUP} warm-up, viewport ` +
    `${VIEWPORT.width}x${VIEWPORT.height}, JPEG q${QUALITY}; ${cpus().length} CPUs, load average ${load(loadBefore)} -> ${load(loadavg())}\n` +
    `${rows.join('\n')}\nratios of medians:\n${verdicts.map((v) => `  ${v}`).join('\n')}\n`,
);
