import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { makeTrajectory } from '../../store/fixtures.ts';
import { RunStore } from '../../store/run-store.ts';
import { hasSnapshot, readSnapshot, restoreSnapshot, stagePattern, writeSnapshot } from './base-snapshot.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A demo folder and an ablation folder as the ablation leaves them after its first stages. */
function folders(name: string) {
  const base = join(dir, name, 'demo');
  const ablate = join(dir, name, 'ablate');
  mkdirSync(join(base, 'models', 'sft'), { recursive: true });
  mkdirSync(join(base, 'mined'), { recursive: true });
  mkdirSync(join(ablate, 'verified'), { recursive: true });
  writeFileSync(join(base, 'models', 'sft', 'weights.bin'), Buffer.from([1, 2, 3, 4]));
  writeFileSync(join(base, 'models', 'sft', 'config.json'), '{"a":1}');
  writeFileSync(join(base, 'mined', 'critical.jsonl'), '{"id":"cs_1"}\n');
  writeFileSync(join(ablate, 'verified', 'critical.jsonl'), '{"id":"cs_1","verification":{}}\n');
  const bs = RunStore.open(base);
  const as = RunStore.open(ablate);
  bs.putRecord('pipeline', 'settings', { preset: { name: 'tiny' }, seed: 0, worldSeed: 1 });
  bs.putRecord('stage', 'train-sft', { stage: 'train-sft', result: { dir: join(base, 'models', 'sft') } });
  bs.putRecord('stage', 'eval-sft', { stage: 'eval-sft', result: {} });
  as.putRecord('stage', 'verify-critical', {
    stage: 'verify-critical',
    result: { file: join(ablate, 'verified', 'critical.jsonl') },
  });
  as.putRecord('stage', 'eval-dapo-mined', { stage: 'eval-dapo-mined' });
  bs.saveTrajectory(makeTrajectory({ id: 'traj_ok', tags: ['eval:teacher'], success: true }));
  bs.saveTrajectory(makeTrajectory({ id: 'traj_fail', tags: ['eval:teacher'], success: false }));
  bs.saveTrajectory(makeTrajectory({ id: 'traj_collect', tags: ['collect'], success: true }));
  return { base, ablate, bs, as };
}

function snapshot(name: string) {
  const f = folders(name);
  const snap = join(dir, name, 'results', 'ablation-tiny.base');
  const m = writeSnapshot(snap, {
    base: 'hash1',
    roots: { base: f.base, ablate: f.ablate },
    stores: { base: f.bs, ablate: f.as },
    records: {
      base: ['pipeline/settings', stagePattern('train-sft*')],
      ablate: [stagePattern('verify-critical')],
    },
    files: { base: ['models/sft', 'mined/critical.jsonl'], ablate: ['verified/critical.jsonl'] },
    trajectories: { root: 'base', tag: 'eval:teacher', filter: (t) => t.verdict?.success === true },
    commit: 'abc',
  });
  f.bs.close();
  f.as.close();
  return { ...f, snap, m };
}

