import type { z } from 'zod';
import type { Reflection } from '../core/reflection.ts';
import type { Trajectory } from '../core/trajectory.ts';
import type { RunStore, TrajectoryFilter, TrajectorySummary } from '../store/index.ts';

/** What the viewer reads from a run: a read-only slice of RunStore. */
export type RunReader = Pick<
  RunStore,
  | 'dir'
  | 'listTrajectorySummaries'
  | 'getTrajectory'
  | 'listReflections'
  | 'listRecords'
  | 'listMetricSeries'
  | 'listMetrics'
  | 'readManifest'
  | 'hasImage'
  | 'imagePath'
  | 'close'
>;

/**
 * One run read through several stores: a demo or ablate folder's own store first, then its
 * sub-runs (collection, rollouts, ...). Trajectories, reflections, records, metrics and images
 * are looked up in all of them, so a critical state mined from the collection finds its
 * trajectories and screenshots when the viewer opens the pipeline folder.
 */
export class MultiRunReader implements RunReader {
  constructor(private readonly stores: RunStore[]) {
    if (!stores.length) throw new Error('MultiRunReader needs at least one store');
  }

  get dir(): string {
    return this.stores[0].dir;
  }

  listTrajectorySummaries(filter: TrajectoryFilter = {}): TrajectorySummary[] {
    const seen = new Set<string>();
    return this.stores
      .flatMap((s) => s.listTrajectorySummaries(filter))
      .filter((t) => !seen.has(t.id) && seen.add(t.id));
  }

  getTrajectory(id: string): Trajectory | null {
    for (const s of this.stores) {
      const t = s.getTrajectory(id);
      if (t) return t;
    }
    return null;
  }

  listReflections(taskId?: string): Reflection[] {
    return this.stores.flatMap((s) => s.listReflections(taskId));
  }

  listRecords<T>(kind: string, schema?: z.ZodType<T>): Array<{ key: string; value: T }> {
    return this.stores.flatMap((s) => s.listRecords(kind, schema));
  }

  listMetricSeries(): string[] {
    return [...new Set(this.stores.flatMap((s) => s.listMetricSeries()))];
  }

  listMetrics(series: string): Array<{ step: number; values: Record<string, number> }> {
    return this.stores.find((s) => s.listMetricSeries().includes(series))?.listMetrics(series) ?? [];
  }

  readManifest(): ReturnType<RunStore['readManifest']> {
    return this.stores[0].readManifest();
  }

  hasImage(hash: string): boolean {
    return this.stores.some((s) => s.hasImage(hash));
  }

  imagePath(hash: string): string {
    return (this.stores.find((s) => s.hasImage(hash)) ?? this.stores[0]).imagePath(hash);
  }

  close(): void {
    for (const s of this.stores) s.close();
  }
}
