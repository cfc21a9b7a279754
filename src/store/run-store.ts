import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { z } from 'zod';
import {
  describeZodIssues,
  InputError,
  Reflection,
  RmswebError,
  Trajectory,
  type TrajectoryInput,
} from '../core/index.ts';
import { externalizeScreenshots } from './externalize.ts';
import { ImageStore } from './image-store.ts';
import { type RunManifest, type RunManifestInput, readManifestFile, writeManifestFile } from './manifest.ts';
import { DDL, STORE_SCHEMA_VERSION } from './schema.ts';
import {
  type SummaryRow,
  summaryFromRow,
  type TrajectoryFilter,
  type TrajectorySummary,
  trajectoryWhere,
} from './trajectory-query.ts';

export type { TrajectoryFilter, TrajectorySummary } from './trajectory-query.ts';

export interface OpenOptions {
  /** Create the folder and store when missing (default true; ignored when readonly). */
  create?: boolean;
  readonly?: boolean;
}

/** Waits this long for another process's write lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 15_000;

/**
 * A run folder: `store.sqlite` (records, WAL mode), `images/` (content-addressed screenshots),
 * `manifest.json` and `exports/`. Every write runs in an IMMEDIATE transaction, so several
 * RunStore instances (threads or processes) can write one run at once; reopening a folder
 * resumes it, and saves keyed by id or episode key are idempotent.
 */
export class RunStore {
  readonly dir: string;
  readonly readonly: boolean;
  private readonly db: Database.Database;
  private readonly images: ImageStore;
  private closed = false;

  private constructor(dir: string, db: Database.Database, readonly: boolean) {
    this.dir = dir;
    this.db = db;
    this.readonly = readonly;
    this.images = new ImageStore(join(dir, 'images'));
  }

