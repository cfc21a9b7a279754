import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InputError, sha256 } from '../core/index.ts';
import { makeTrajectory } from './fixtures.ts';
import { currentVersions } from './manifest.ts';
import { RunStore } from './run-store.ts';

const execFileP = promisify(execFile);
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-store-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('RunStore layout and manifest', () => {
  it('creates the run folder layout with WAL journaling', () => {
    const run = join(dir, 'runs', 'r1');
    const s = RunStore.open(run);
    expect(existsSync(join(run, 'store.sqlite'))).toBe(true);
    expect(existsSync(join(run, 'images'))).toBe(true);
    expect(existsSync(join(run, 'exports'))).toBe(true);
    s.close();
    const db = new Database(join(run, 'store.sqlite'), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a missing folder when create is false, naming it', () => {
    expect(() => RunStore.open(join(dir, 'nope'), { create: false })).toThrow(
      /run folder .*nope does not exist/,
    );
    expect(() => RunStore.open(join(dir, 'nope'), { readonly: true })).toThrow(InputError);
  });

  it('round-trips the manifest and validates it', () => {
    const s = RunStore.open(dir);
    expect(s.readManifest()).toBeNull();
    const m = {
      name: 'r1',
      command: 'rmsweb collect --tasks world:train:10',
      config: { workers: 2, maxRounds: 5 },
      seed: 7,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
      versions: currentVersions('140.0'),
      stages: { collect: { done: 3 } },
    };
    s.writeManifest(m);
    expect(s.readManifest()).toEqual({ schemaVersion: 1, ...m });
    expect(s.readManifest()?.versions.node).toBe(process.version);
    expect(() => s.writeManifest({ ...m, seed: 'x' as unknown as number })).toThrow(/field seed|seed/);
    writeFileSync(s.manifestPath, '{not json');
    expect(() => s.readManifest()).toThrow(/manifest.json.*not valid JSON/);
    s.close();
  });
});

describe('RunStore trajectories', () => {
  it('round-trips a trajectory and moves the planted base64 screenshot into the image store', () => {
    const s = RunStore.open(dir);
    const bytes = Buffer.from('fake-jpeg-bytes-PLANTED-SCREENSHOT-0123456789');
    const planted = bytes.toString('base64');
    expect(s.saveTrajectory(makeTrajectory({ id: 't1', screenshotData: planted }))).toBe(true);
    const back = s.getTrajectory('t1')!;
    expect(back.id).toBe('t1');
    expect(back.steps).toHaveLength(2);
    const shot = back.steps[0].observation.screenshot!;
    expect(shot.data).toBeUndefined();
    expect(shot.hash).toBe(sha256(bytes));
    expect(readFileSync(s.imagePath(shot.hash))).toEqual(bytes);
    expect(s.readImage(shot.hash)).toEqual(bytes);
    s.close();
    // The base64 text appears nowhere in the database file or its WAL.
    for (const f of readdirSync(dir).filter((n) => n.startsWith('store.sqlite'))) {
      expect(readFileSync(join(dir, f)).includes(planted)).toBe(false);
    }
  });

  it('is idempotent on id (replace in place) and on episode key (no-op)', () => {
    const s = RunStore.open(dir);
    s.saveTrajectory(makeTrajectory({ id: 'a' }), { episodeKey: 'task_1:0:0' });
    s.saveTrajectory(makeTrajectory({ id: 'b', taskId: 'task_2' }));
    expect(s.saveTrajectory(makeTrajectory({ id: 'a', success: false }))).toBe(true);
    expect(s.listTrajectories().map((t) => t.id)).toEqual(['a', 'b']);
    expect(s.getTrajectory('a')!.verdict!.success).toBe(false);
    // Same episode key under another id: nothing is written.
    expect(s.saveTrajectory(makeTrajectory({ id: 'c' }), { episodeKey: 'task_1:0:0' })).toBe(false);
    expect(s.getTrajectory('c')).toBeNull();
    expect(s.hasEpisode('task_1:0:0')).toBe(true);
    expect(s.hasEpisode('task_1:0:1')).toBe(false);
    expect(s.countTrajectories()).toBe(2);
    s.close();
  });

  it('filters and summarizes in insertion order', () => {
    const s = RunStore.open(dir);
    s.saveTrajectory(makeTrajectory({ id: 't0', taskId: 'A', round: 0, success: false, notes: [] }));
    s.saveTrajectory(
      makeTrajectory({
        id: 't1',
        taskId: 'A',
        round: 1,
        success: true,
        notes: ['n1'],
        tags: ['teacher', 'x'],
      }),
    );
    s.saveTrajectory(
      makeTrajectory({
        id: 't2',
        taskId: 'B',
        round: 0,
        success: null,
        agentId: 'student',
        tags: ['student'],
      }),
    );
    expect(s.listTrajectories({ taskId: 'A' }).map((t) => t.id)).toEqual(['t0', 't1']);
    expect(s.listTrajectories({ success: true }).map((t) => t.id)).toEqual(['t1']);
    expect(s.listTrajectories({ success: false }).map((t) => t.id)).toEqual(['t0']);
    expect(s.listTrajectories({ tag: 'x' }).map((t) => t.id)).toEqual(['t1']);
    expect(s.listTrajectories({ agentId: 'student' }).map((t) => t.id)).toEqual(['t2']);
    expect(s.listTrajectories({ taskId: 'A', round: 1 }).map((t) => t.id)).toEqual(['t1']);
    expect(s.listTrajectorySummaries()).toEqual([
      {
        id: 't0',
        taskId: 'A',
        site: 'shop',
        agentId: 'heuristic',
        round: 0,
        success: false,
        score: 0,
        steps: 2,
        tags: ['teacher'],
        notes: 0,
      },
      {
        id: 't1',
        taskId: 'A',
        site: 'shop',
        agentId: 'heuristic',
        round: 1,
        success: true,
        score: 1,
        steps: 2,
        tags: ['teacher', 'x'],
        notes: 1,
      },
      {
        id: 't2',
        taskId: 'B',
        site: 'shop',
        agentId: 'student',
        round: 0,
        success: null,
        score: null,
        steps: 2,
        tags: ['student'],
        notes: 0,
      },
    ]);
    s.close();
  });

  it('rejects an invalid trajectory with its id and field, and reports a corrupt row by id', () => {
    const s = RunStore.open(dir);
    const bad = { ...makeTrajectory({ id: 'bad1' }), endReason: 'exploded' };
    expect(() => s.saveTrajectory(bad as never)).toThrow(/invalid trajectory bad1.*endReason/);
    s.saveTrajectory(makeTrajectory({ id: 'ok1' }));
    s.close();
    const db = new Database(join(dir, 'store.sqlite'));
    db.prepare("UPDATE trajectories SET body = json_set(body, '$.round', -3) WHERE id = 'ok1'").run();
    db.close();
    const s2 = RunStore.open(dir);
    expect(() => s2.getTrajectory('ok1')).toThrow(/corrupt trajectory record ok1: round/);
    s2.close();
  });

  it('resumes after reopen: everything written before close is there', () => {
    const s = RunStore.open(dir);
    for (let i = 0; i < 5; i++) s.saveTrajectory(makeTrajectory({ id: `t${i}` }), { episodeKey: `k${i}` });
    s.close();
    const s2 = RunStore.open(dir, { create: false });
    expect(s2.countTrajectories()).toBe(5);
    const done = [0, 1, 2, 3, 4, 5, 6].filter((i) => !s2.hasEpisode(`k${i}`));
    expect(done).toEqual([5, 6]);
    s2.close();
    const ro = RunStore.open(dir, { readonly: true });
    expect(ro.listTrajectories().length).toBe(5);
    expect(() => ro.saveTrajectory(makeTrajectory({ id: 'x' }))).toThrow(/read-only/);
    ro.close();
  });
});

describe('RunStore images, reflections, records, metrics', () => {
  it('stores an image once by content hash', () => {
    const s = RunStore.open(dir);
    const a = s.putImage(new Uint8Array([1, 2, 3]));
    const b = s.putImage(new Uint8Array([1, 2, 3]));
    const c = s.putImage(new Uint8Array([3, 2, 1]));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(s.imagePath(a)).toBe(join(dir, 'images', a.slice(0, 2), `${a}.jpg`));
    const files = readdirSync(join(dir, 'images'), { recursive: true }).filter((f) =>
      String(f).endsWith('.jpg'),
    );
    expect(files).toHaveLength(2);
    expect(() => s.imagePath('../../etc/passwd')).toThrow(/not an image hash/);
    expect(() => s.readImage('0'.repeat(64))).toThrow(/not in the image store/);
    // Two trajectories with the same screenshot share one file.
    const shot = Buffer.from('same-shot').toString('base64');
    s.saveTrajectory(makeTrajectory({ id: 'x1', screenshotData: shot }));
    s.saveTrajectory(makeTrajectory({ id: 'x2', screenshotData: shot }));
    const after = readdirSync(join(dir, 'images'), { recursive: true }).filter((f) =>
      String(f).endsWith('.jpg'),
    );
    expect(after).toHaveLength(3);
    s.close();
  });

  it('round-trips reflections per task, upserting by id', () => {
    const s = RunStore.open(dir);
    const r = {
      id: 'r1',
      taskId: 'A',
      round: 0,
      fromTrajectoryId: 't0',
      text: 'Use the search box.',
      source: 'rules',
      createdAt: 'now',
    };
    s.saveReflection(r);
    s.saveReflection({ ...r, id: 'r2', taskId: 'B' });
    s.saveReflection({ ...r, text: 'Use the search box, then sort.' });
    expect(s.listReflections().map((x) => x.id)).toEqual(['r1', 'r2']);
    expect(s.listReflections('A')).toEqual([
      { schemaVersion: 1, ...r, text: 'Use the search box, then sort.', avoid: [], prefer: [] },
    ]);
    expect(() => s.saveReflection({ ...r, text: '' })).toThrow(/invalid reflection r1.*text/);
    s.close();
  });

  it('upserts generic records, validates with a schema, and strips screenshots in them', () => {
    const s = RunStore.open(dir);
    s.putRecord('critical', 'c1', { a: 1 });
    s.putRecord('critical', 'c2', {
      a: 2,
      obs: { screenshot: { hash: 'x', width: 1, height: 1, data: Buffer.from('img').toString('base64') } },
    });
    s.putRecord('critical', 'c1', { a: 3 });
    expect(s.listRecords('critical').map((r) => r.key)).toEqual(['c1', 'c2']);
    expect(s.getRecord('critical', 'c1')).toEqual({ a: 3 });
    expect(s.getRecord('critical', 'zz')).toBeNull();
    const c2 = s.getRecord<{ obs: { screenshot: { hash: string; data?: string } } }>('critical', 'c2')!;
    expect(c2.obs.screenshot.data).toBeUndefined();
    expect(c2.obs.screenshot.hash).toBe(sha256(Buffer.from('img')));
    const Schema = z.object({ a: z.string() });
    expect(() => s.getRecord('critical', 'c1', Schema)).toThrow(/corrupt critical record c1: a/);
    expect(s.deleteRecord('critical', 'c1')).toBe(true);
    expect(s.listRecords('critical')).toHaveLength(1);
    s.close();
  });

  it('appends metrics in step order and replaces a repeated step', () => {
    const s = RunStore.open(dir);
    s.appendMetric('losses/policy', 2, { loss: 0.5 });
    s.appendMetric('losses/policy', 1, { loss: 0.9, kl: 0.01 });
    s.appendMetric('losses/policy', 2, { loss: 0.4 });
    expect(s.listMetrics('losses/policy')).toEqual([
      { step: 1, values: { loss: 0.9, kl: 0.01 } },
      { step: 2, values: { loss: 0.4 } },
    ]);
    expect(s.listMetricSeries()).toEqual(['losses/policy']);
    expect(() => s.appendMetric('x', 1, { a: Number.NaN })).toThrow(/a is not a number/);
    s.close();
  });
});

describe('RunStore concurrency', () => {
  it('two instances on one folder interleave writes without loss', () => {
    const a = RunStore.open(dir);
    const b = RunStore.open(dir);
    for (let i = 0; i < 40; i++) {
      (i % 2 ? a : b).saveTrajectory(makeTrajectory({ id: `t${i}` }), { episodeKey: `k${i}` });
      (i % 2 ? b : a).putRecord('r', `k${i}`, i);
    }
    expect(a.countTrajectories()).toBe(40);
    expect(b.listRecords('r')).toHaveLength(40);
    a.close();
    b.close();
  });

  it('two processes write one run store concurrently without loss or error', async () => {
    const worker = join(import.meta.dirname, 'concurrency-worker.ts');
    const n = 100;
    const run = (prefix: string) =>
      execFileP(process.execPath, ['--import', 'tsx', worker, dir, prefix, String(n)], { timeout: 60_000 });
    const [p1, p2] = await Promise.all([run('p1'), run('p2')]);
    expect(p1.stdout.trim()).toBe('ok');
    expect(p2.stdout.trim()).toBe('ok');
    const s = RunStore.open(dir, { create: false });
    expect(s.countTrajectories()).toBe(2 * n);
    expect(s.listRecords('progress')).toHaveLength(2 * n);
    expect(s.listMetrics('loss/p1')).toHaveLength(n);
    expect(s.listMetrics('loss/p2')).toHaveLength(n);
    for (let i = 0; i < n; i++) expect(s.hasEpisode(`p1:${i}`) && s.hasEpisode(`p2:${i}`)).toBe(true);
    // 5 distinct screenshots per process, each stored once and intact.
    const t = s.getTrajectory('p2_7')!;
    expect(s.readImage(t.steps[0].observation.screenshot!.hash).toString()).toBe('p2-image-2');
    const jpgs = readdirSync(join(dir, 'images'), { recursive: true }).filter((f) =>
      String(f).endsWith('.jpg'),
    );
    expect(jpgs).toHaveLength(10);
    s.close();
  }, 90_000);
});
