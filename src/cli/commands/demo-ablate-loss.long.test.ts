import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../pipeline/base-snapshot.ts';
import { tinyAblateArgs, tinyDemo } from './testing/tiny-demo.ts';

/**
 * `rmsweb ablate --preset tiny --from <demo>` when the machine goes before the small snapshot
 * exists: the base comes back from the large one (with its run stores), and only then is the small
 * one written. In the long suite (`npm run test:long`): a demo and a whole ablation, ~4 min beside
 * other work; demo.test.ts checks the ledger and the small snapshot's restore in CI.
 */
const dir = mkdtempSync(join(tmpdir(), 'rmsweb-ablate-loss-'));
const out = join(dir, 'demo');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, FORCE_COLOR: '0' };
const table = (md: string) => md.split('\n').filter((l) => l.startsWith('|'));

describe('rmsweb ablate --preset tiny --from the demo, the machine lost early', () => {
  beforeAll(() => {
    const before = tinyDemo(out);
    expect(before.status, before.stderr.slice(-3000)).toBe(0);
  }, 600_000);

  it('survives the loss of the machine before the small snapshot exists: the base comes back from the one with its run stores', {
    timeout: 1_500_000,
  }, async () => {
    const o = {
      from: join(dir, 'demo-lost-early'),
      results: join(dir, 'results-lost-early'),
      out: join(dir, 'ablate-lost-early'),
    };
    cpSync(out, o.from, { recursive: true });
    // The machine goes as soon as the first snapshot is written, before any stage reads the stores.
    const killed = await new Promise<string>((done) => {
      const p = spawn(process.execPath, tinyAblateArgs(o), { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.setEncoding('utf8');
      p.stderr.on('data', (d: string) => {
        err += d;
        if (/run stores/.test(err)) p.kill('SIGKILL');
      });
      p.on('close', () => done(err));
    });
    expect(killed).toMatch(/\[snapshot\] .*the base with its \d+ run stores/);
    const snap = join(o.results, 'ablation-tiny.base');
    expect(readSnapshot(snap).phase).toBe('stores');
    expect(existsSync(join(snap, 'files', 'base', 'collect', 'store.sqlite.gz'))).toBe(true);
    rmSync(o.from, { recursive: true, force: true });
    rmSync(o.out, { recursive: true, force: true });
    const r = spawnSync(process.execPath, tinyAblateArgs(o), { encoding: 'utf8', timeout: 900_000, env });
    expect(r.status, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toMatch(/\[snapshot\] --from .* was missing: restored \d+ files/);
    // The stages that read the collection ran on the restored stores, then the small snapshot replaced the large.
    expect(r.stderr).toMatch(/\[verify-critical\] running/);
    expect(readSnapshot(snap).phase).toBe('complete');
    // Every row of the ablation measured: each row of its JSON has its line in the table.
    const json = JSON.parse(readFileSync(join(o.results, 'ablation-tiny.json'), 'utf8')) as {
      rows: { row: string }[];
    };
    expect(json.rows.length).toBeGreaterThanOrEqual(3);
    const md = readFileSync(join(o.results, 'ablation-tiny.md'), 'utf8');
    const names = table(md).map((l) => l.split('|')[1]?.trim());
    for (const r of json.rows) expect(names).toContain(r.row);
  });
});
