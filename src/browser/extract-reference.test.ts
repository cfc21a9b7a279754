import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractBoth, firstDifference } from './fixtures/extract-reference/index.ts';
import { generatedPage } from './fixtures/generated.ts';
import { FIXTURES } from './fixtures/pages.ts';
import { type FixtureServer, serveFixtures } from './fixtures/server.ts';
import { type BrowserEnv, BrowserHost } from './index.ts';

// The tuned extractor must return exactly what the reference (the plain one it replaced) returns:
// same elements, names, attributes, visibility, covered and scrollable flags, boxes and text blocks.
let host: BrowserHost;
let env: BrowserEnv;
let srv: FixtureServer;

beforeAll(async () => {
  srv = await serveFixtures({
    ...FIXTURES,
    '/p1000': generatedPage(1000, 2),
    '/p200': generatedPage(200, 1),
  });
  host = await BrowserHost.launch();
  env = await host.newEnv({ viewport: { width: 1280, height: 800 }, screenshot: { enabled: false } });
});

afterAll(async () => {
  await host?.close();
  await srv?.close();
});

async function expectSame(label: string): Promise<number> {
  const { reference, current } = await extractBoth(env.page);
  expect(firstDifference(reference, current), label).toBeNull();
  return (JSON.parse(current) as { elements: unknown[] }).elements.length;
}

describe('the tuned extractor returns what the reference returns', () => {
  it('on the 1,000- and 200-element bench pages, at the top and scrolled', async () => {
    for (const path of ['/p1000', '/p200']) {
      await env.reset({ startUrl: srv.url(path) });
      expect(await expectSame(path)).toBe(path === '/p1000' ? 1000 : 200);
      for (const dy of [350, 3000]) {
        await env.page.evaluate(`scrollBy(0, ${dy})`);
        await expectSame(`${path} scrolled by ${dy}`);
      }
    }
  });

  it('on every fixture page (frames, shadow roots, modals, hidden and covered elements, forms)', async () => {
    const paths = Object.keys(FIXTURES).filter((p) => typeof FIXTURES[p] === 'string');
    expect(paths.length).toBeGreaterThan(8);
    for (const path of paths) {
      await env.reset({ startUrl: srv.url(path) });
      await expectSame(path);
      await env.page.evaluate('scrollBy(0, 400)');
      await expectSame(`${path} scrolled`);
    }
  });

  it('after actions change the page: typed values, checked boxes, a chosen option, a closed overlay', async () => {
    await env.reset({ startUrl: srv.url('/form') });
    const obs = await env.step({ type: 'input', index: 1, text: 'ada@example.com', clear: true });
    expect(obs.lastActionError).toBeNull();
    await expectSame('/form after typing');
    const gift = obs.elements.find((e) => e.attributes.name === 'gift')!;
    await env.step({ type: 'click', index: gift.index });
    const size = obs.elements.find((e) => e.tag === 'select')!;
    await env.step({ type: 'select_dropdown', index: size.index, text: 'Large' });
    await expectSame('/form after clicking and choosing');
    const modal = await env.reset({ startUrl: srv.url('/modal') });
    expect(modal.elements.find((e) => e.text === 'Buy now')?.attributes.covered).toBe('true');
    const close = modal.elements.find((e) => e.text === 'Close')!;
    await env.step({ type: 'click', index: close.index });
    await expectSame('/modal after closing the overlay');
  });
});
