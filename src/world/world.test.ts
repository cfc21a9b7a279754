import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { Task } from '../core/task.ts';
import { ensureWorld, probeWorld } from './ensure.ts';
import { WorldServer } from './server.ts';
import { DEFAULT_WORLD_SEED, splitOf } from './split.ts';
import { DEFAULT_TASKS_PER_TEMPLATE, generateWorldTasks, resolveWorldUrl } from './tasks.ts';
import { World } from './world.ts';

// Shared tests of the whole offline world: every registered site and template takes part.
const world = new World(DEFAULT_WORLD_SEED);
const tasks = generateWorldTasks({ world });
const SITES = ['shop', 'travel', 'recipes', 'mail', 'forms', 'homes'];

describe('world task generation (default seed)', () => {
  it('draws at least half the quota of every template in both splits', () => {
    for (const site of world.sites.values()) {
      expect(site.templates.length, `${site.id} templates`).toBeGreaterThanOrEqual(8);
      for (const t of site.templates) {
        const mine = tasks.filter((x) => x.verifier.kind === 'world' && x.verifier.template === t.id);
        // A template whose parameter pool runs dry shows up here long before the totals suffer.
        expect(mine.filter((x) => x.split === 'train').length, `${t.id} train`).toBeGreaterThanOrEqual(
          0.5 * DEFAULT_TASKS_PER_TEMPLATE.train,
        );
        expect(mine.filter((x) => x.split === 'test').length, `${t.id} test`).toBeGreaterThanOrEqual(
          0.5 * DEFAULT_TASKS_PER_TEMPLATE.test,
        );
      }
    }
  });

  it('reaches 1,500 train and 300 test tasks once all six sites are registered', () => {
    const train = tasks.filter((t) => t.split === 'train').length;
    const test = tasks.filter((t) => t.split === 'test').length;
    const present = SITES.filter((s) => world.sites.has(s));
    // Per-site share of the target, so the check means something before every site has landed.
    expect(train).toBeGreaterThanOrEqual(Math.floor((1500 * present.length) / SITES.length));
    expect(test).toBeGreaterThanOrEqual(Math.floor((300 * present.length) / SITES.length));
    if (present.length === SITES.length) {
      expect(train).toBeGreaterThanOrEqual(1500);
      expect(test).toBeGreaterThanOrEqual(300);
    }
  });

  it('spans every level and keeps reference lengths within 2-20 steps', () => {
    for (const level of ['easy', 'medium', 'hard']) expect(tasks.some((t) => t.level === level)).toBe(true);
    const bad = tasks.filter((t) => (t.referenceLength ?? 0) < 2 || (t.referenceLength ?? 0) > 20);
    expect(bad.map((t) => `${t.id}:${t.referenceLength}`)).toEqual([]);
  });

  it('produces valid, unique tasks with non-empty objectives', () => {
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    for (const t of tasks) {
      expect(Task.safeParse(t).success).toBe(true);
      expect(t.objective.trim().length).toBeGreaterThan(15);
      expect(t.suite).toBe('world');
    }
  });

  it('is deterministic for a seed and changes with the seed', () => {
    const again = generateWorldTasks({ seed: DEFAULT_WORLD_SEED });
    expect(again).toEqual(tasks);
    const other = generateWorldTasks({ seed: 2, site: 'shop' });
    const mine = tasks.filter((t) => t.site === 'shop');
    expect(other.map((t) => t.id)).toEqual(mine.map((t) => t.id));
    const same = other.filter((t, i) => t.objective === mine[i].objective).length;
    expect(same / mine.length).toBeLessThan(0.2);
  });

  it('keeps train and test disjoint in parameter values', () => {
    const keys = { train: new Set<string>(), test: new Set<string>() };
    for (const t of tasks) {
      const key = String(t.meta?.splitKey ?? '');
      expect(key, `${t.id} splitKey`).not.toBe('');
      expect(splitOf(key), `${t.id} split of ${key}`).toBe(t.split);
      keys[t.split as 'train' | 'test'].add(key);
    }
    expect([...keys.train].filter((k) => keys.test.has(k))).toEqual([]);
  });

  it('fails every task for an agent that does nothing, with named conditions', () => {
    for (const t of tasks) {
      const conds = world.conditions(t, `idle_${t.id}`, null);
      expect(conds.length, t.id).toBeGreaterThan(0);
      const ids = conds.map((c) => c.id);
      expect(
        ids.every((id) => /^[a-z][a-z-]*\.[^\s].*$/.test(id)),
        `${t.id}: ${ids.join(',')}`,
      ).toBe(true);
      expect(new Set(ids).size, `${t.id} duplicate condition ids`).toBe(ids.length);
      const v = world.verify(t, `idle_${t.id}`, null);
      expect(v.success, `${t.id} passes with no action`).toBe(false);
      expect(v.failedConditions).toEqual(conds.filter((c) => !c.ok).map((c) => c.id));
    }
  });

  it('has at least 200 raw queries per site, each grounded in a template of that site', () => {
    for (const site of world.sites.values()) {
      const qs = site.rawQueries(new Rng(`${DEFAULT_WORLD_SEED}:queries`));
      const ids = new Set(site.templates.map((t) => t.id));
      expect(qs.length, site.id).toBeGreaterThanOrEqual(200);
      expect(
        qs
          .filter((q) => q.site !== site.id || !ids.has(q.grounding.template))
          .map((q) => q.grounding.template),
      ).toEqual([]);
    }
  });
});

