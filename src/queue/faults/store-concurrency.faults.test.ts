import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../store/run-store.ts';

const execFileP = promisify(execFile);

// Two processes opening one run store and writing at once, racing on the same episode keys, while
// a third reads: no lost writes, no duplicate episode, no SQLITE_BUSY escaping to the caller.
describe('fault: two processes writing one run store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmsweb-faults-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every write and saves each contested episode exactly once', async () => {
    const n = 60;
    RunStore.open(dir).close();
    const writer = join(import.meta.dirname, 'store-writer.ts');
    const run = (prefix: string) =>
      execFileP(process.execPath, ['--import', 'tsx', writer, dir, prefix, String(n)], { timeout: 120_000 });
    let reads = 0;
    let readerError: unknown = null;
    let stop = false;
    const reader = (async () => {
      const r = RunStore.open(dir, { readonly: true });
      try {
        while (!stop) {
          r.listTrajectorySummaries();
          r.countTrajectories({ tag: 'teacher' });
          reads++;
          await new Promise((res) => setTimeout(res, 20));
        }
      } catch (e) {
        readerError = e;
      } finally {
        r.close();
      }
    })();
    const [a, b] = await Promise.all([run('p1'), run('p2')]);
    stop = true;
    await reader;
    expect(readerError).toBeNull();
    expect(reads).toBeGreaterThan(0);
    const ra = JSON.parse(a.stdout.trim());
    const rb = JSON.parse(b.stdout.trim());
    expect(ra.ok && rb.ok).toBe(true);
    // Every contested key was won by exactly one process.
    expect(ra.wrote + rb.wrote).toBe(n);
    const s = RunStore.open(dir, { create: false });
    for (let i = 0; i < n; i++) {
      expect(s.countTrajectories({ taskId: `shared_${i}` })).toBe(1);
      expect(s.hasEpisode(`shared:${i}`) && s.hasEpisode(`p1:${i}`) && s.hasEpisode(`p2:${i}`)).toBe(true);
    }
    expect(s.countTrajectories()).toBe(3 * n);
    expect(s.listRecords('progress')).toHaveLength(2 * n);
    // Metrics logged at the same steps by both processes replace each other: one point per step.
    expect(s.listMetrics('shared/loss').map((p) => p.step)).toEqual(Array.from({ length: n }, (_, i) => i));
    const t = s.listTrajectories({ taskId: 'shared_7' })[0];
    expect(s.readImage(t.steps[0].observation.screenshot!.hash).toString()).toBe('shared-image-3');
    s.close();
  }, 150_000);
});
