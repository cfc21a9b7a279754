import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Element, Observation } from '../core/index.ts';
import { page } from './fixtures/pages.ts';
import { type FixtureServer, serveFixtures } from './fixtures/server.ts';
import { type BrowserEnv, BrowserHost } from './index.ts';

// BrowserEnv.reset reuses the last episode's context and tab. These tests prove that nothing of
// one episode is visible in the next: each writes state in one episode and reads it in the next.
let host: BrowserHost;
let env: BrowserEnv;
let srv: FixtureServer;

// Reports what an earlier episode could have left behind, in the title (read after load).
const probe = page(
  'probe',
  `<p id="out">pending</p>
<script>
(async () => {
  const dbs = await indexedDB.databases();
  const cacheKeys = await caches.keys();
  document.getElementById('out').textContent = JSON.stringify({
    cookie: document.cookie,
    local: localStorage.length,
    session: sessionStorage.length,
    idb: dbs.length,
    caches: cacheKeys.length,
    name: window.name,
  });
})();
</script>`,
);

beforeAll(async () => {
  srv = await serveFixtures({
    '/write': page(
      'write',
      `<p>written</p>
<script>
document.cookie = 'js=1; path=/';
localStorage.setItem('k', 'v');
sessionStorage.setItem('s', 'v');
window.name = 'episode-one';
indexedDB.open('db1', 1).onupgradeneeded = (e) => e.target.result.createObjectStore('s');
caches.open('c1');
</script>`,
    ),
    '/probe': probe,
    '/tabs': page(
      'tabs',
      `<a href="/probe" target="_blank">Open probe</a> <button onclick="window.open('/write')">Popup</button>`,
    ),
    '/form': page(
      'form',
      `<form><input name="q" aria-label="Query"><textarea name="notes" aria-label="Notes"></textarea></form>
<a href="/probe">Elsewhere</a>`,
    ),
    '/nag': page(
      'nag',
      `<button onclick="window.onbeforeunload = (e) => { e.preventDefault(); return 'stay'; }; document.title = 'armed'">Arm</button>
<button onclick="setInterval(() => alert('still here'), 20)">Alerts</button>`,
    ),
  });
  host = await BrowserHost.launch();
  env = await host.newEnv({
    screenshot: { enabled: false },
    actionTimeoutMs: 3_000,
    navigationTimeoutMs: 8_000,
  });
});

afterAll(async () => {
  await host?.close();
  await srv?.close();
});

function find(obs: Observation, text: string): Element {
  const e = obs.elements.find((x) => x.text === text || x.name === text);
  if (!e) throw new Error(`no element "${text}" in ${obs.elements.map((x) => x.text || x.name).join(' | ')}`);
  return e;
}

/**
 * What the probe page saw once its script ran, plus the tab's history length as it stands after
 * the reset (the kept tab's history is cut back to the start page once it loads).
 */
async function probed(): Promise<Record<string, unknown>> {
  await env.page.waitForFunction(() => document.getElementById('out')?.textContent !== 'pending');
  const seen = JSON.parse((await env.page.locator('#out').textContent()) ?? '{}');
  return { ...seen, history: await env.page.evaluate(() => history.length) };
}

const clean = { cookie: '', local: 0, session: 0, idb: 0, caches: 0, name: '', history: 1 };