  /** Opens (by default creating) the run folder `dir`. */
  static open(dir: string, opts: OpenOptions = {}): RunStore {
    const abs = resolve(dir);
    const readonly = opts.readonly ?? false;
    const create = (opts.create ?? true) && !readonly;
    if (!existsSync(abs)) {
      if (!create) throw new InputError(`run folder ${dir} does not exist`, { file: dir });
      mkdirSync(abs, { recursive: true });
    } else if (!statSync(abs).isDirectory()) {
      throw new InputError(`run folder ${dir} is not a directory`, { file: dir });
    }
    const dbPath = join(abs, 'store.sqlite');
    if (!create && !existsSync(dbPath)) {
      throw new InputError(`${dir} is not a run folder (no store.sqlite)`, { file: dir });
    }
    if (!readonly) {
      mkdirSync(join(abs, 'images'), { recursive: true });
      mkdirSync(join(abs, 'exports'), { recursive: true });
    }
    const db = new Database(dbPath, { readonly, fileMustExist: !create });
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      if (!readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.transaction(() => {
          db.exec(DDL);
          db.prepare('INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)').run(
            'schemaVersion',
            String(STORE_SCHEMA_VERSION),
          );
        }).immediate();
      }
      const row = db.prepare("SELECT value FROM meta WHERE key = 'schemaVersion'").get() as
        | { value: string }
        | undefined;
      const version = Number(row?.value ?? NaN);
      if (version > STORE_SCHEMA_VERSION) {
        throw new InputError(
          `run store ${dbPath} has schema version ${version}, newer than this rmsweb understands (${STORE_SCHEMA_VERSION})`,
          { file: dbPath },
        );
      }
    } catch (e) {
      db.close();
      if (RmswebError.isInstance(e)) throw e;
      throw new InputError(`cannot open run store: ${(e as Error).message}`, { file: dbPath }, e);
    }
    return new RunStore(abs, db, readonly);
  }

  /** Path of the SQLite file. */
  get dbPath(): string {
    return join(this.dir, 'store.sqlite');
  }

  /** Folder for this run's exports. */
  get exportsDir(): string {
    return join(this.dir, 'exports');
  }

  get manifestPath(): string {
    return join(this.dir, 'manifest.json');
  }

  /** Runs `fn` in one IMMEDIATE transaction (a savepoint when nested). */
  transaction<T>(fn: () => T): T {
    this.assertWritable();
    return this.db.transaction(fn).immediate();
  }

  // ---------------------------------------------------------------- manifest

  writeManifest(m: RunManifestInput): void {
    this.assertWritable();
    writeManifestFile(this.manifestPath, m);
  }

  readManifest(): RunManifest | null {
    return readManifestFile(this.manifestPath);
  }

  // ---------------------------------------------------------------- images

  /** Stores image bytes once by content; returns their sha256 hex. */
  putImage(bytes: Uint8Array): string {
    this.assertWritable();
    return this.images.put(bytes);
  }

  imagePath(hash: string): string {
    return this.images.path(hash);
  }

  hasImage(hash: string): boolean {
    return this.images.has(hash);
  }

  readImage(hash: string): Buffer {
    return this.images.read(hash);
  }

  // ---------------------------------------------------------------- trajectories

  /**
   * Saves a trajectory. Screenshot payloads (`observation.screenshot.data`) go to the image store
   * and only their hash is kept. Saving the same id again replaces the body in place (the
   * insertion order is kept); a save whose `episodeKey` is already present is a no-op, which is
   * how a resumed collection skips episodes it already finished. Returns whether it wrote.
   */
  saveTrajectory(t: TrajectoryInput | Trajectory, opts: { episodeKey?: string } = {}): boolean {
    this.assertWritable();
    const { episodeKey } = opts;
    if (episodeKey !== undefined && this.hasEpisode(episodeKey)) return false;
    const parsed = Trajectory.safeParse(t);
    if (!parsed.success) {
      const id = (t as { id?: unknown })?.id;
      throw new InputError(`invalid trajectory ${String(id)}: ${describeZodIssues(parsed.error.issues)}`, {
        field: parsed.error.issues[0]?.path.join('.'),
      });
    }
    const traj = externalizeScreenshots(parsed.data, (b) => this.images.put(b));
    const v = traj.verdict;
    const row = {
      id: traj.id,
      episode_key: episodeKey ?? null,
      task_id: traj.task.id,
      site: traj.task.site,
      agent_id: traj.agentId,
      round: traj.round,
      success: v ? (v.success ? 1 : 0) : null,
      score: v ? v.score : null,
      steps: traj.steps.length,
      tags: JSON.stringify(traj.tags),
      notes: traj.notes.length,
      saved_at: new Date().toISOString(),
      body: JSON.stringify(traj),
    };
    return this.transaction(() => {
      if (episodeKey !== undefined && this.hasEpisode(episodeKey)) return false;
      const existing = this.db.prepare('SELECT seq FROM trajectories WHERE id = ?').get(row.id);
      if (existing) {
        this.db
          .prepare(
            `UPDATE trajectories SET episode_key = COALESCE(@episode_key, episode_key), task_id = @task_id, site = @site,
             agent_id = @agent_id, round = @round, success = @success, score = @score, steps = @steps, tags = @tags,
             notes = @notes, saved_at = @saved_at, body = @body WHERE id = @id`,
          )
          .run(row);
      } else {
        this.db
          .prepare(
            `INSERT INTO trajectories (id, episode_key, task_id, site, agent_id, round, success, score, steps, tags, notes, saved_at, body)
             VALUES (@id, @episode_key, @task_id, @site, @agent_id, @round, @success, @score, @steps, @tags, @notes, @saved_at, @body)`,
          )
          .run(row);
      }
      return true;
    });
  }

  getTrajectory(id: string): Trajectory | null {
    const row = this.db.prepare('SELECT id, body FROM trajectories WHERE id = ?').get(id) as
      | { id: string; body: string }
      | undefined;
    return row ? this.parseBody(Trajectory, 'trajectory', row.id, row.body) : null;
  }

  /** Trajectories matching `filter`, in insertion order, validated against the core schema. */
  listTrajectories(filter: TrajectoryFilter = {}): Trajectory[] {
    const { where, params } = trajectoryWhere(filter);
    const rows = this.db
      .prepare(`SELECT id, body FROM trajectories t ${where} ORDER BY seq`)
      .all(params) as Array<{
      id: string;
      body: string;
    }>;
    return rows.map((r) => this.parseBody(Trajectory, 'trajectory', r.id, r.body));
  }

  /** Summaries of matching trajectories, in insertion order, without parsing bodies. */
  listTrajectorySummaries(filter: TrajectoryFilter = {}): TrajectorySummary[] {
    const { where, params } = trajectoryWhere(filter);
    const rows = this.db
      .prepare(
        `SELECT id, task_id, site, agent_id, round, success, score, steps, tags, notes FROM trajectories t ${where} ORDER BY seq`,
      )
      .all(params) as SummaryRow[];
    return rows.map(summaryFromRow);
  }

  countTrajectories(filter: TrajectoryFilter = {}): number {
    const { where, params } = trajectoryWhere(filter);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM trajectories t ${where}`).get(params) as { n: number })
      .n;
  }

  /** Whether an episode with this key was already saved (resume checks this before running it). */
  hasEpisode(episodeKey: string): boolean {
    return this.db.prepare('SELECT 1 FROM trajectories WHERE episode_key = ?').get(episodeKey) !== undefined;
  }

  // ---------------------------------------------------------------- reflections

  /** Saves a reflection; saving the same id again replaces it in place. */
  saveReflection(r: z.input<typeof Reflection> | Reflection): void {
    this.assertWritable();
    const parsed = Reflection.safeParse(r);
    if (!parsed.success) {
      throw new InputError(
        `invalid reflection ${String((r as { id?: unknown })?.id)}: ${describeZodIssues(parsed.error.issues)}`,
        {
          field: parsed.error.issues[0]?.path.join('.'),
        },
      );
    }
    const ref = parsed.data;
    this.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO reflections (id, task_id, body) VALUES (?, ?, ?)
           ON CONFLICT(id) DO UPDATE SET task_id = excluded.task_id, body = excluded.body`,
        )
        .run(ref.id, ref.taskId, JSON.stringify(ref));
    });
  }

  /** Reflections (all, or of one task) in insertion order. */
  listReflections(taskId?: string): Reflection[] {
    const rows = (
      taskId === undefined
        ? this.db.prepare('SELECT id, body FROM reflections ORDER BY seq').all()
        : this.db.prepare('SELECT id, body FROM reflections WHERE task_id = ? ORDER BY seq').all(taskId)
    ) as Array<{ id: string; body: string }>;
    return rows.map((r) => this.parseBody(Reflection, 'reflection', r.id, r.body));
  }

  // ---------------------------------------------------------------- generic records

  /**
   * Upserts a JSON record under (kind, key): critical states, checkpoints' metadata, eval results,
   * stage progress. Screenshot payloads inside `value` are moved to the image store like a
   * trajectory's. A replaced record keeps its place in `listRecords` order.
   */
  putRecord(kind: string, key: string, value: unknown): void {
    this.assertWritable();
    const json = JSON.stringify(externalizeScreenshots(value, (b) => this.images.put(b)));
    if (json === undefined)
      throw new InputError(`record ${kind}/${key}: value is not JSON-serializable`, { field: 'value' });
    this.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO records (kind, key, value, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(kind, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        )
        .run(kind, key, json, new Date().toISOString());
    });
  }

  /** A record, or null; with `schema` the value is validated (error names kind/key). */
  getRecord<T>(kind: string, key: string, schema?: z.ZodType<T>): T | null {
    const row = this.db.prepare('SELECT value FROM records WHERE kind = ? AND key = ?').get(kind, key) as
      | { value: string }
      | undefined;
    return row ? this.parseBody(schema, kind, key, row.value) : null;
  }

  /** All records of a kind in insertion order; with `schema` each value is validated. */
  listRecords<T>(kind: string, schema?: z.ZodType<T>): Array<{ key: string; value: T }> {
    const rows = this.db
      .prepare('SELECT key, value FROM records WHERE kind = ? ORDER BY seq')
      .all(kind) as Array<{
      key: string;
      value: string;
    }>;
    return rows.map((r) => ({ key: r.key, value: this.parseBody(schema, kind, r.key, r.value) }));
  }

  deleteRecord(kind: string, key: string): boolean {
    this.assertWritable();
    return this.transaction(
      () => this.db.prepare('DELETE FROM records WHERE kind = ? AND key = ?').run(kind, key).changes > 0,
    );
  }

  // ---------------------------------------------------------------- metrics

  /**
   * Logs values of a metric series at a step. Logging a step again replaces it, so a resumed
   * training run that repeats steps does not duplicate points.
   */
  appendMetric(series: string, step: number, values: Record<string, number>): void {
    this.assertWritable();
    if (!Number.isFinite(step))
      throw new InputError(`metric ${series}: step must be a finite number`, { field: 'step' });
    for (const [k, v] of Object.entries(values)) {
      if (typeof v !== 'number' || Number.isNaN(v)) {
        throw new InputError(`metric ${series} at step ${step}: ${k} is not a number`, { field: k });
      }
    }
    this.transaction(() => {
      this.db
        .prepare(
          'INSERT INTO metrics (series, step, value) VALUES (?, ?, ?) ON CONFLICT(series, step) DO UPDATE SET value = excluded.value',
        )
        .run(series, step, JSON.stringify(values));
    });
  }

  /** Points of a series, ordered by step. */
  listMetrics(series: string): Array<{ step: number; values: Record<string, number> }> {
    const rows = this.db
      .prepare('SELECT step, value FROM metrics WHERE series = ? ORDER BY step')
      .all(series) as Array<{
      step: number;
      value: string;
    }>;
    return rows.map((r) => ({ step: r.step, values: JSON.parse(r.value) as Record<string, number> }));
  }

  /** Names of all metric series. */
  listMetricSeries(): string[] {
    return (
      this.db.prepare('SELECT DISTINCT series FROM metrics ORDER BY series').all() as Array<{
        series: string;
      }>
    ).map((r) => r.series);
  }

  /**
   * Moves the write-ahead log into the database file and truncates it, so that `store.sqlite`
   * alone holds the whole store (to copy it as a file).
   */
  checkpoint(): void {
    this.assertWritable();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Closes the database; further calls fail. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  // ---------------------------------------------------------------- internals

  private assertWritable(): void {
    if (this.readonly) {
      throw new RmswebError(`run store ${this.dir} was opened read-only`, {
        code: 'READONLY_STORE',
        details: { dir: this.dir },
      });
    }
  }

  private parseBody<T>(schema: z.ZodType<T> | undefined, what: string, id: string, body: string): T {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch (e) {
      throw new InputError(
        `corrupt ${what} record ${id}: not valid JSON (${(e as Error).message})`,
        { file: this.dbPath },
        e,
      );
    }
    if (!schema) return raw as T;
    const r = schema.safeParse(raw);
    if (!r.success) {
      throw new InputError(`corrupt ${what} record ${id}: ${describeZodIssues(r.error.issues)}`, {
        file: this.dbPath,
        field: r.error.issues[0]?.path.join('.'),
      });
    }
    return r.data;
  }
}
