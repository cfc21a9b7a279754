import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserEnv, BrowserHost } from './index.ts';

// A page observed between its commit and DOMContentLoaded: its parser is held at a script that waits
// behind a stylesheet still on the wire. The observation must be of the parsed, styled page, as a
// later one would see it, not of the first half laid out unstyled.
const LATE_MS = 700;
let server: Server;
let origin = '';
let host: BrowserHost;
let env: BrowserEnv;

const slowPage = `<!doctype html><html><head><meta charset="utf-8"><title>slow</title>
<link rel="stylesheet" href="/late.css"></head><body>
<a id="first" href="#a">First link</a>
<script src="/late.js"></script>
<a id="second" href="#b">Second link</a>
</body></html>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (path === '/late.css')
      setTimeout(
        () => send('text/css', 'body{margin:0;padding:40px 90px}a{display:block;margin:10px}'),
        LATE_MS,
      );
    else if (path === '/late.js')
      setTimeout(() => send('application/javascript', 'window.lateRan = 1;'), LATE_MS);
    else if (path === '/slow') send('text/html; charset=utf-8', slowPage);
    else send('text/html; charset=utf-8', '<!doctype html><title>start</title><p>start</p>');
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host = await BrowserHost.launch();
  env = await host.newEnv({
    screenshot: { enabled: true },
    actionTimeoutMs: 3_000,
    navigationTimeoutMs: 8_000,
  });
}, 60_000);

afterAll(async () => {
  await host?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

describe('observing a page that is still being parsed', () => {
  it('waits for the parser and observes the whole styled page', async () => {
    await env.reset({ startUrl: `${origin}/start` });
    await env.page.goto(`${origin}/slow`, { waitUntil: 'commit' });
    const early = await env.observe();
    const names = early.elements.map((e) => e.text);
    expect(names).toEqual(['First link', 'Second link']);
    // Styled: the sheet's padding moved the links off the body's edge.
    expect(early.elements[0]!.bbox.x).toBeGreaterThanOrEqual(90);

    const later = await env.observe();
    expect(later.elements.map((e) => [e.text, e.bbox])).toEqual(early.elements.map((e) => [e.text, e.bbox]));
    expect(early.screenshot?.hash).toBeTruthy();
    expect(early.screenshot?.hash).toBe(later.screenshot?.hash);
  }, 30_000);
});
