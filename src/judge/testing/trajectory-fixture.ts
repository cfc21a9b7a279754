import { type Task, Trajectory, type TrajectoryInput } from '../../core/index.ts';

/**
 * Builds a small, valid trajectory for judge tests: `steps` clicks on pages `/p0`, `/p1`, ...,
 * each with a screenshot hashed `img-<i>`, ending with a done action when `answer` is given.
 * Test data only.
 */
export function makeTrajectory(
  task: Task,
  opts: { steps: number; answer?: string | null; shareScreens?: number[] },
): Trajectory {
  const steps: TrajectoryInput['steps'] = [];
  const n = opts.steps;
  for (let i = 0; i < n; i++) {
    const isDone = opts.answer != null && i === n - 1;
    const action = isDone
      ? { type: 'done' as const, text: opts.answer!, success: true }
      : { type: 'click' as const, index: i };
    const hash = opts.shareScreens?.includes(i) && i > 0 ? `img-${i - 1}` : `img-${i}`;
    steps.push({
      index: i,
      observation: {
        url: `https://shop.example/p${i}`,
        screenshot: { hash, width: 4, height: 3 },
        stepIndex: i,
      },
      output: {
        action: [isDone ? { done: { text: opts.answer!, success: true } } : { click: { index: i } }],
      },
      action,
      result: { isDone, extractedContent: isDone ? opts.answer! : null },
    });
  }
  return Trajectory.parse({
    id: 'traj_fixture',
    task,
    agentId: 'fixture',
    steps,
    finalAnswer: opts.answer ?? null,
    endReason: opts.answer != null ? 'done' : 'max_steps',
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:01:00.000Z',
  } satisfies TrajectoryInput);
}

/** A loader that returns distinct fake JPEG bytes per hash, and null for hashes in `missing`. */
export function fakeImageLoader(missing: string[] = []): (hash: string) => Promise<Buffer | null> {
  return async (hash) => (missing.includes(hash) ? null : Buffer.from(`\xff\xd8jpeg:${hash}`, 'latin1'));
}
