import { RunStore } from '../store/run-store.ts';

/**
 * Per task of a collection run, the notes of the attempt that solved it (the latest round that
 * succeeded): with them the expert is the teacher configuration verified to solve that task.
 */
export function solvingNotes(runDir: string): Map<string, string[]> {
  const store = RunStore.open(runDir, { create: false, readonly: true });
  try {
    const best = new Map<string, { round: number; id: string; notes: number }>();
    for (const t of store.listTrajectorySummaries({ success: true })) {
      const cur = best.get(t.taskId);
      if (!cur || t.round > cur.round) best.set(t.taskId, { round: t.round, id: t.id, notes: t.notes });
    }
    // Only the attempts that had notes need their (large) bodies read.
    return new Map(
      [...best].map(([task, b]) => [task, b.notes ? (store.getTrajectory(b.id)?.notes ?? []) : []]),
    );
  } finally {
    store.close();
  }
}
