import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { RunStore } from '../../store/run-store.ts';
import { type EnsuredWorld, ensureWorld } from '../../world/ensure.ts';
import { openWorldRuntime, type WorldRuntime } from '../runtime.ts';
import { sampleTasks, worldTasksOf } from '../tasks-arg.ts';
import { type PipelinePreset, presetByName } from './presets.ts';
import { STAGE_PARTIAL, STAGE_RECORD, StageRunner } from './stage.ts';

/** Where each stage of a pipeline run folder keeps its output. */
export interface PipelinePaths {
  /** The pipeline's own run store: stage records, evaluation episodes, RL curves, critical states. */
  root: string;
  synthTasks: string;
  synthDropped: string;
  /** Teacher collection with reflection (a run folder `rmsweb stats|export|mine` read as is). */
  collect: string;
  /** Greedy student rollouts on train tasks. */
  rollout: string;
  exportTrl: string;
  sft: string;
  /** Relabelled student rollouts of DAgger round `round` (1-based); `suffix` names another student's. */
  dagger(round: number, suffix?: string): string;
  /** The student retrained after DAgger round `round`. */
  sftDagger(round: number, suffix?: string): string;
  critical: string;
  criticalStats: string;
  /** Checkpoint folder of an RL variant. */
  model(name: string): string;
  report: string;
}

export function pipelinePaths(out: string): PipelinePaths {
  const root = resolve(out);
  return {
    root,
    synthTasks: join(root, 'tasks', 'synth.jsonl'),
    synthDropped: join(root, 'tasks', 'synth.dropped.jsonl'),
    collect: join(root, 'collect'),
    rollout: join(root, 'rollout'),
    exportTrl: join(root, 'exports', 'trl'),
    sft: join(root, 'models', 'sft'),
    dagger: (round, suffix = '') => join(root, `dagger${round}${suffix}`),
    sftDagger: (round, suffix = '') => join(root, 'models', `sft-dagger${round}${suffix}`),
    critical: join(root, 'mined', 'critical.jsonl'),
    criticalStats: join(root, 'mined', 'critical.stats.json'),
    model: (name) => join(root, 'models', name),
    report: join(root, 'report'),
  };
}

/** Settings shared by `rmsweb demo` and `rmsweb ablate`. */
export interface PipelineSettings {
  command: 'demo' | 'ablate';
  out: string;
  preset: PipelinePreset;
  seed: number;
  worldSeed: number;
  /** World port; by default a world starts in-process on a free port. */
  port?: number;
  forceProgress?: boolean;
  quiet?: boolean;
}

/**
 * Refuses, before anything is written, an existing run folder made by another command or with
 * other settings (what `PipelineContext.checkSettings` checks once the folder is open): a refused
 * run must leave no folder behind, and opening the context creates one.
 */
export function checkOutFolder(
  settings: Pick<PipelineSettings, 'command' | 'out' | 'preset' | 'seed' | 'worldSeed'>,
): void {
  const root = resolve(settings.out);
  if (!existsSync(join(root, 'store.sqlite'))) return;
  let store: RunStore;
  try {
    store = RunStore.open(root, { create: false, readonly: true });
  } catch (e) {
    throw new InputError(`--out ${settings.out}: cannot open its run store (${(e as Error).message})`, {
      field: '--out',
      file: join(root, 'store.sqlite'),
    });
  }
  try {
    const prev = store.getRecord<{
      command: string;
      preset: PipelinePreset;
      seed: number;
      worldSeed: number;
    }>('pipeline', 'settings');
    if (prev) sameSettings(root, store, prev, settings);
  } finally {
    store.close();
  }
}

/**
 * The settings that must match on resume: all of them but the lm settings that only add rows
 * (`--lm-seeds`, `--lm-ablation`). Each added seed or ablation row is its own stages, so raising
 * them on a finished folder runs those stages and reuses the rest; lowering them leaves the extra
 * stages stored and out of the table.
 */
function withoutAddedRows<T extends { preset: PipelinePreset }>(x: T): T {
  if (!x.preset.lm) return x;
  const { seeds: _seeds, ablation: _ablation, ...lm } = x.preset.lm;
  return { ...x, preset: { ...x.preset, lm } };
}

