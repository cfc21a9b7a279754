import { InputError } from '../core/errors.ts';
import { hasExpertLabel, type Trajectory } from '../core/trajectory.ts';
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

/** Trajectories of relabelled rollouts (`rollout --relabel`): those with at least one expert label. */
export function loadRelabeledTrajectories(runDirs: readonly string[]): Trajectory[] {
  const out: Trajectory[] = [];
  for (const dir of runDirs) {
    const store = RunStore.open(dir, { create: false, readonly: true });
    try {
      const ts = store.listTrajectories().filter(hasExpertLabel);
      if (ts.length === 0)
        throw new InputError(
          `${dir} holds no relabelled rollouts (record them with \`rmsweb rollout --relabel\`)`,
          {
            field: '--relabeled',
          },
        );
      out.push(...ts);
    } finally {
      store.close();
    }
  }
  return out;
}
