import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { Task } from '../../core/task.ts';
import { WorldServer } from '../../world/server.ts';
import { HttpSession } from '../../world/testing/http-session.ts';
import { countsTable, registerWorld, taskTable } from './world.ts';

/** Runs `rmsweb world ...args` in-process; returns stdout and stderr. */
async function world(...args: string[]): Promise<{ out: string; err: string }> {
  const program = new Command('rmsweb').exitOverride();
  registerWorld(program);
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c: unknown) => {
    out += String(c);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c: unknown) => {
    err += String(c);
    return true;
  });
  try {
    await program.parseAsync(['node', 'rmsweb', 'world', ...args]);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  return { out, err };
}

describe('rmsweb world tasks', () => {
  it('prints a JSON array of Task objects with --json', async () => {
    const { out } = await world('tasks', '--site', 'recipes', '--split', 'test', '--limit', '3', '--json');
    const tasks = JSON.parse(out);
    expect(tasks).toHaveLength(3);
    for (const t of tasks) {
      expect(Task.parse(t)).toMatchObject({ site: 'recipes', split: 'test', suite: 'world' });
      expect(t.level).toMatch(/^(easy|medium|hard)$/);
    }
  });

  it('prints a table with per-site and per-level counts', async () => {
    const { out } = await world('tasks', '--site', 'travel', '--limit', '2');
    expect(out.split('\n')[0]).toMatch(/^id\s+level\s+ref\s+objective$/);
    expect(out).toMatch(/^travel\s+324\s+72\s+\d+\s+\d+\s+\d+\s+396$/m);
    expect(out).toContain('(showing 2 of 396 tasks)');
  });

  it('rejects an unknown site or split with an InputError naming the option', async () => {
    await expect(world('tasks', '--site', 'nowhere')).rejects.toSatisfy(
      (e) => InputError.isInstance(e) && /--site/.test(String(e)),
    );
    await expect(world('tasks', '--split', 'dev')).rejects.toSatisfy(
      (e) => InputError.isInstance(e) && /--split/.test(String(e)),
    );
  });

  it('formats tables from tasks', () => {
    const t = {
      id: 'shop.x.train.000',
      site: 'shop',
      split: 'train',
      level: 'easy',
      referenceLength: 4,
      objective: 'Buy it',
    } as Task;
    expect(taskTable([t])).toContain('shop.x.train.000  easy      4  Buy it');
    expect(countsTable([t]).split('\n')[1]).toMatch(/^shop\s+1\s+0\s+1\s+0\s+0\s+1$/);
  });
});

describe('rmsweb world check', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0 });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("verifies a running world's session and answer", async () => {
    const s = new HttpSession(server.url);
    const shop = server.world.sites.get('shop')!;
    const { out: list } = await world('tasks', '--site', 'shop', '--json');
    const task = (JSON.parse(list) as Task[]).find((t) => t.category === 'wishlist-add')!;
    const productId = (task.verifier as unknown as { params: { productId: string } }).params.productId;
    expect(shop.templates.some((t) => t.id === 'shop.wishlist-add')).toBe(true);
    const before = await world('check', task.id, '--session', s.id, '--port', String(server.port), '--json');
    expect(JSON.parse(before.out)).toMatchObject({ success: false, failedConditions: ['wishlist.item'] });
    await s.post('/shop/wishlist/add', { id: productId });
    const after = await world('check', task.id, '--session', s.id, '--port', String(server.port));
    expect(after.out).toMatch(/^SUCCESS\s+score 1\.00/);
    expect(after.err).toBe('');
  });

  it('says so when it had to start a world in-process', async () => {
    const { out, err } = await world(
      'check',
      'shop.product-price.test.000',
      '--session',
      'nobody',
      '--answer',
      '$1',
      '--port',
      String(server.port),
      '--seed',
      '5',
    );
    expect(err).toContain('started one in-process');
    expect(err).toContain('session nobody is empty');
    expect(out).toMatch(/^FAILURE/);
  });

  it('needs --session and a known task id', async () => {
    await expect(world('check', 'shop.product-price.test.000')).rejects.toSatisfy(
      (e) => InputError.isInstance(e) && /--session/.test(String(e)),
    );
    await expect(world('check', 'nope.1', '--session', 'x')).rejects.toSatisfy(
      (e) => InputError.isInstance(e) && /no world task/.test(String(e)),
    );
  });
});
