import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import {
  AblationLedger,
  checkpointDigest,
  criticalDigest,
  fingerprint,
  type LedgerUnit,
  thinCurve,
} from './ablation-ledger.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-ledger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = fingerprint({ student: 'aa', 'plain-sft': 'bb', 'mined-states': 'cc' });
const setup = { preset: 'tiny', seed: 0, worldSeed: 1, base };

function unit(pass: number): LedgerUnit {
  return {
    run: {
      seed: 0,
      label: 'salvage-ds',
      pass1: { mean: pass, std: 0, min: pass, max: pass, perRun: [pass], tasks: 2 },
      meanStepsSolved: 7,
      perTask: { a: { success: 1, solved: 1, solvedSteps: 7 }, b: { success: 0, solved: 0, solvedSteps: 0 } },
      rollouts: 64,
      rlSeconds: 3,
      trainSeconds: 3,
    },
    acc: { heldOut: 0.5, critical: null },
    seconds: { 'rl-salvage-ds': 3, 'eval-salvage-ds': 10 },
    commit: 'abc1234',
    finishedAt: '2026-12-02T00:00:00.000Z',
  };
}

describe('AblationLedger', () => {
  it('keeps finished seeds and shared stages across opens, one JSON document', () => {
    const file = join(dir, 'a', 'ledger.json');
    const l = AblationLedger.open(file, setup);
    expect(l.size).toBe(0);
    l.putUnit('salvage-ds-mined', unit(0.5));
    l.putStage('verify-critical', { seconds: 12, result: { confirmed: 3 }, commit: null, finishedAt: 'now' });
    const text = readFileSync(file, 'utf8');
    expect(() => JSON.parse(text)).not.toThrow();
    // A unit per line, so a commit that adds a seed adds a line.
    expect(text.split('\n').filter((x) => x.includes('"salvage-ds-mined"'))).toHaveLength(1);
    const again = AblationLedger.open(file, setup);
    expect(again.size).toBe(1);
    expect(again.unit('salvage-ds-mined')).toEqual(unit(0.5));
    expect(again.stage<{ confirmed: number }>('verify-critical')?.result.confirmed).toBe(3);
    expect(again.unit('dapo-mined')).toBeNull();
    expect(again.commits()).toEqual({ abc1234: 1 });
  });

  it('refuses a ledger of another base, naming what differs, and leaves it as it was', () => {
    const file = join(dir, 'b.json');
    AblationLedger.open(file, setup).putUnit('sft', unit(0.25));
    const before = readFileSync(file, 'utf8');
    const other = fingerprint({ student: 'aa', 'plain-sft': 'bb', 'mined-states': 'zz' });
    const open = () => AblationLedger.open(file, { ...setup, base: other });
    expect(open).toThrow(InputError);
    expect(open).toThrow(/1 seed\(s\) measured on another base \(mined-states differ\)/);
    expect(() => AblationLedger.open(file, { ...setup, preset: 'full' })).toThrow(/preset tiny, not full/);
    expect(() => AblationLedger.open(file, { ...setup, worldSeed: 2 })).toThrow(/world seed 1, not 2/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('names the file of a damaged ledger and the field that is wrong', () => {
    const file = join(dir, 'c.json');
    writeFileSync(file, '{"format":"rmsweb-ablation-ledger"');
    expect(() => AblationLedger.open(file, setup)).toThrow(/cannot read an ablation ledger/);
    const l = AblationLedger.open(join(dir, 'd.json'), setup);
    l.putUnit('sft', unit(0.1));
    const doc = JSON.parse(readFileSync(l.file, 'utf8'));
    doc.units.sft.run.perTask = 'x';
    writeFileSync(file, JSON.stringify(doc));
    try {
      AblationLedger.open(file, setup);
      expect.unreachable();
    } catch (e) {
      expect((e as InputError).message).toMatch(/units\.sft\.run\.perTask/);
      expect((e as InputError).message).toContain(file);
    }
  });
});

describe('base fingerprints', () => {
  it('digest a checkpoint by its weights only', () => {
    const a = join(dir, 'ck-a');
    const b = join(dir, 'ck-b');
    for (const [d, t] of [
      [a, 'one'],
      [b, 'two'],
    ]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'weights.bin'), Buffer.from([1, 2, 3]));
      writeFileSync(join(d, 'config.json'), JSON.stringify({ trainedAt: t }));
    }
    expect(checkpointDigest(a)).toBe(checkpointDigest(b));
    writeFileSync(join(b, 'weights.bin'), Buffer.from([1, 2, 4]));
    expect(checkpointDigest(a)).not.toBe(checkpointDigest(b));
    expect(checkpointDigest(join(dir, 'none'))).toBe('missing');
  });

  it('digest mined states by content, not by their random ids or order', () => {
    const state = (id: string, traj: string, task: string) =>
      JSON.stringify({
        id,
        task: { id: task },
        label: 'input-error',
        comparability: { total: 0.9 },
        success: { trajectoryId: `${traj}s`, stepIndex: 2, action: { type: 'click', index: 4 } },
        failure: { trajectoryId: `${traj}f`, stepIndex: 2, action: { type: 'click', index: 9 } },
      });
    const f1 = join(dir, 'c1.jsonl');
    const f2 = join(dir, 'c2.jsonl');
    writeFileSync(f1, `${state('cs_1', 't1', 'x')}\n${state('cs_2', 't2', 'y')}\n`);
    writeFileSync(f2, `${state('cs_9', 't8', 'y')}\n${state('cs_7', 't9', 'x')}\n`);
    expect(criticalDigest(f1)).toBe(criticalDigest(f2));
    writeFileSync(f2, `${state('cs_9', 't8', 'y')}\n`);
    expect(criticalDigest(f1)).not.toBe(criticalDigest(f2));
  });

  it('hash parts in name order', () => {
    expect(fingerprint({ a: '1', b: '2' }).hash).toBe(fingerprint({ b: '2', a: '1' }).hash);
    expect(fingerprint({ a: '1', b: '2' }).hash).not.toBe(fingerprint({ a: '1', b: '3' }).hash);
  });
});

describe('thinCurve', () => {
  it('keeps short curves whole and thins long ones evenly, first and last kept', () => {
    expect(thinCurve([1, 2, 3], 5)).toEqual([1, 2, 3]);
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    const t = thinCurve(xs, 50);
    expect(t).toHaveLength(50);
    expect(t[0]).toBe(0);
    expect(t.at(-1)).toBe(999);
    expect([...t].sort((a, b) => a - b)).toEqual(t);
  });
});
