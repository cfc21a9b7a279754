import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../pipeline/base-snapshot.ts';
import { tinyAblateArgs, tinyDemo } from './testing/tiny-demo.ts';

/**
 * `rmsweb ablate --preset tiny --from <demo>` over one tiny demo, in the long suite (`npm run
 * test:long`; a demo and two whole ablations, ~7 min beside other work; ablate.test.ts covers
 * ablate in CI):
 * - the machine lost before the small snapshot exists: the base comes back from the large one (with
 *   its run stores), and only then is the small one written;
 * - the ledger keeps every finished seed and the small snapshot what the rest read: each survives
 *   the loss of its folders, and a ledger of another base is refused.
 */
const dir = mkdtempSync(join(tmpdir(), 'rmsweb-ablate-loss-'));
const out = join(dir, 'demo');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, FORCE_COLOR: '0' };
const table = (md: string) => md.split('\n').filter((l) => l.startsWith('|'));

beforeAll(() => {
  const before = tinyDemo(out);
  expect(before.status, before.stderr.slice(-3000)).toBe(0);
}, 600_000);

describe('rmsweb ablate --preset tiny --from the demo, the machine lost early', () => {
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

describe('rmsweb ablate --preset tiny --from the demo', () => {
  const results = join(dir, 'results');
  const ablateOut = join(dir, 'ablate');
  // A copy of the demo, so this test can lose it as a machine would.
  const from = join(dir, 'demo-for-ablate');
  const ablate = () =>
    spawnSync(process.execPath, tinyAblateArgs({ from, results, out: ablateOut }), {
      encoding: 'utf8',
      timeout: 540_000,
      env,
    });
  const ledgerFile = join(results, 'ablation-tiny.ledger.json');
  const readLedger = () =>
    JSON.parse(readFileSync(ledgerFile, 'utf8')) as {
      base: { hash: string; parts: Record<string, string> };
      units: Record<string, { run: { perTask: Record<string, unknown> } }>;
    };
  const rowNames = (md: string) => table(md).map((l) => l.split('|')[1]);
  const mdFile = join(results, 'ablation-tiny.md');

  it('keeps every finished seed in the ledger and what the rest read of the base in a snapshot: each survives the loss of its folders', {
    timeout: 1_500_000,
  }, () => {
    cpSync(out, from, { recursive: true });
    const a = ablate();
    expect(a.status, a.stderr.slice(-3000)).toBe(0);
    const md = readFileSync(mdFile, 'utf8');
    // The copy to commit names the run folders by role; the run folder's own copy keeps their paths.
    expect(md).not.toContain(from);
    expect(md).toContain("--from <the demo's data folder>");
    expect(readFileSync(join(ablateOut, 'ablation.md'), 'utf8')).toContain(from);
    // Every row of the table has its seed in the ledger, with the per-task outcomes the paired CIs resample.
    const json = JSON.parse(readFileSync(join(results, 'ablation-tiny.json'), 'utf8')) as { rows: unknown[] };
    const ledger = readLedger();
    expect(Object.keys(ledger.units).length).toBe(json.rows.length);
    for (const u of Object.values(ledger.units)) expect(Object.keys(u.run.perTask).length).toBeGreaterThan(0);
    // First the base with its run stores, then, once the stages that read them have run, the small one.
    expect(a.stderr).toMatch(/\[snapshot\] .*ablation-tiny\.base: the base with its \d+ run stores/);
    expect(a.stderr).toMatch(/\[snapshot\] .*ablation-tiny\.base: \d+ files/);
    expect(readSnapshot(join(results, 'ablation-tiny.base')).phase).toBe('complete');
    expect(existsSync(join(results, 'ablation-tiny.base', 'files', 'base', 'collect'))).toBe(false);

    // The ablation's run folder is lost, the committed ledger stays: nothing runs again.
    rmSync(ablateOut, { recursive: true, force: true });
    const b = ablate();
    expect(b.status, b.stderr.slice(-3000)).toBe(0);
    expect(b.stderr).not.toMatch(/\] running/);
    expect(b.stderr).toMatch(/in the ledger \(pass@1/);
    expect(table(readFileSync(mdFile, 'utf8'))).toEqual(table(md));

    // The demo folder is lost too, and up to three seeds were never measured: the snapshot lays out
    // what they read (the student, the plain SFT student, the mined and verified states, the
    // teacher's episodes), and only their own stages run. The confirmed row exists only when
    // verification confirmed a state, the plain rows only when the validation split chose a
    // relabelled student as the start.
    rmSync(ablateOut, { recursive: true, force: true });
    rmSync(from, { recursive: true, force: true });
    const doc = JSON.parse(readFileSync(ledgerFile, 'utf8'));
    const dropped = ['dapo-mined', 'salvage-ds-confirmed', 'salvage-ds-plain'].filter((k) => k in doc.units);
    expect(dropped).toContain('dapo-mined');
    for (const k of dropped) delete doc.units[k];
    writeFileSync(ledgerFile, JSON.stringify(doc));
    const c = ablate();
    expect(c.status, c.stderr.slice(-3000)).toBe(0);
    expect(c.stderr).toMatch(/\[snapshot\] --from .* was missing: restored \d+ files/);
    const ran = [...c.stderr.matchAll(/\[([\w-]+)\] running/g)].map((m) => m[1]).sort();
    expect(ran).toEqual(dropped.flatMap((u) => [`rl-${u}`, `eval-${u}`, `step-accuracy-${u}`]).sort());
    expect(rowNames(readFileSync(mdFile, 'utf8'))).toEqual(rowNames(md));
    expect(readLedger().base.hash).toBe(ledger.base.hash);

    // A ledger measured on another base is refused, naming what differs, and left as it was.
    const other = JSON.parse(readFileSync(ledgerFile, 'utf8'));
    other.base.parts.student = 'another';
    other.base.hash = 'another';
    writeFileSync(ledgerFile, JSON.stringify(other));
    const d = ablate();
    expect(d.status).toBe(2);
    expect(d.stderr).toMatch(/measured on another base \(student differ\)/);
    expect(readLedger().base.hash).toBe('another');
  });
});
