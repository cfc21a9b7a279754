import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../store/run-store.ts';
import { presetByName } from '../pipeline/presets.ts';

// Every input `ablate` and `demo` read is checked before the first write: a refused run exits 2
// naming the file or option, runs no stage and leaves no --out folder.

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-ablate-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rmsweb(args: string[]) {
  return spawnSync(process.execPath, ['bin/rmsweb.js', ...args], {
    encoding: 'utf8',
    // Long enough for a stage to start (which would fail the test), far short of a whole run.
    timeout: 120_000,
    env: { ...process.env, FORCE_COLOR: '0', RMSWEB_HEAP_MB: '0' },
  });
}

const ledgerOf = (o: { preset?: string; hash?: string } = {}) => ({
  format: 'rmsweb-ablation-ledger',
  version: 1,
  preset: o.preset ?? 'tiny',
  seed: 0,
  worldSeed: 1,
  base: { hash: o.hash ?? 'h'.repeat(64), parts: { student: 's' } },
  units: {},
  stages: {},
});

describe('ablate refuses a bad input before anything runs', () => {
  it('a corrupt --ledger: exit 2 naming the file, no stage run, no --out folder', () => {
    const ledger = join(dir, 'corrupt.ledger.json');
    writeFileSync(ledger, '{"format": "rmsweb-ablation-ledger", "units": {');
    const out = join(dir, 'out-corrupt');
    const r = rmsweb(['ablate', '--preset', 'tiny', '--seeds', '1', '--out', out, '--ledger', ledger]);
    expect(r.status, r.stderr.slice(-2000)).toBe(2);
    expect(r.stderr).toContain(ledger);
    expect(r.stderr).toMatch(/cannot read an ablation ledger/);
    expect(r.stderr).not.toMatch(/\] running/);
    expect(existsSync(out)).toBe(false);
  });

  it('a ledger of another preset, and one that is not a ledger: refused the same way', () => {
    const other = join(dir, 'quick.ledger.json');
    writeFileSync(other, JSON.stringify(ledgerOf({ preset: 'quick' })));
    const out = join(dir, 'out-other');
    const r = rmsweb(['ablate', '--preset', 'tiny', '--out', out, '--ledger', other]);
    expect(r.status, r.stderr.slice(-2000)).toBe(2);
    expect(r.stderr).toMatch(/measured with preset quick, not tiny/);
    expect(existsSync(out)).toBe(false);
    const wrong = join(dir, 'wrong.ledger.json');
    writeFileSync(wrong, JSON.stringify({ ...ledgerOf(), units: { sft: { run: 'nope' } } }));
    const w = rmsweb(['ablate', '--preset', 'tiny', '--out', out, '--ledger', wrong]);
    expect(w.status).toBe(2);
    expect(w.stderr).toMatch(/not an ablation ledger/);
    expect(w.stderr).toContain(wrong);
    expect(existsSync(out)).toBe(false);
  });

  it('a --from folder that is gone, with its ledger and no snapshot: says what it needs', () => {
    const results = join(dir, 'results');
    mkdirSync(results);
    const ledger = join(results, 'ablation-tiny.ledger.json');
    writeFileSync(ledger, JSON.stringify(ledgerOf()));
    const out = join(dir, 'out-nobase');
    const r = rmsweb([
      'ablate',
      '--preset',
      'tiny',
      '--from',
      join(dir, 'lost-demo'),
      '--results',
      results,
      '--out',
      out,
    ]);
    expect(r.status, r.stderr.slice(-2000)).toBe(2);
    expect(r.stderr).toMatch(/lost-demo is not a pipeline run folder/);
    expect(r.stderr).toMatch(/no base snapshot is at .*ablation-tiny\.base/);
    expect(r.stderr).toMatch(
      /point --from at the demo folder the ledger was measured on, or give --snapshot/,
    );
    expect(existsSync(out)).toBe(false);
    expect(JSON.parse(readFileSync(ledger, 'utf8'))).toEqual(ledgerOf());
  });

  it('an --out folder of another run: refused before anything is written into it (demo too)', () => {
    const out = join(dir, 'out-quick');
    const store = RunStore.open(out);
    const settings = { command: 'demo', preset: presetByName('quick'), seed: 0, worldSeed: 1 };
    store.putRecord('pipeline', 'settings', settings);
    store.close();
    for (const command of ['demo', 'ablate']) {
      const r = rmsweb([command, '--preset', 'tiny', '--out', out]);
      expect(r.status, r.stderr.slice(-2000)).toBe(2);
      expect(r.stderr).toMatch(/holds a demo run made with other settings \(preset quick/);
    }
    const again = RunStore.open(out, { create: false, readonly: true });
    expect(again.getRecord('pipeline', 'settings')).toEqual(settings);
    expect(again.listRecords('stage')).toEqual([]);
    again.close();
  });
});
