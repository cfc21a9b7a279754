import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { WorldServer } from '../../server.ts';
import { generateWorldTasks } from '../../tasks.ts';
import { HttpSession } from '../../testing/http-session.ts';
import { describeRun, sampleByTemplate, WorldHarness } from '../../testing/solve-harness.ts';
import { World } from '../../world.ts';
import type { ShopData } from './data.ts';
import type { ShopState } from './state.ts';

const world = new World(1);
const shop = world.sites.get('shop')!;
const data = shop.data as ShopData;

describe('shop site over HTTP', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('has hundreds of products in categories, with lookalike families', () => {
    expect(data.products.length).toBeGreaterThanOrEqual(400);
    expect(new Set(data.products.map((p) => p.category)).size).toBe(12);
    const families = new Map<string, number>();
    for (const p of data.products) families.set(p.family, (families.get(p.family) ?? 0) + 1);
    expect([...families.values()].filter((n) => n > 1).length).toBeGreaterThan(50);
    expect(new Set(data.products.map((p) => p.id)).size).toBe(data.products.length);
  });

  it('serves search with suggestions, filters, sort and pagination', async () => {
    const s = new HttpSession(server.url);
    const sug = await s.get('/shop/api/suggest?q=trail%20run');
    expect(Array.isArray(sug.json)).toBe(true);
    expect((sug.json as Array<{ label: string }>).every((x) => /trail/i.test(x.label))).toBe(true);
    const page = await s.get('/shop/c/running-shoes?sort=price-asc&stock=1');
    expect(page.status).toBe(200);
    const prices = [...page.text.matchAll(/<span class="price">\$([\d,.]+)<\/span>/g)].map((m) =>
      Number(m[1].replace(/,/g, '')),
    );
    expect(prices.length).toBe(12);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(page.text).toContain('rel="next"');
    expect(page.text).toContain('class="cookie-banner"');
    expect(page.text).toContain('data-modal="promo"');
  });

  it('rejects an add-to-cart without a size, keeping the chosen values', async () => {
    const s = new HttpSession(server.url);
    const p = data.products.find((x) => x.sizes.length && x.inStock)!;
    const bad = await s.post('/shop/cart/add', {
      id: p.id,
      size: '',
      color: p.colors[1] ?? p.colors[0],
      qty: '3',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Please select a size.');
    expect(bad.text).toContain('value="3"');
    const size = p.sizes.find((z) => !p.soldOutSizes.includes(z))!;
    const ok = await s.post('/shop/cart/add', { id: p.id, size, color: p.colors[0], qty: '2' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Added to your cart.');
    const state = await s.state<ShopState>('shop');
    expect(state.cart).toEqual([{ productId: p.id, size, color: p.colors[0], qty: 2 }]);
  });

  it('validates coupons and the checkout form, then places an order', async () => {
    const s = new HttpSession(server.url);
    const p = data.products.find((x) => !x.sizes.length && x.inStock && x.price > 30)!;
    await s.post('/shop/cart/add', { id: p.id, color: p.colors[0], qty: '1' });
    const badCoupon = await s.post('/shop/cart/coupon', { code: 'SPRING20' });
    expect(badCoupon.status).toBe(400);
    expect(badCoupon.text).toContain('has expired');
    const goodCoupon = await s.post('/shop/cart/coupon', { code: 'save10' });
    expect(goodCoupon.text).toContain('Coupon SAVE10 applied.');
    const missing = await s.post('/shop/checkout', { fullName: 'Ana Lee', zip: '123', method: 'express' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('ZIP code must be 5 digits.');
    expect(missing.text).toContain('Street address is required.');
    expect(missing.text).toContain('You must accept the Terms of Sale.');
    expect(missing.text).toContain('value="Ana Lee"');
    const form = {
      fullName: 'Ana Lee',
      email: 'ana@example.com',
      street: '1 Elm St',
      city: 'Austin',
      state: 'Texas',
      zip: '78704',
      method: 'express',
      terms: '1',
    };
    const placed = await s.post('/shop/checkout', form);
    expect(placed.text).toContain('has been placed');
    const state = await s.state<ShopState>('shop');
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0].coupon).toBe('SAVE10');
    expect(state.orders[0].discount).toBeCloseTo(p.price * 0.1, 2);
    expect(state.cart).toEqual([]);
  });

  it('verifies a checkout task from session state, naming the failed conditions', async () => {
    const task = generateWorldTasks({ world, site: 'shop', split: 'train' }).find(
      (t) => t.category === 'checkout',
    )!;
    const params = (task.verifier as { params: any }).params;
    const s = new HttpSession(server.url);
    const wrongSize = data.byId
      .get(params.item.productId)!
      .sizes.find(
        (z: string) =>
          z !== params.item.size && !data.byId.get(params.item.productId)!.soldOutSizes.includes(z),
      )!;
    await s.post('/shop/cart/add', {
      id: params.item.productId,
      size: wrongSize,
      color: params.item.color,
      qty: String(params.item.qty),
    });
    const p = params.person;
    await s.post('/shop/checkout', {
      fullName: p.fullName,
      email: p.email,
      street: p.street,
      city: p.city,
      state: p.state,
      zip: p.zip,
      method: params.method,
      terms: '1',
    });
    const v = world.verify(task, s.id, null);
    expect(v.success).toBe(false);
    expect(v.failedConditions).toEqual(['order.size', 'order.qty']);
    expect(v.score).toBeGreaterThan(0.8);
  });

  it('has at least 200 raw queries grounded in its templates', () => {
    const qs = shop.rawQueries(new Rng(1));
    const ids = new Set(shop.templates.map((t) => t.id));
    expect(qs.length).toBeGreaterThanOrEqual(200);
    expect(qs.every((q) => q.site === 'shop' && ids.has(q.grounding.template) && q.text.length > 3)).toBe(
      true,
    );
  });
});

describe('shop reference solvers in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('solves a sampled task of every template', async () => {
    const tasks = sampleByTemplate(h.tasks({ site: 'shop' }), 1, 'shop-ci');
    expect(new Set(tasks.map((t) => t.category)).size).toBe(shop.templates.length);
    const runs = [];
    for (const t of tasks) runs.push(await h.solve(t));
    const failed = runs.filter((r) => !r.verdict.success);
    expect(failed.map(describeRun)).toEqual([]);
    for (const r of runs) expect(Math.abs(r.actions - (r.task.referenceLength ?? 0))).toBeLessThanOrEqual(3);
  }, 180_000);
});
