import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Trajectory } from '../core/trajectory.ts';
import { makeTrajectory } from '../store/fixtures.ts';
import { RunStore } from '../store/run-store.ts';
import { episodeJobId, parseEpisodeJobData, parseRedisUrl } from './job-data.ts';
import { packTrajectory, unpackTrajectory } from './wire-result.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function withShots(shots: string[]): Trajectory {
  const t = Trajectory.parse(makeTrajectory({ steps: shots.length }));
  t.steps.forEach((s, i) => {
    s.observation.screenshot = {
      hash: 'pending',
      mime: 'image/jpeg',
      width: 8,
      height: 8,
      data: b64(shots[i]),
    };
  });
  return t;
}

describe('wire result', () => {
  it('sends each distinct screenshot once and restores them into the store', () => {
    const t = withShots(['page-a', 'page-a', 'page-b']);
    const packed = packTrajectory(t, { worker: 'w1' });
    expect(Object.keys(packed.images)).toHaveLength(2);
    expect(JSON.stringify(packed.trajectory)).not.toContain(b64('page-a'));
    // A JSON round trip is what Redis does to the return value.
    const back = unpackTrajectory(JSON.parse(JSON.stringify(packed)), 'job1');
    expect(back.worker).toBe('w1');
    expect(back.droppedImages).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'rmsweb-wire-'));
    try {
      const store = RunStore.open(dir);
      expect(store.saveTrajectory(back.trajectory, { episodeKey: 'k' })).toBe(true);
      const saved = store.getTrajectory(t.id)!;
      expect(store.readImage(saved.steps[2].observation.screenshot!.hash).toString()).toBe('page-b');
      expect(saved.steps[0].observation.screenshot!.hash).toBe(saved.steps[1].observation.screenshot!.hash);
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves out the oldest screenshots, never the last, to stay under the bound', () => {
    const big = (c: string) => c.repeat(3000);
    const t = withShots([big('a'), big('b'), big('c'), big('d')]);
    const full = JSON.stringify(packTrajectory(t, { worker: 'w' })).length;
    const packed = packTrajectory(t, { worker: 'w', maxBytes: full - 5000 });
    expect(packed.droppedImages).toBe(2);
    const back = unpackTrajectory(packed, 'j').trajectory;
    expect(back.steps[0].observation.screenshot!.data).toBeUndefined();
    expect(Buffer.from(back.steps[3].observation.screenshot!.data!, 'base64').toString()).toBe(big('d'));
    expect(JSON.stringify(packed).length).toBeLessThanOrEqual(full - 5000 + 200);
  });

  it('rejects malformed results with the job id in the message', () => {
    expect(() =>
      unpackTrajectory({ v: 1, trajectory: { id: 'x' }, images: {}, droppedImages: 0, worker: 'w' }, 'job-9'),
    ).toThrow(/job-9 returned an invalid trajectory/);
    expect(() => unpackTrajectory('nope', 'job-9')).toThrow(/malformed result/);
  });
});

describe('job data', () => {
  it('makes BullMQ-safe, distinct, stable job ids', () => {
    const a = episodeJobId('run_1', 'collect:shop.a.train.001#0');
    expect(a).not.toContain(':');
    expect(a).toBe(episodeJobId('run_1', 'collect:shop.a.train.001#0'));
    expect(episodeJobId('run_1', 'collect:a#1')).not.toBe(episodeJobId('run_1', 'collect_a_1'));
    expect(episodeJobId('run_2', 'k')).not.toBe(episodeJobId('run_1', 'k'));
  });

  it('validates job data and redis URLs with errors that name the field', () => {
    expect(() => parseEpisodeJobData({ v: 1, runId: 'r', key: 'k' }, 'j1')).toThrow(
      /job j1 carries invalid episode data: .*task/,
    );
    expect(() => parseRedisUrl('http://x:1')).toThrow(/--redis: .* must start with redis:\/\//);
    expect(parseRedisUrl('redis://127.0.0.1:6379/2')).toBe('redis://127.0.0.1:6379/2');
  });
});
