import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, RmswebError } from '../core/index.ts';
import { page } from './fixtures/pages.ts';
import { type FixtureServer, serveFixtures } from './fixtures/server.ts';
import { BrowserHost, chromiumPath, DEFAULT_CHROMIUM_ARGS } from './index.ts';

let srv: FixtureServer;
let host: BrowserHost;

beforeAll(async () => {
  host = await BrowserHost.launch();
  srv = await serveFixtures({
    // Echoes the cookies the browser sent, so isolation between contexts is visible.
    '/cookies': (url) => ({ body: page('Cookies', `<p id="c">${url.searchParams.get('n') ?? ''}</p>`) }),
    '/whoami': (url) => ({
      body: page('Who', `<p>${url.search}</p><script>document.title = document.cookie || 'none'</script>`),
    }),
  });
});

afterAll(async () => {
  await host?.close();
  await srv?.close();
});

describe('BrowserHost', () => {
  it('runs several environments concurrently in one browser, each with its own cookies and tabs', async () => {
    const [a, b] = await Promise.all([
      host.newEnv({ screenshot: { enabled: false } }),
      host.newEnv({ screenshot: { enabled: false } }),
    ]);
    const [oa, ob] = await Promise.all([
      a.reset(
        { startUrl: srv.url('/whoami?a') },
        { cookies: [{ name: 'sess', value: 'A', url: srv.origin }] },
      ),
      b.reset(
        { startUrl: srv.url('/whoami?b') },
        { cookies: [{ name: 'sess', value: 'B', url: srv.origin }] },
      ),
    ]);
    expect(oa.title).toBe('sess=A');
    expect(ob.title).toBe('sess=B');
    await a.reset({ startUrl: srv.url('/whoami') });
    expect((await a.observe()).title).toBe('none'); // a reset starts from a clean context
    await a.close();
    expect((await b.observe()).tabs).toHaveLength(1);
    await b.close();
  });

  it('connects to a remote browser over Playwright protocol (--browser-ws)', async () => {
    const server = await chromium.launchServer({
      executablePath: chromiumPath(),
      args: DEFAULT_CHROMIUM_ARGS,
      headless: true,
    });
    try {
      const remote = await BrowserHost.connect(server.wsEndpoint());
      const env = await remote.newEnv({ screenshot: { enabled: false } });
      const obs = await env.reset({ startUrl: srv.url('/whoami?remote') });
      expect(obs.texts[0]?.text).toBe('?remote');
      await remote.close();
    } finally {
      await server.close();
    }
  });

  it('explains a missing Chromium, a dead endpoint and bad options', async () => {
    const missing = await BrowserHost.launch({ executablePath: '/nonexistent/chromium' }).catch((e) => e);
    expect(RmswebError.isInstance(missing)).toBe(true);
    expect(missing.message).toMatch(/Chromium not found at \/nonexistent\/chromium; .*RMSWEB_CHROMIUM/);
    const dead = await BrowserHost.connect('ws://127.0.0.1:9/x', { timeoutMs: 3_000 }).catch((e) => e);
    expect(dead.message).toMatch(/^could not connect to the browser at ws:\/\/127\.0\.0\.1:9\/x/);
    await expect(host.newEnv({ actionTimeoutMs: -1 })).rejects.toThrow(InputError);
    const env = await host.newEnv({ screenshot: { enabled: false } });
    await expect(env.reset({ startUrl: '/relative/path' })).rejects.toThrow(
      /field startUrl: invalid start URL/,
    );
    await expect(env.observe()).rejects.toThrow(/call reset\(task\) first/);
    await env.close();
  });
});