/**
 * Settings that only later stages read, each with the prefix of those stages' names. While none of
 * those stages has begun (finished, or partly run and recorded), the setting may differ on resume:
 * a folder whose RL has not started takes the code's revised RL recipe instead of refusing the
 * stages it already finished. Once one has begun, the setting must match again.
 */
interface LateSetting {
  name: string;
  stages: string;
  pick: (p: PipelinePreset) => unknown;
  drop: (p: PipelinePreset) => PipelinePreset;
}

/** The late setting of the lm settings' field `key`, which only the stages named `stages`... read. */
function lateLmSetting(key: 'rl' | 'dagger', stages: string): LateSetting {
  return {
    name: `lm.${key}`,
    stages,
    pick: (p) => p.lm?.[key],
    drop: (p) => {
      if (!p.lm) return p;
      const { [key]: _dropped, ...lm } = p.lm;
      return { ...p, lm: lm as NonNullable<PipelinePreset['lm']> };
    },
  };
}

const LATE_SETTINGS: readonly LateSetting[] = [
  lateLmSetting('rl', 'lm-rl-'),
  // a folder made before the lm preset had DAgger rounds resumes with them while none has begun
  lateLmSetting('dagger', 'lm-dagger-'),
];

/** Whether any stage whose name starts with `prefix` finished or began in `store`. */
function stagesBegun(store: RunStore, prefix: string): boolean {
  return [STAGE_RECORD, STAGE_PARTIAL].some((kind) =>
    store.listRecords(kind).some((r) => r.key.startsWith(prefix)),
  );
}

/**
 * Refuses a folder made with other settings; returns the names of the late settings (above) that
 * differ, none of whose stages has begun.
 */
function sameSettings(
  root: string,
  store: RunStore,
  prev: { command: string; preset: PipelinePreset; seed: number; worldSeed: number },
  s: Pick<PipelineSettings, 'command' | 'preset' | 'seed' | 'worldSeed'>,
): string[] {
  const mine = { command: s.command, preset: s.preset, seed: s.seed, worldSeed: s.worldSeed };
  let [a, b] = [withoutAddedRows(prev), withoutAddedRows(mine)];
  const changed: string[] = [];
  for (const late of LATE_SETTINGS) {
    if (JSON.stringify(late.pick(a.preset)) === JSON.stringify(late.pick(b.preset))) continue;
    if (stagesBegun(store, late.stages)) continue; // then the comparison below refuses
    changed.push(late.name);
    a = { ...a, preset: late.drop(a.preset) };
    b = { ...b, preset: late.drop(b.preset) };
  }
  if (JSON.stringify(a) !== JSON.stringify(b))
    throw new InputError(
      `${root} holds a ${prev.command} run made with other settings (preset ${prev.preset.name}, seed ${prev.seed}, world seed ${prev.worldSeed}); ` +
        'rerun with those settings to resume it, or choose another --out',
      { field: '--out' },
    );
  return changed;
}

/** A pipeline run: its folder layout, store, stage runner, tasks and (lazily) a world + browser. */
export class PipelineContext {
  readonly paths: PipelinePaths;
  readonly store: RunStore;
  readonly stages: StageRunner;
  private runtime: { screenshots: boolean; rt: WorldRuntime } | null = null;
  private server: EnsuredWorld | null = null;

  constructor(
    readonly settings: PipelineSettings,
    readonly signal: AbortSignal,
  ) {
    this.paths = pipelinePaths(settings.out);
    this.store = RunStore.open(this.paths.root);
    this.stages = new StageRunner({
      store: this.store,
      signal,
      forceProgress: settings.forceProgress,
      quiet: settings.quiet,
    });
  }

  get preset(): PipelinePreset {
    return this.settings.preset;
  }

