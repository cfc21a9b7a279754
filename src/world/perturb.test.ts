import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng, type Task } from '../core/index.ts';
import { Perturbation, runPerturbSeed } from './perturb.ts';
import { CONTROL_HEADER, SESSION_COOKIE, WorldServer } from './server.ts';
import { failuresUnderPerturbation, sampleByTemplate, WorldHarness } from './testing/solve-harness.ts';
import { World } from './world.ts';

describe('Perturbation', () => {
  it('is the identity at seed 0', () => {
    const items = Array.from({ length: 30 }, (_, i) => i);
    expect(Perturbation.NONE.active).toBe(false);
    expect(Perturbation.NONE.jitter(items, 'x')).toEqual(items);
    expect(Perturbation.NONE.pageSize(12, 'x')).toBe(12);
    expect(Perturbation.NONE.overlays('shop')).toEqual({ cookieBanner: true, promoFromView: 1 });
  });

  it('moves items by a bounded jitter, stable for a seed and label', () => {
    const items = Array.from({ length: 40 }, (_, i) => i);
    const p = new Perturbation(7);
    const a = p.jitter(items, 'list');
    expect(a).toEqual(new Perturbation(7).jitter(items, 'list'));
    expect(a).not.toEqual(items);
    expect([...a].sort((x, y) => x - y)).toEqual(items);
    // An item moves at most a few ranks: the best match stays near the top.
    for (const [rank, item] of a.entries()) expect(Math.abs(rank - item)).toBeLessThanOrEqual(3);
    expect(new Perturbation(8).jitter(items, 'list')).not.toEqual(a);
  });

  it('varies page sizes and overlays across seeds', () => {
    const seeds = Array.from({ length: 40 }, (_, i) => i + 1).map((s) => new Perturbation(s));
    expect(new Set(seeds.map((p) => p.pageSize(12, 'shop')))).toEqual(new Set([9, 12, 18]));
    const plans = seeds.map((p) => p.overlays('shop'));
    expect(new Set(plans.map((o) => o.cookieBanner))).toEqual(new Set([true, false]));
    expect(new Set(plans.map((o) => o.promoFromView))).toEqual(new Set([null, 1, 2, 3]));
  });

  it('gives each evaluation run its own non-zero seed, and 0 when off', () => {
    const runs = [0, 1, 2].map((r) => runPerturbSeed(1, r));
    expect(new Set(runs).size).toBe(3);
    for (const s of runs) expect(s).toBeGreaterThan(0);
    expect(runPerturbSeed(1, 0)).toBe(runs[0]);
    expect(runPerturbSeed(2, 0)).not.toBe(runs[0]);
    expect(runPerturbSeed(1, 2, false)).toBe(0);
  });

  it('rejects a seed outside 32 bits', () => {
    expect(() => new Perturbation(-1)).toThrow(/perturbation seed/);
    expect(() => new Perturbation(1.5)).toThrow(/perturbation seed/);
  });
});

describe('perturbed world pages over HTTP', () => {
  const world = new World();
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  let n = 0;
  /** A fresh session, reset with a perturbation seed (or left alone when undefined). */
  async function session(perturb?: number): Promise<string> {
    const id = `perturb_test_${n++}`;
    if (perturb !== undefined) {
      const res = await fetch(`${server.url}/__world/reset?session=${id}&perturb=${perturb}`, {
        method: 'POST',
        headers: { [CONTROL_HEADER]: '1' },
      });
      expect(res.status).toBe(200);
    }
    return id;
  }
  async function get(sid: string, path: string): Promise<string> {
    const res = await fetch(`${server.url}${path}`, {
      headers: { cookie: `${SESSION_COOKIE}=${sid}`, accept: 'text/html' },
    });
    expect(res.status).toBe(200);
    return res.text();
  }
  const productIds = (html: string) =>
    [...html.matchAll(/<h3><a href="\/shop\/p\/([^"]+)"/g)].map((m) => m[1]);
  const status = (html: string) => /Showing [^<]*results/.exec(html)?.[0];

  it('serves the same pages at seed 0 as without a perturbation', async () => {
    for (const path of [
      '/shop/search?q=jacket',
      '/recipes/search?q=chicken',
      '/mail/folder/inbox',
      '/homes/search',
    ]) {
      expect(await get(await session(0), path), path).toBe(await get(await session(), path));
    }
  });

  it('changes listing order, page size and overlays between seeds, the same within a visit', async () => {
    const path = '/shop/c/running-shoes';
    const base = await get(await session(), path);
    expect(productIds(base).length).toBe(12);
    const orders = new Set<string>();
    const sizes = new Set<number>();
    const banners = new Set<boolean>();
    const promos = new Set<boolean>();
    for (let seed = 1; seed <= 12; seed++) {
      const sid = await session(seed);
      const page = await get(sid, path);
      // The listing is stable within a visit (only a delayed promo may appear on a later view).
      expect(productIds(await get(sid, path)), 'listing stable within a visit').toEqual(productIds(page));
      orders.add(productIds(page).join(','));
      sizes.add(productIds(page).length);
      banners.add(page.includes('<div class="cookie-banner"'));
      promos.add(page.includes('<div class="modal-backdrop"'));
    }
    expect(orders.size).toBeGreaterThan(6);
    expect(sizes).toEqual(new Set([9, 12, 18]));
    expect(banners).toEqual(new Set([true, false]));
    expect(promos).toEqual(new Set([true, false]));
  });

  it('keeps an explicit sort exact and the result count unchanged', async () => {
    const path = '/shop/search?q=jacket&sort=price-asc';
    const base = await get(await session(), path);
    for (const seed of [3, 4, 5]) {
      const page = await get(await session(seed), path);
      const ids = productIds(page);
      expect(ids).toEqual(productIds(base).slice(0, ids.length));
      expect(status(page)?.replace(/Showing \S+ of /, '')).toBe(status(base)?.replace(/Showing \S+ of /, ''));
    }
  });

  it('shows a delayed promo only from its page view on', async () => {
    const seed = Array.from({ length: 200 }, (_, i) => i + 1).find(
      (s) => new Perturbation(s).overlays('mail').promoFromView === 3,
    )!;
    const sid = await session(seed);
    const views = [];
    for (let i = 0; i < 4; i++)
      views.push((await get(sid, '/mail/folder/inbox')).includes('<div class="modal-backdrop"'));
    expect(views).toEqual([false, false, true, true]);
  });

  it('refuses a malformed perturbation seed', async () => {
    const res = await fetch(`${server.url}/__world/reset?session=x&perturb=-3`, {
      method: 'POST',
      headers: { [CONTROL_HEADER]: '1' },
    });
    expect(res.status).toBe(400);
  });
});

describe('reference solvers under perturbation, in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  // One task of a sampled template of every site, each under one of several non-zero seeds: the
  // answer and the verifier are unchanged, so the privileged solver still succeeds on the perturbed
  // pages. Every template: perturb-templates.long.test.ts (npm run test:long).
  it('solves a sampled task of a sampled template of every site', async () => {
    const bySite = new Map<string, Task>();
    for (const t of new Rng('perturb-ci-site').shuffle(sampleByTemplate(h.tasks(), 1, 'perturb-ci')))
      if (!bySite.has(t.site)) bySite.set(t.site, t);
    const tasks = [...bySite.values()];
    expect(tasks.length).toBeGreaterThanOrEqual(6);
    expect(await failuresUnderPerturbation(h, tasks)).toEqual([]);
  }, 900_000);
});
