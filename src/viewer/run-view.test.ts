import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCollection } from '../data/fixtures.ts';
import { RunStore } from '../store/index.ts';
import { RunView } from './run-view.ts';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rmsweb-runview-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('RunView on a pipeline folder', () => {
  it('finds trajectories, reflections and screenshots in the sub-runs of a demo folder', async () => {
    const demo = join(root, 'demo');
    const own = RunStore.open(demo);
    own.putRecord('pipeline', 'settings', { command: 'demo' });
    own.close();
    const { successIds } = await buildCollection(join(demo, 'collect'));
    const view = RunView.open({ runDir: demo });
    try {
      const t = view.store.getTrajectory(successIds[0]);
      expect(t?.id).toBe(successIds[0]);
      const hash = t!.steps[0].observation.screenshot!.hash;
      expect(view.imageFile(hash)).toContain(join('demo', 'collect', 'images'));
      expect(view.taskRows().map((r) => r.taskId)).toContain(t!.task.id);
      expect(view.store.listRecords('pipeline')).toHaveLength(1);
    } finally {
      view.close();
    }
  });
});
