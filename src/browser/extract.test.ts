import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Element, NavigationError, Observation, sha256 } from '../core/index.ts';
import { FIXTURES } from './fixtures/pages.ts';
import { type FixtureServer, serveFixtures } from './fixtures/server.ts';
import { type BrowserEnv, BrowserHost } from './index.ts';

// One browser and one fixture server for the whole file: launching Chromium is the slow part.
let host: BrowserHost;
let env: BrowserEnv;
let srv: FixtureServer;

beforeAll(async () => {
  srv = await serveFixtures(FIXTURES);
  host = await BrowserHost.launch();
  env = await host.newEnv({ screenshot: { enabled: false } });
});

afterAll(async () => {
  await host?.close();
  await srv?.close();
});

function byText(elements: Element[], text: string): Element {
  const e = elements.find((x) => x.text === text || x.name === text);
  if (!e) throw new Error(`no element "${text}" in ${elements.map((x) => x.text || x.name).join(' | ')}`);
  return e;
}

describe('observation of fixture pages', () => {
  it('indexes a form: names from labels, types, values, selects, checkboxes', async () => {
    const obs = await env.reset({ startUrl: srv.url('/form') });
    expect(() => Observation.parse(obs)).not.toThrow();
    expect(obs.title).toBe('Checkout form');
    const email = byText(obs.elements, 'Email address');
    expect(email).toMatchObject({
      tag: 'input',
      role: 'textbox',
      attributes: { type: 'email', name: 'email', placeholder: 'you@example.com' },
    });
    expect(byText(obs.elements, 'Full name').attributes.value).toBe('Ada');
    const password = byText(obs.elements, 'Password');
    expect(password.attributes.value).not.toContain('hunter2');
    const select = obs.elements.find((e) => e.tag === 'select')!;
    expect(select).toMatchObject({
      role: 'combobox',
      attributes: { name: 'size', selected: 'Medium', options: 'Small|Medium|Large' },
    });
    expect(byText(obs.elements, 'Gift wrap').attributes).toMatchObject({ type: 'checkbox', checked: 'true' });
    expect(byText(obs.elements, 'Express').attributes).toMatchObject({
      type: 'radio',
      checked: 'false',
      value: 'express',
    });
    expect(byText(obs.elements, 'Disabled action').attributes.disabled).toBe('true');
    // type=hidden never shows; elements are numbered from 1 in document order
    expect(obs.elements.some((e) => e.attributes.name === 'token')).toBe(false);
    expect(obs.elements.map((e) => e.index)).toEqual(obs.elements.map((_, i) => i + 1));
    // non-interactive text blocks, with their block tag, also interleaved in the text view
    expect(obs.texts.find((t) => t.text === 'Checkout')?.tag).toBe('h1');
    expect(obs.texts.some((t) => t.text === 'Total: $42.00')).toBe(true);
    // adjacent inline elements: numbers and prices apart, word pieces together
    expect(obs.texts.some((t) => t.text === 'Was $84.00 $99.00 inside (2)')).toBe(true);
    expect(obs.text).toContain(
      '[1]<input type=email name=email placeholder=you@example.com>Email address />',
    );
    expect(obs.text.indexOf('Checkout\n')).toBeLessThan(obs.text.indexOf('[1]<input'));
    expect(obs.text.indexOf('Total: $42.00')).toBeGreaterThan(obs.text.indexOf('Disabled action'));
  });

  it('handles clickable spans nested in links as Browser Use does', async () => {
    const obs = await env.reset({ startUrl: srv.url('/links') });
    const plain = byText(obs.elements, 'Plain link text');
    expect(plain).toMatchObject({ tag: 'a', role: 'link', attributes: { href: '/target?from=plain' } });
    // A span with no handler of its own inside a link is part of the link, not a second target.
    expect(obs.elements.filter((e) => e.text === 'Plain link text')).toHaveLength(1);
    const card = obs.elements.find((e) => e.attributes.id === 'nested')!;
    const badge = obs.elements.find((e) => e.tag === 'span' && e.text === 'Badge')!;
    expect(badge.parentIndex).toBe(card.index);
    expect(badge.depth).toBe(card.depth + 1);
    expect(obs.text).toContain(`\t[${badge.index}]<span>Badge />`);
    // cursor:pointer div: indexed once, its pointer child folded into it
    expect(obs.elements.filter((e) => e.text.includes('Pointer child'))).toHaveLength(1);
    expect(byText(obs.elements, 'ARIA button')).toMatchObject({ tag: 'div', role: 'button' });
    expect(byText(obs.elements, 'Edit me')).toMatchObject({
      role: 'textbox',
      attributes: { contenteditable: 'true' },
    });
    expect(byText(obs.elements, 'Focusable').tag).toBe('div');
    expect(byText(obs.elements, 'Subscribe')).toMatchObject({
      role: 'checkbox',
      attributes: { 'aria-checked': 'false' },
    });
    // an icon-only link is named by its image's alt text
    expect(obs.elements.find((e) => e.attributes.id === 'icon')?.name).toBe('Home icon');
  });

  it('drops hidden and zero-size elements, keeps off-screen ones flagged', async () => {
    const obs = await env.reset({ startUrl: srv.url('/hidden') });
    expect(obs.elements.map((e) => e.text)).toEqual(['Shown', 'Below the fold']);
    const below = byText(obs.elements, 'Below the fold');
    expect(below.inViewport).toBe(false);
    expect(below.bbox.y).toBeGreaterThan(2000);
    expect(byText(obs.elements, 'Shown').inViewport).toBe(true);
    expect(obs.text).toContain('Below the fold /> (offscreen)');
    expect(obs.scroll.pagesBelow).toBeGreaterThan(1.5);
    expect(obs.text).toMatch(/\.\.\. \d+ pixels below/);
    expect(obs.texts.map((t) => t.text).join(' ')).not.toMatch(/Zero|Display none|Visibility hidden/);
  });

  it('reaches into same-origin iframes with page coordinates', async () => {
    const obs = await env.reset({ startUrl: srv.url('/frame') });
    const inner = byText(obs.elements, 'Inner button');
    expect(inner.frame).toBe('0');
    // iframe at (100, 200), button at (10, 20) inside it
    expect(inner.bbox).toMatchObject({ x: 110, y: 220, width: 120, height: 30 });
  });

  it('reaches into open shadow roots', async () => {
    const obs = await env.reset({ startUrl: srv.url('/shadow') });
    expect(byText(obs.elements, 'Shadow button').inShadow).toBe(true);
    expect(byText(obs.elements, 'Shadow input')).toMatchObject({ tag: 'input', inShadow: true });
  });

  it('marks a button under a modal overlay as covered and indexes the modal', async () => {
    const obs = await env.reset({ startUrl: srv.url('/modal') });
    expect(byText(obs.elements, 'Buy now').attributes.covered).toBe('true');
    expect(byText(obs.elements, 'Close').attributes.covered).toBeUndefined();
    expect(obs.texts.some((t) => t.text === 'Sign up for our newsletter')).toBe(true);
  });

  it('indexes ARIA listboxes and scrollable containers, clipping what they hide', async () => {
    const obs = await env.reset({ startUrl: srv.url('/listbox') });
    const list = obs.elements.find((e) => e.role === 'listbox')!;
    expect(obs.elements.filter((e) => e.parentIndex === list.index).map((e) => e.text)).toEqual([
      'Red',
      'Green',
    ]);
    const scroller = obs.elements.find((e) => e.attributes.scrollable === 'true')!;
    expect(scroller.attributes.id).toBe('scroller');
    const rows = obs.texts.filter((t) => t.text.startsWith('Row '));
    expect(rows).toHaveLength(40);
    expect(rows[0].inViewport).toBe(true);
    expect(rows[39].inViewport).toBe(false); // inside the 300px box, scrolled out of sight
  });

  it('keeps node keys stable across re-indexing while indices shift', async () => {
    const first = await env.reset({ startUrl: srv.url('/counter') });
    const before = byText(first.elements, 'Bottom link');
    await env.page.evaluate(() => {
      const b = document.createElement('button');
      b.textContent = 'Inserted first';
      document.body.prepend(b);
    });
    const second = await env.observe();
    const after = byText(second.elements, 'Bottom link');
    expect(after.index).toBe(before.index + 1);
    expect(after.nodeKey).toBe(before.nodeKey);
    expect(new Set(second.elements.map((e) => e.nodeKey)).size).toBe(second.elements.length);
  });

  it('caps the element count, keeping the viewport', async () => {
    const small = await host.newEnv({ maxElements: 1, screenshot: { enabled: false } });
    try {
      const obs = await small.reset({ startUrl: srv.url('/hidden') });
      expect(obs.elements.map((e) => e.text)).toEqual(['Shown']);
    } finally {
      await small.close();
    }
  });

  it('takes a JPEG screenshot addressed by its content hash', async () => {
    const shooter = await host.newEnv({ viewport: { width: 800, height: 600 }, screenshot: { quality: 50 } });
    try {
      const obs = await shooter.reset({ startUrl: srv.url('/form') });
      const shot = obs.screenshot!;
      expect(shot).toMatchObject({ mime: 'image/jpeg', width: 800, height: 600 });
      const bytes = Buffer.from(shot.data!, 'base64');
      expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      expect(shot.hash).toBe(sha256(bytes));
      // Taken through the protocol, it is the image Playwright's page.screenshot gives, scrolled too.
      await shooter.page.evaluate(() => window.scrollTo(0, 200));
      const scrolled = (await shooter.observe()).screenshot!;
      const viaPlaywright = await shooter.page.screenshot({ type: 'jpeg', quality: 50, caret: 'initial' });
      expect(scrolled.hash).toBe(sha256(viaPlaywright));
    } finally {
      await shooter.close();
    }
    const small = await host.newEnv({ viewport: { width: 800, height: 600 }, screenshot: { maxWidth: 400 } });
    try {
      expect((await small.reset({ startUrl: srv.url('/form') })).screenshot).toMatchObject({
        width: 400,
        height: 300,
      });
    } finally {
      await small.close();
    }
  });

  it('reports an unreachable start URL as a NavigationError', async () => {
    const err = await env.reset({ startUrl: 'http://127.0.0.1:9/' }).catch((e) => e);
    expect(NavigationError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/Cannot reach http:\/\/127\.0\.0\.1:9\/: net::ERR_/);
  });
});
