import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InputError, type Task } from '../core/index.ts';
import { findRunFolders, ImageStore, isImageHash, RunStore, type TrajectorySummary } from '../store/index.ts';
import { CriticalSource } from './critical-source.ts';
import { CurveSource } from './curve-source.ts';
import { MultiRunReader, type RunReader } from './run-reader.ts';

/** What `rmsweb view` looks at. */
export interface ViewerSources {
  /** The run folder (a run store). */
  runDir: string;
  /** Extra critical-state JSONL files (`--critical`). */
  critical?: string[];
  /** Folders holding trained checkpoints with `rl-metrics.json` / `metrics.json` (`--models`). */
  models?: string[];
}

/** One row of the tasks list: a task's attempts folded together. */
export interface TaskRow {
  taskId: string;
  site: string;
  attempts: TrajectorySummary[];
  rounds: number;
  outcome: 'solved' | 'failed' | 'unjudged';
  agents: string[];
  tags: string[];
  /** Reflections written for the task, or the most notes any attempt carried when none were stored. */
  notes: number;
}

/**
 * The viewer's read-only window on a run: the run store, plus the critical-state, curve and
 * table files around it. Reads go to the store on every request, so a run that is still being
 * written shows its latest state on reload.
 */
export class RunView {
  readonly store: RunReader;
  readonly runDir: string;
  readonly critical: CriticalSource;
  readonly curves: CurveSource;
  private readonly taskCache = new Map<string, Task>();
  private readonly imageStores: ImageStore[] = [];

  private constructor(store: RunReader, sources: ViewerSources) {
    this.store = store;
    this.runDir = store.dir;
    const models = (sources.models ?? []).map((d) => resolve(d));
    for (const d of models) {
      if (!existsSync(d) || !statSync(d).isDirectory())
        throw new InputError('models folder does not exist', { file: d });
    }
    this.critical = new CriticalSource(
      store,
      this.runDir,
      (sources.critical ?? []).map((f) => resolve(f)),
    );
    this.curves = new CurveSource(store, this.runDir, models);
  }

  /** Opens the run folder read-only; fails with an InputError naming what is missing. */
  static open(sources: ViewerSources): RunView {
    // The folder's own store first, then any sub-runs (a demo or ablate folder's collection, ...).
    const dirs = findRunFolders(sources.runDir);
    const root = RunStore.open(sources.runDir, { create: false, readonly: true });
    const stores = [root];
    let store: RunReader = root;
    try {
      for (const d of dirs)
        if (resolve(d) !== resolve(root.dir))
          stores.push(RunStore.open(d, { create: false, readonly: true }));
      store = stores.length > 1 ? new MultiRunReader(stores) : root;
      return new RunView(store, sources);
    } catch (e) {
      for (const s of stores) s.close();
      throw e;
    }
  }

  close(): void {
    this.store.close();
  }

  /** The run's display name: the manifest's, else the folder's. */
  get name(): string {
    try {
      return this.store.readManifest()?.name ?? basename(this.runDir);
    } catch {
      return basename(this.runDir);
    }
  }

  /** The file path of a screenshot, looked up in the run's image store and those beside critical files. */
  imageFile(hash: string): string | null {
    if (!isImageHash(hash)) return null;
    if (this.store.hasImage(hash)) return this.store.imagePath(hash);
    for (const root of this.critical.imageRoots()) {
      if (resolve(root) === resolve(join(this.runDir, 'images'))) continue;
      let s = this.imageStores.find((x) => x.root === root);
      if (!s) {
        s = new ImageStore(root);
        this.imageStores.push(s);
      }
      if (s.has(hash)) return s.path(hash);
    }
    return null;
  }

  /** The task of a task id, read from its first attempt (cached: tasks do not change). */
  task(taskId: string): Task | null {
    const hit = this.taskCache.get(taskId);
    if (hit) return hit;
    const first = this.store.listTrajectorySummaries({ taskId })[0];
    const traj = first ? this.store.getTrajectory(first.id) : null;
    if (!traj) return null;
    this.taskCache.set(taskId, traj.task);
    return traj.task;
  }

  /** Tasks with their attempts, in first-seen order. */
  taskRows(): TaskRow[] {
    const reflections = new Map<string, number>();
    for (const r of this.store.listReflections())
      reflections.set(r.taskId, (reflections.get(r.taskId) ?? 0) + 1);
    const byTask = new Map<string, TrajectorySummary[]>();
    for (const s of this.store.listTrajectorySummaries()) {
      const list = byTask.get(s.taskId);
      if (list) list.push(s);
      else byTask.set(s.taskId, [s]);
    }
    return [...byTask.entries()].map(([taskId, attempts]) => {
      const judged = attempts.filter((a) => a.success !== null);
      return {
        taskId,
        site: attempts[0].site,
        attempts,
        rounds: new Set(attempts.map((a) => a.round)).size,
        outcome: attempts.some((a) => a.success) ? 'solved' : judged.length ? 'failed' : 'unjudged',
        agents: [...new Set(attempts.map((a) => a.agentId))],
        tags: [...new Set(attempts.flatMap((a) => a.tags))],
        notes: reflections.get(taskId) ?? Math.max(0, ...attempts.map((a) => a.notes)),
      };
    });
  }
}