describe('world server', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves every task start URL', async () => {
    const failures: string[] = [];
    // Many tasks share a start page; each distinct URL is fetched once, in a fresh session.
    const queue = [...new Set(tasks.map((t) => t.startUrl))];
    const worker = async () => {
      for (let u = queue.pop(); u; u = queue.pop()) {
        const url = resolveWorldUrl(u, server.url);
        const res = await fetch(url);
        const body = await res.text();
        if (res.status !== 200 || !body.includes('</html>')) failures.push(`${res.status} ${url}`);
        else if (!inlineSheet(body)) failures.push(`${url}: links a stylesheet or lacks the inline one`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(failures).toEqual([]);
  }, 120_000);

  it('inlines its stylesheet on the index, not found and the mail attachment tab too', async () => {
    const pages = ['/', '/no/such/page'];
    const inbox = await (await fetch(`${server.url}/mail/folder/inbox`)).text();
    const msgs = [...inbox.matchAll(/href="(\/mail\/message\/[^"]+)"/g)].map((m) => m[1]!);
    for (const m of msgs) {
      const body = await (await fetch(server.url + m)).text();
      const a = /href="(\/mail\/attachment\/[^"]+)"/.exec(body)?.[1];
      if (a) {
        pages.push(a);
        break;
      }
    }
    expect(pages.some((p) => p.includes('/attachment/'))).toBe(true);
    for (const p of pages) expect(inlineSheet(await (await fetch(server.url + p)).text()), p).toBe(true);
    expect((await fetch(`${server.url}/__assets/world.css`)).status).toBe(404);
  });

  it('ensureWorld reuses a running world with the same seed and starts one otherwise', async () => {
    expect(await probeWorld(server.port, DEFAULT_WORLD_SEED)).toBe(true);
    const reused = await ensureWorld({ port: server.port, seed: DEFAULT_WORLD_SEED });
    expect(reused.server).toBeNull();
    expect(reused.origin).toBe(server.url);
    // Another seed: the port is taken, so a fresh world starts on a free port.
    const fresh = await ensureWorld({ port: server.port, seed: 7 });
    try {
      expect(fresh.server).not.toBeNull();
      expect(fresh.origin).not.toBe(server.url);
      expect(await probeWorld(fresh.server!.port, 7)).toBe(true);
    } finally {
      await fresh.stop();
    }
  });
});

/** A world page carries the shared sheet inline (so no parse waits on it) and links none. */
function inlineSheet(html: string): boolean {
  return html.includes('<style>') && html.includes('.cookie-banner{') && !/<link[^>]+stylesheet/i.test(html);
}
