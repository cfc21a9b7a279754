import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Element, InputError, type Observation, parseAction } from '../core/index.ts';
import { FIXTURES } from './fixtures/pages.ts';
import { type FixtureServer, serveFixtures } from './fixtures/server.ts';
import { type BrowserEnv, BrowserHost } from './index.ts';

// One browser, one server and one env for the file; each test resets the env to its page.
let host: BrowserHost;
let env: BrowserEnv;
let srv: FixtureServer;

beforeAll(async () => {
  srv = await serveFixtures(FIXTURES);
  host = await BrowserHost.launch();
  env = await host.newEnv({
    screenshot: { enabled: false },
    actionTimeoutMs: 3_000,
    navigationTimeoutMs: 5_000,
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

const textOf = (sel: string) => env.page.locator(sel).textContent();

describe('actions', () => {
  it('click: runs the handler; clicking a link navigates and the next observation is the new page', async () => {
    let obs = await env.reset({ startUrl: srv.url('/counter') });
    obs = await env.step({ type: 'click', index: find(obs, 'Increment').index });
    expect(obs.lastActionError).toBeNull();
    expect(await textOf('#count')).toBe('1');
    expect(obs.stepIndex).toBe(1);
    obs = await env.step({ type: 'click', index: find(obs, 'Bottom link').index }); // off-screen: scrolled into view
    expect(obs.lastActionError).toBeNull();
    expect(new URL(obs.url).pathname).toBe('/target');
    expect(obs.texts.some((t) => t.text === 'bottom')).toBe(true);
    expect(env.lastStepTiming?.totalMs).toBeGreaterThan(0);
  });

  it('click: reaches elements inside iframes and shadow roots', async () => {
    let obs = await env.reset({ startUrl: srv.url('/frame') });
    obs = await env.step({ type: 'click', index: find(obs, 'Inner button').index });
    expect(obs.lastActionError).toBeNull();
    expect(find(obs, 'Inner clicked').frame).toBe('0');
    obs = await env.reset({ startUrl: srv.url('/shadow') });
    obs = await env.step({ type: 'click', index: find(obs, 'Shadow button').index });
    expect(find(obs, 'Shadow clicked').inShadow).toBe(true);
  });

  it('click on a covered element fails without clicking; the overlay can be dismissed', async () => {
    let obs = await env.reset({ startUrl: srv.url('/modal') });
    obs = await env.step({ type: 'click', index: find(obs, 'Buy now').index });
    expect(obs.lastActionError).toMatch(/^click\(\d+\): element \d+ is covered by <div id="overlay">/);
    expect(obs.lastActionErrorKind).toBe('covered');
    expect(await env.page.title()).toBe('Modal');
    obs = await env.step({ type: 'click', index: find(obs, 'Close').index });
    expect(obs.lastActionError).toBeNull();
    expect(obs.lastActionErrorKind).toBeUndefined();
    expect(find(obs, 'Buy now').attributes.covered).toBeUndefined();
    obs = await env.step({ type: 'click', index: find(obs, 'Buy now').index });
    expect(obs.title).toBe('bought');
  });

  it('click on a disabled element or an unknown index is reported', async () => {
    let obs = await env.reset({ startUrl: srv.url('/form') });
    obs = await env.step({ type: 'click', index: find(obs, 'Disabled action').index });
    expect(obs.lastActionError).toMatch(/is disabled/);
    expect(obs.lastActionErrorKind).toBe('other');
    obs = await env.step({ type: 'click', index: 999 });
    expect(obs.lastActionError).toMatch(/^click\(999\): there is no element 999/);
    expect(obs.lastActionErrorKind).toBe('not_found');
  });

  it('input, select_dropdown and send_keys fill and submit a form', async () => {
    let obs = await env.reset({ startUrl: srv.url('/form') });
    obs = await env.step({
      type: 'input',
      index: find(obs, 'Email address').index,
      text: 'ada@example.com',
      clear: true,
    });
    expect(obs.lastActionError).toBeNull();
    expect(find(obs, 'Email address').attributes.value).toBe('ada@example.com');
    obs = await env.step({
      type: 'input',
      index: find(obs, 'Full name').index,
      text: ' Lovelace',
      clear: false,
    });
    expect(find(obs, 'Full name').attributes.value).toBe('Ada Lovelace');
    obs = await env.step({
      type: 'input',
      index: obs.elements.find((e) => e.attributes.name === 'qty')!.index,
      text: '3',
      clear: true,
    });
    expect(obs.elements.find((e) => e.attributes.name === 'qty')!.attributes.value).toBe('3');
    obs = await env.step({
      type: 'input',
      index: obs.elements.find((e) => e.attributes.name === 'when')!.index,
      text: '2025-03-14',
      clear: true,
    });
    expect(obs.lastActionError).toBeNull();
    const select = obs.elements.find((e) => e.tag === 'select')!;
    obs = await env.step({ type: 'select_dropdown', index: select.index, text: 'large' });
    expect(obs.lastActionError).toBeNull();
    expect(obs.elements.find((e) => e.tag === 'select')!.attributes.selected).toBe('Large');
    obs = await env.step({ type: 'select_dropdown', index: select.index, text: 'Huge' });
    expect(obs.lastActionError).toMatch(/has no option "Huge"; options: Small, Medium, Large/);
    expect(obs.lastActionErrorKind).toBe('not_found');
    obs = await env.step({ type: 'click', index: find(obs, 'Gift wrap').index });
    expect(find(obs, 'Gift wrap').attributes.checked).toBe('false');
    obs = await env.step({ type: 'click', index: find(obs, 'Email address').index });
    obs = await env.step({ type: 'send_keys', keys: 'Enter' });
    expect(obs.lastActionError).toBeNull();
    expect(new URL(obs.url).pathname).toBe('/result');
    const q = new URL(obs.url).searchParams;
    expect(q.get('email')).toBe('ada@example.com');
    expect(q.get('fullname')).toBe('Ada Lovelace');
    expect(q.get('size')).toBe('L');
    expect(q.get('qty')).toBe('3');
    expect(q.get('when')).toBe('2025-03-14');
    expect(q.has('gift')).toBe(false);
  });

  it('input into a non-editable element is reported; send_keys types into the focus', async () => {
    let obs = await env.reset({ startUrl: srv.url('/counter') });
    obs = await env.step({ type: 'input', index: find(obs, 'Increment').index, text: 'x' });
    expect(obs.lastActionError).toMatch(
      /^input\(\d+, "x"\): element \d+ <button id="inc"> "Increment" is not editable/,
    );
    obs = await env.step({ type: 'input', index: find(obs, 'Type here').index, text: 'abc' });
    expect(await textOf('#out')).toBe('abc');
    obs = await env.step({ type: 'send_keys', keys: 'Backspace Backspace' });
    expect(await textOf('#out')).toBe('a');
    obs = await env.step({ type: 'send_keys', keys: 'hello world' });
    expect(obs.lastActionError).toBeNull();
    expect(await textOf('#out')).toBe('ahello world');
    obs = await env.reset({ startUrl: srv.url('/links') });
    obs = await env.step({ type: 'input', index: find(obs, 'Edit me').index, text: 'Rewritten' });
    expect(obs.lastActionError).toBeNull();
    expect(await textOf('#editor')).toBe('Rewritten');
  });

  it('choosing an option of an ARIA listbox clicks it', async () => {
    let obs = await env.reset({ startUrl: srv.url('/listbox') });
    obs = await env.step({
      type: 'select_dropdown',
      index: obs.elements.find((e) => e.role === 'listbox')!.index,
      text: 'green',
    });
    expect(obs.lastActionError).toBeNull();
    expect(obs.title).toBe('picked Green');
  });

  it('scroll moves the page or a container and says when it cannot', async () => {
    let obs = await env.reset({ startUrl: srv.url('/counter') });
    obs = await env.step({ type: 'scroll', down: false, pages: 1 });
    expect(obs.lastActionError).toMatch(/^scroll\(up, 1\): the page is already at the top/);
    obs = await env.step({ type: 'scroll', down: true, pages: 1 });
    expect(obs.lastActionError).toBeNull();
    expect(obs.scroll.pagesAbove).toBeCloseTo(1, 1);
    expect(obs.text).toMatch(/\.\.\. 800 pixels above/);
    obs = await env.reset({ startUrl: srv.url('/listbox') });
    const scroller = obs.elements.find((e) => e.attributes.scrollable === 'true')!;
    obs = await env.step({ type: 'scroll', down: true, pages: 1, index: scroller.index });
    expect(obs.lastActionError).toBeNull();
    expect(await env.page.locator('#scroller').evaluate((el) => el.scrollTop)).toBeGreaterThan(200);
    expect(obs.scroll.y).toBe(0);
  });

  it('navigate, go_back and wait', async () => {
    let obs = await env.reset({ startUrl: srv.url('/counter') });
    obs = await env.step({ type: 'navigate', url: srv.url('/target?from=nav') });
    expect(obs.texts.some((t) => t.text === 'nav')).toBe(true);
    obs = await env.step({ type: 'go_back' });
    expect(new URL(obs.url).pathname).toBe('/counter');
    obs = await env.step({ type: 'go_back' });
    expect(obs.lastActionError).toMatch(/^go_back\(\): there is no previous page/);
    expect(obs.lastActionErrorKind).toBe('navigation');
    const t0 = Date.now();
    obs = await env.step({ type: 'wait', seconds: 0.3 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    obs = await env.step({ type: 'navigate', url: 'http://127.0.0.1:9/' });
    expect(obs.lastActionError).toMatch(
      /^navigate\("http:\/\/127\.0\.0\.1:9\/"\): cannot reach http:\/\/127\.0\.0\.1:9\/: net::ERR_/,
    );
    obs = await env.step({ type: 'go_back' }); // from the browser's error page
    expect(new URL(obs.url).pathname).toBe('/counter');
    obs = await env.step({ type: 'done', text: 'finished', success: true });
    expect(obs.lastActionError).toBeNull();
  });

  it('tracks new tabs: a target=_blank link switches to the new tab; switch_tab and close_tab', async () => {
    let obs = await env.reset({ startUrl: srv.url('/newtab') });
    obs = await env.step({ type: 'click', index: find(obs, 'Open help').index });
    expect(obs.lastActionError).toBeNull();
    expect(obs.title).toBe('Popup');
    expect(obs.tabs.map((t) => [t.id, t.active])).toEqual([
      ['0', false],
      ['1', true],
    ]);
    expect(obs.text).toContain('tab 1: Popup');
    obs = await env.step({ type: 'switch_tab', tab_id: '0' });
    expect(obs.title).toBe('Tabs');
    obs = await env.step({ type: 'click', index: find(obs, 'Open with script').index });
    expect(obs.tabs).toHaveLength(3);
    expect(new URL(obs.url).search).toBe('?via=js');
    obs = await env.step({ type: 'close_tab', tab_id: '2' });
    expect(obs.tabs.map((t) => t.id)).toEqual(['0', '1']);
    obs = await env.step({ type: 'switch_tab', tab_id: '7' });
    expect(obs.lastActionError).toBe('switch_tab(7): there is no tab "7"; open tabs: 0, 1');
    expect(obs.lastActionErrorKind).toBe('not_found');
    obs = await env.step({ type: 'close_tab', tab_id: '0' });
    obs = await env.step({ type: 'close_tab', tab_id: '1' });
    expect(obs.lastActionError).toBeNull();
    expect(obs.url).toBe('about:blank'); // the last tab closed: a blank one replaces it
  });

  it('an invalid action is a zod error naming the field, in the observation', async () => {
    const obs = await env.step({ type: 'click', index: -3 });
    expect(obs.lastActionError).toMatch(/^invalid action: index: /);
    expect(obs.lastActionErrorKind).toBe('invalid');
    expect(() => parseAction({ type: 'input', index: 2 })).toThrow(InputError);
    expect(() => parseAction({ type: 'input', index: 2 })).toThrow(/field text/);
  });

  it('the allowlist blocks navigation elsewhere and reports it', async () => {
    const fenced = await host.newEnv({ allowlist: [srv.origin], screenshot: { enabled: false } });
    try {
      let obs = await fenced.reset({ startUrl: srv.url('/external') });
      obs = await fenced.step({ type: 'click', index: find(obs, 'Leave the site').index });
      expect(obs.lastActionError).toBe(
        `click(1): navigation to http://blocked.invalid/page was blocked by the allowlist`,
      );
      expect(obs.lastActionErrorKind).toBe('navigation');
      obs = await fenced.step({ type: 'navigate', url: 'https://example.com/' });
      expect(obs.lastActionError).toMatch(
        /navigation to https:\/\/example\.com\/ is blocked by the allowlist/,
      );
      obs = await fenced.step({ type: 'click', index: find(obs, 'Stay').index });
      expect(obs.lastActionError).toBeNull();
      expect(new URL(obs.url).pathname).toBe('/target');
      await expect(fenced.reset({ startUrl: 'https://example.com/' })).rejects.toThrow(
        /blocked by the allowlist/,
      );
    } finally {
      await fenced.close();
    }
  });
});