describe('BrowserEnv.reset reuses the context without leaks', () => {
  it('keeps one context and one tab across episodes (no new renderer per episode)', async () => {
    await env.reset({ startUrl: srv.url('/probe') });
    const first = env.page;
    for (let i = 0; i < 3; i++) {
      const obs = await env.reset({ startUrl: srv.url('/probe') });
      expect(obs.tabs).toHaveLength(1);
      expect(env.page).toBe(first);
    }
    expect(host.browser.contexts()).toHaveLength(1);
  });

  it('cookies, local and session storage, IndexedDB, caches and window.name do not carry over', async () => {
    await env.reset(
      { startUrl: srv.url('/write') },
      { cookies: [{ name: 'sess', value: 'A', url: srv.origin }] },
    );
    await env.page.waitForFunction(
      async () => (await indexedDB.databases()).length > 0 && (await caches.keys()).length > 0,
    );
    // The same origin in the next episode: the state written above would be visible if kept.
    await env.reset({ startUrl: srv.url('/probe') });
    expect(await probed()).toEqual(clean);
    // A reset's own cookies are set (and only those).
    await env.reset(
      { startUrl: srv.url('/probe') },
      { cookies: [{ name: 'sess', value: 'B', url: srv.origin }] },
    );
    expect(await probed()).toEqual({ ...clean, cookie: 'sess=B' });
  });

  it('tabs opened in an episode are closed and ids restart at 0', async () => {
    let obs = await env.reset({ startUrl: srv.url('/tabs') });
    obs = await env.step({ type: 'click', index: find(obs, 'Open probe').index });
    obs = await env.step({ type: 'switch_tab', tab_id: '0' });
    obs = await env.step({ type: 'click', index: find(obs, 'Popup').index });
    expect(obs.tabs.length).toBe(3);
    obs = await env.reset({ startUrl: srv.url('/probe') });
    expect(obs.tabs).toEqual([{ id: '0', url: srv.url('/probe'), title: 'probe', active: true }]);
    expect(env.page.context().pages()).toHaveLength(1);
    expect(await probed()).toEqual(clean); // the popup wrote storage too
  });

  it('a half-filled form is gone, and going back does not reach the last episode', async () => {
    let obs = await env.reset({ startUrl: srv.url('/form') });
    obs = await env.step({ type: 'input', index: find(obs, 'Query').index, text: 'from episode one' });
    obs = await env.step({ type: 'input', index: find(obs, 'Notes').index, text: 'half written' });
    expect(find(obs, 'Query').attributes.value).toBe('from episode one');
    obs = await env.reset({ startUrl: srv.url('/form') });
    expect(find(obs, 'Query').attributes.value).toBeUndefined();
    expect(find(obs, 'Notes').attributes.value).toBeUndefined();
    expect(await env.page.evaluate(() => history.length)).toBe(1);
    obs = await env.step({ type: 'go_back' });
    expect(obs.url).toBe(srv.url('/form'));
    expect(find(obs, 'Query').attributes.value).toBeUndefined();
  });

  it('a pending beforeunload prompt or an alert storm does not block the reset or reach the next episode', async () => {
    let obs = await env.reset({ startUrl: srv.url('/nag') });
    obs = await env.step({ type: 'click', index: find(obs, 'Arm').index });
    expect(obs.title).toBe('armed');
    obs = await env.step({ type: 'click', index: find(obs, 'Alerts').index });
    obs = await env.reset({ startUrl: srv.url('/probe') });
    expect(obs.title).toBe('probe');
    // The old document's timers died with it: no dialog shows up in the new episode.
    let dialogs = 0;
    const count = () => {
      dialogs++;
    };
    env.page.on('dialog', count);
    await env.page.waitForTimeout(300);
    env.page.off('dialog', count);
    expect(dialogs).toBe(0);
    expect(await probed()).toEqual(clean);
  });

  it('falls back to a new context when the kept tab or the context is gone', async () => {
    let obs = await env.reset({ startUrl: srv.url('/probe') });
    obs = await env.step({ type: 'close_tab', tab_id: '0' });
    obs = await env.reset({ startUrl: srv.url('/probe') });
    expect(obs.tabs).toHaveLength(1);
    expect(await probed()).toEqual(clean);
    await env.page.context().close();
    obs = await env.reset({ startUrl: srv.url('/write') });
    expect(obs.title).toBe('write');
    obs = await env.reset({ startUrl: srv.url('/probe') });
    expect(await probed()).toEqual(clean);
    expect(host.browser.contexts()).toHaveLength(1);
  });
});