describe('base snapshots', () => {
  it('keep the named records, files and episodes, and nothing else', () => {
    const { snap, m } = snapshot('keep');
    expect(hasSnapshot(snap)).toBe(true);
    expect(readSnapshot(snap).base).toBe('hash1');
    expect(m.records.map((r) => `${r.root}:${r.kind}/${r.key}`).sort()).toEqual([
      'ablate:stage/verify-critical',
      'base:pipeline/settings',
      'base:stage/train-sft',
    ]);
    expect(m.files.map((f) => `${f.root}:${f.path}`).sort()).toEqual([
      'ablate:verified/critical.jsonl',
      'base:mined/critical.jsonl',
      'base:models/sft/config.json',
      'base:models/sft/weights.bin',
    ]);
    expect(m.trajectories.count).toBe(1);
    expect(m.phase).toBe('complete');
  });

  it('restore into other folders: files checked and laid out, paths in records rewritten, episodes back', () => {
    const { snap } = snapshot('restore');
    const base = join(dir, 'restore', 'elsewhere', 'demo');
    const ablate = join(dir, 'restore', 'elsewhere', 'ablate');
    const bs = RunStore.open(base);
    const as = RunStore.open(ablate);
    const r = restoreSnapshot(snap, { base, ablate }, { base: bs, ablate: as });
    expect(r).toEqual({ files: 4, records: 3, trajectories: 1 });
    expect([...readFileSync(join(base, 'models', 'sft', 'weights.bin'))]).toEqual([1, 2, 3, 4]);
    expect(existsSync(join(ablate, 'verified', 'critical.jsonl'))).toBe(true);
    expect(bs.getRecord<{ result: { dir: string } }>('stage', 'train-sft')?.result.dir).toBe(
      join(base, 'models', 'sft'),
    );
    expect(as.getRecord<{ result: { file: string } }>('stage', 'verify-critical')?.result.file).toBe(
      join(ablate, 'verified', 'critical.jsonl'),
    );
    expect(bs.getRecord('stage', 'eval-sft')).toBeNull();
    expect(bs.listTrajectories({ tag: 'eval:teacher' }).map((t) => t.id)).toEqual(['traj_ok']);
    // A second restore changes nothing: restoring never overwrites a run.
    expect(restoreSnapshot(snap, { base, ablate }, { base: bs, ablate: as })).toEqual({
      files: 0,
      records: 0,
      trajectories: 0,
    });
    bs.close();
    as.close();
  });

  it('of phase stores carry a run store whole (its log checkpointed in), and the complete one replaces them', () => {
    const f = folders('stores');
    // A sub-run store still open, its last writes only in the write-ahead log.
    const cs = RunStore.open(join(f.base, 'collect'));
    cs.saveTrajectory(makeTrajectory({ id: 'traj_c1', tags: ['collect'], success: true }));
    cs.checkpoint();
    const snap = join(dir, 'stores', 'results', 'ablation-tiny.base');
    const spec = (phase: 'stores' | 'complete') => ({
      base: 'hash1',
      phase,
      roots: { base: f.base, ablate: f.ablate },
      stores: { base: f.bs, ablate: f.as },
      records: { base: ['pipeline/settings'], ablate: [] },
      files: {
        base: ['models/sft', ...(phase === 'stores' ? ['collect/store.sqlite'] : [])],
        ablate: phase === 'complete' ? ['verified/critical.jsonl'] : [],
      },
      trajectories: { root: 'base' as const, tag: 'eval:teacher' },
      commit: null,
    });
    writeSnapshot(snap, spec('stores'));
    cs.close();
    expect(readSnapshot(snap).phase).toBe('stores');
    const base = join(dir, 'stores', 'elsewhere', 'demo');
    const ablate = join(dir, 'stores', 'elsewhere', 'ablate');
    const bs = RunStore.open(base);
    const as = RunStore.open(ablate);
    expect(restoreSnapshot(snap, { base, ablate }, { base: bs, ablate: as }).files).toBe(3);
    const restored = RunStore.open(join(base, 'collect'), { create: false, readonly: true });
    expect(restored.listTrajectories({ tag: 'collect' }).map((t) => t.id)).toEqual(['traj_c1']);
    restored.close();
    bs.close();
    as.close();

    writeSnapshot(snap, spec('complete'));
    f.bs.close();
    f.as.close();
    const m = readSnapshot(snap);
    expect(m.phase).toBe('complete');
    expect(m.files.map((x) => `${x.root}:${x.path}`).sort()).toEqual([
      'ablate:verified/critical.jsonl',
      'base:models/sft/config.json',
      'base:models/sft/weights.bin',
    ]);
    expect(existsSync(join(snap, 'files', 'base', 'collect'))).toBe(false);
  });

  it('refuse a damaged file, naming it, before laying it out', () => {
    const { snap } = snapshot('damaged');
    writeFileSync(join(snap, 'files', 'base', 'mined', 'critical.jsonl.gz'), Buffer.from([0x1f, 0x8b]));
    const base = join(dir, 'damaged', 'new', 'demo');
    const ablate = join(dir, 'damaged', 'new', 'ablate');
    const bs = RunStore.open(base);
    const as = RunStore.open(ablate);
    expect(() => restoreSnapshot(snap, { base, ablate }, { base: bs, ablate: as })).toThrow(
      /critical\.jsonl\.gz.*the base snapshot's mined\/critical\.jsonl cannot be read/,
    );
    expect(existsSync(join(base, 'mined', 'critical.jsonl'))).toBe(false);
    bs.close();
    as.close();
    const manifest = readSnapshot(snap);
    rmSync(join(snap, 'manifest.json.gz'));
    expect(hasSnapshot(snap)).toBe(false);
    // A snapshot written before the manifest was gzipped still reads.
    writeFileSync(join(snap, 'manifest.json'), JSON.stringify(manifest));
    expect(hasSnapshot(snap)).toBe(true);
    expect(readSnapshot(snap)).toEqual(manifest);
    writeFileSync(join(snap, 'manifest.json'), '{"format":"other"}');
    expect(() => readSnapshot(snap)).toThrow(InputError);
    expect(() => readSnapshot(snap)).toThrow(/not a base snapshot: format/);
    writeFileSync(join(snap, 'manifest.json.gz'), 'not gzip');
    expect(() => readSnapshot(snap)).toThrow(/manifest\.json\.gz.*cannot read a base snapshot/);
  });
});
