import type { Trajectory } from '../core/trajectory.ts';
import { RunStore } from '../store/index.ts';

/** The verified-success trajectories of one or more run folders, in run then insertion order. */
export function loadSuccessfulTrajectories(runDirs: readonly string[]): Trajectory[] {
  const out: Trajectory[] = [];
  for (const dir of runDirs) {
    const store = RunStore.open(dir, { create: false, readonly: true });
    try {
      out.push(...store.listTrajectories({ success: true }));
    } finally {
      store.close();
    }
  }
  return out;
}