  /**
   * Refuses a folder made by another command or preset: resuming with different sizes would mix
   * two experiments in one table. The first run records its settings; later runs must match.
   */
  checkSettings(): void {
    const mine = {
      command: this.settings.command,
      preset: this.settings.preset,
      seed: this.settings.seed,
      worldSeed: this.settings.worldSeed,
    };
    const prev = this.store.getRecord<typeof mine>('pipeline', 'settings');
    if (!prev) {
      this.store.putRecord('pipeline', 'settings', mine);
      return;
    }
    const changed = sameSettings(this.paths.root, this.store, prev, this.settings);
    if (changed.length && !this.settings.quiet)
      process.stderr.write(
        `${this.paths.root}: ${changed.join(', ')} ${changed.length === 1 ? 'differs' : 'differ'} from the folder's; no stage that reads ${changed.length === 1 ? 'it' : 'them'} has begun, so this run's values are taken\n`,
      );
    // the record says what the table now covers (the seeds and rows may have been raised)
    if (JSON.stringify(prev) !== JSON.stringify(mine)) this.store.putRecord('pipeline', 'settings', mine);
  }

  /** The collection pool: a seeded, mixed-site sample of world train tasks (of the preset's sites). */
  trainTasks(): Task[] {
    return sampleTasks(
      worldTasksOf('train', this.settings.worldSeed, this.preset.sites),
      this.preset.trainTasks,
      this.settings.seed,
    );
  }

  /**
   * The validation split: `n` world train tasks (of the preset's sites) outside the collection pool,
   * for choices that must not look at test tasks. Seeded, and disjoint from the pool by construction.
   */
  valTasks(n: number): Task[] {
    const pool = new Set(this.trainTasks().map((t) => t.id));
    const rest = worldTasksOf('train', this.settings.worldSeed, this.preset.sites).filter(
      (t) => !pool.has(t.id),
    );
    return sampleTasks(rest, n, this.settings.seed);
  }

  /** Held-out world test tasks for evaluation (never seen in collection or training). */
  testTasks(): Task[] {
    return sampleTasks(
      worldTasksOf('test', this.settings.worldSeed, this.preset.sites),
      this.preset.eval.testTasks,
      this.settings.seed,
    );
  }

  /**
   * A world and browser. Collection keeps screenshots (the SFT export is multimodal); rollouts and
   * evaluation turn them off, since neither the student nor the heuristic teacher reads them.
   * One world serves every stage of an invocation; one browser runtime is open at a time, and asking
   * for the other screenshot setting replaces it.
   */
  async world(screenshots: boolean): Promise<WorldRuntime> {
    if (this.runtime?.screenshots === screenshots) return this.runtime.rt;
    await this.closeWorld();
    this.server ??= await ensureWorld({ port: this.settings.port ?? 0, seed: this.settings.worldSeed });
    // The runtime finds the world already running on that port and reuses it.
    const port = Number(new URL(this.server.origin).port);
    const rt = await openWorldRuntime({ port, seed: this.settings.worldSeed, screenshots });
    this.runtime = { screenshots, rt };
    return rt;
  }

  /** Closes the browser runtime (the world keeps serving until close()). */
  async closeWorld(): Promise<void> {
    const r = this.runtime;
    this.runtime = null;
    await r?.rt.close();
  }

  async close(): Promise<void> {
    await this.closeWorld();
    const server = this.server;
    this.server = null;
    await server?.stop();
    this.store.close();
  }
}

/** The options `rmsweb demo` and `rmsweb ablate` share, as their zod schemas parse them. */
export interface PipelineCliOptions {
  preset: string;
  out: string;
  seed: number;
  workers?: number;
  worldSeed: number;
  port?: number;
  progress: boolean;
  quiet: boolean;
}

/** The settings of a pipeline run from a command's parsed options (the preset by name, `--workers` applied). */
export function pipelineSettings(
  command: PipelineSettings['command'],
  o: PipelineCliOptions,
): PipelineSettings {
  const preset = presetByName(o.preset);
  if (o.workers) preset.workers = o.workers;
  return {
    command,
    out: o.out,
    preset,
    seed: o.seed,
    worldSeed: o.worldSeed,
    port: o.port,
    forceProgress: o.progress,
    quiet: o.quiet,
  };
}

/** A pipeline context from a command's parsed options (the preset by name, `--workers` applied). */
export function pipelineFromOptions(
  command: PipelineSettings['command'],
  o: PipelineCliOptions,
  signal: AbortSignal,
): PipelineContext {
  return new PipelineContext(pipelineSettings(command, o), signal);
}
