import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import type { Task } from '../../../core/task.ts';
import { WorldServer } from '../../server.ts';
import { generateWorldTasks } from '../../tasks.ts';
import { HttpSession } from '../../testing/http-session.ts';
import { describeRun, sampleByTemplate, WorldHarness } from '../../testing/solve-harness.ts';
import { World } from '../../world.ts';
import { addressLine, type HomesData } from './data.ts';
import { monthlyPayment } from './search.ts';
import type { HomesState } from './state.ts';
import { matching } from './templates-info.ts';

const world = new World(1);
const homes = world.sites.get('homes')!;
const data = homes.data as HomesData;
const tasks = generateWorldTasks({ world, site: 'homes' });
const taskOf = (template: string): Task =>
  tasks.find((t) => t.verifier.kind === 'world' && t.verifier.template === template && t.split === 'train')!;
const paramsOf = (t: Task) => (t.verifier as { params: any }).params;
const cardCount = (html: string) => html.match(/class="card-link"/g)?.length ?? 0;

describe('homes site over HTTP', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('lists hundreds of homes with same-street lookalike units', () => {
    expect(data.listings.length).toBeGreaterThan(550);
    const twins = data.listings.filter((l) => l.sibling);
    expect(twins.length).toBeGreaterThan(20);
    const t = twins[0];
    const o = data.byId.get(t.sibling!)!;
    expect(o.street).toBe(t.street);
    expect(o.unit).not.toBe(t.unit);
  });

  it('treats "2" as exactly two bedrooms and "2+" as two or more, and paginates', async () => {
    const s = new HttpSession(server.url);
    const exact = await s.get('/homes/search?city=Denver&beds=2');
    const atLeast = await s.get('/homes/search?city=Denver&beds=2%2B');
    const n = (html: string) => Number(/<strong>(\d+) homes? for sale<\/strong>/.exec(html)?.[1]);
    expect(n(exact.text)).toBe(matching(data, { city: 'Denver', beds: '2' }).length);
    expect(n(atLeast.text)).toBeGreaterThan(n(exact.text));
    expect(cardCount(atLeast.text)).toBe(12);
    expect(atLeast.text).toContain('rel="next"');
    expect(atLeast.text).toContain('class="cookie-banner"');
    const sorted = await s.get('/homes/search?city=Austin&sort=price-asc');
    const prices = [...sorted.text.matchAll(/<div class="price">\$([\d,]+)<\/div>/g)].map((m) =>
      Number(m[1].replace(/,/g, '')),
    );
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
  });

  it('sends an unchosen location to a keyword search with a notice; a chosen one filters the city', async () => {
    const s = new HttpSession(server.url);
    const typed = await s.get('/homes/go?q=Denver&place=');
    expect(typed.text).toContain('No location was chosen from the suggestions');
    const sug = await s.get('/homes/api/places?q=den');
    expect((sug.json as Array<{ value: string }>)[0].value).toBe('city:Denver');
    const chosen = await s.get('/homes/go?q=Denver&place=city%3ADenver');
    expect(chosen.url).toContain('/homes/search?city=Denver');
  });

  it('saves a home (toggle) and verifies the lookalike-unit condition', async () => {
    const task = taskOf('homes.save-address');
    const l = data.byId.get(paramsOf(task).listingId)!;
    const s = new HttpSession(server.url);
    const page = await s.get(`/homes/home/${l.id}`);
    expect(page.text).toContain('Save home');
    await s.post(`/homes/home/${l.id}/save`, { return: `/homes/home/${l.id}` });
    expect((await s.state<HomesState>('homes')).saved).toEqual([l.id]);
    expect(world.verify(task, s.id, null).success).toBe(true);
    const twin = data.listings.find((x) => x.sibling)!;
    const wrong = new HttpSession(server.url);
    await wrong.post(`/homes/home/${twin.sibling}/save`, {});
    const tt: Task = {
      ...task,
      verifier: { kind: 'world', template: 'homes.save-address', params: { listingId: twin.id } },
    };
    const v = world.verify(tt, wrong.id, null);
    expect(v.failedConditions).toEqual(['saved.target', 'saved.notLookalike']);
  });

  it('validates the tour form and records a tour', async () => {
    const task = taskOf('homes.tour');
    const p = paramsOf(task);
    const who = data.personas.find((x) => x.id === p.personaId)!;
    const s = new HttpSession(server.url);
    const bad = await s.post(`/homes/home/${p.listingId}/tour`, {
      tourType: p.tourType,
      date: '',
      time: '',
      name: who.first,
      email: 'nope',
      phone: '12',
    });
    expect(bad.status).toBe(422);
    for (const msg of [
      'Choose a tour date.',
      'Choose a time.',
      'Enter a valid email address.',
      'Enter a 10-digit phone number.',
    ])
      expect(bad.text).toContain(msg);
    expect(bad.text).toContain(`value="${who.first}"`);
    await s.post(`/homes/home/${p.listingId}/tour`, {
      tourType: p.tourType,
      date: p.date,
      time: p.time,
      name: `${who.first} ${who.last}`,
      email: who.email,
      phone: who.phone,
    });
    expect(world.verify(task, s.id, null).success).toBe(true);
    const tours = await s.get('/homes/tours');
    expect(tours.text).toContain(addressLine(data.byId.get(p.listingId)!));
  });

  it('computes the mortgage payment and serves the delayed price history', async () => {
    const task = taskOf('homes.mortgage');
    const p = paramsOf(task);
    const l = data.byId.get(p.listingId)!;
    const s = new HttpSession(server.url);
    const calc = await s.get(`/homes/home/${l.id}?tab=mortgage&down=${p.down}&rate=${p.rate}&term=${p.term}`);
    const m = monthlyPayment(l.price, p.down, p.rate, p.term);
    expect(calc.text).toContain(`principal and interest): $${m.toLocaleString('en-US')}`);
    expect(world.verify(task, s.id, `About $${m.toLocaleString('en-US')} a month`).success).toBe(true);
    expect(world.verify(task, s.id, `$${m + 40}`).failedConditions).toEqual(['answer.payment']);
    const page = await s.get(`/homes/home/${l.id}`);
    expect(page.text).toContain(`data-delayed-src="/homes/home/${l.id}/history"`);
    const hist = await s.get(`/homes/home/${l.id}/history`);
    expect(hist.text).toContain('Listed for sale');
  });

  it('verifies information answers by number and address', () => {
    const t = taskOf('homes.priciest-exact');
    const p = paramsOf(t);
    const top = matching(data, { city: p.city, type: p.type, beds: String(p.beds), sort: 'price-desc' })[0];
    const wrong = matching(data, { city: p.city, type: p.type, beds: `${p.beds}+`, sort: 'price-desc' })[0];
    expect(world.verify(t, 'x', `$${top.price.toLocaleString('en-US')}`).success).toBe(true);
    expect(world.verify(t, 'x', `$${wrong.price.toLocaleString('en-US')}`).success).toBe(false);
    const c = taskOf('homes.cheapest-min');
    const cp = paramsOf(c);
    const cheap = matching(data, {
      city: cp.city,
      type: cp.type,
      beds: `${cp.minBeds}+`,
      sort: 'price-asc',
    })[0];
    const half = world.verify(c, 'x', `${addressLine(cheap)}`);
    expect(half.failedConditions).toEqual(['answer.price']);
    expect(half.score).toBeCloseTo(2 / 3);
  });

  it('generates every template with disjoint splits, 2-20 steps, and 200+ grounded raw queries', () => {
    expect(new Set(tasks.map((t) => (t.verifier as { template: string }).template)).size).toBe(
      homes.templates.length,
    );
    expect(homes.templates.length).toBeGreaterThanOrEqual(8);
    expect(tasks.every((t) => (t.referenceLength ?? 0) >= 2 && (t.referenceLength ?? 0) <= 20)).toBe(true);
    const train = new Set(
      tasks
        .filter((t) => t.split === 'train')
        .map((t) => `${(t.verifier as { template: string }).template}|${t.meta?.splitKey}`),
    );
    expect(
      tasks
        .filter((t) => t.split === 'test')
        .some((t) => train.has(`${(t.verifier as { template: string }).template}|${t.meta?.splitKey}`)),
    ).toBe(false);
    const qs = homes.rawQueries(new Rng(3));
    expect(qs.length).toBeGreaterThanOrEqual(200);
    expect(
      qs.every((q) =>
        homes.templates.find((x) => x.id === q.grounding.template)?.draftFor?.(q.grounding.params, data),
      ),
    ).toBe(true);
  });
});

describe('homes reference solvers in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('solves a sampled task of every template', async () => {
    const sample = sampleByTemplate(h.tasks({ site: 'homes' }), 1, 'homes-ci');
    expect(new Set(sample.map((t) => t.category)).size).toBe(homes.templates.length);
    const runs = [];
    for (const t of sample) runs.push(await h.solve(t));
    expect(runs.filter((r) => !r.verdict.success).map(describeRun)).toEqual([]);
    for (const r of runs) expect(Math.abs(r.actions - (r.task.referenceLength ?? 0))).toBeLessThanOrEqual(3);
  }, 240_000);
});
