import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import { readJsonFile } from '../../core/json-file.ts';
import { writeFileAtomic } from '../../store/index.ts';
import type { SeedRun } from './ablation-stats.ts';
import type { RlRunResult } from './rl-stage.ts';
import type { StepAccuracies } from './step-accuracy.ts';

/**
 * The ablation's ledger: one small JSON file holding every finished (row, seed) of a table, its
 * per-task outcomes, step accuracies, RL diagnostics and a thinned RL curve, keyed to the base it
 * was measured on. The run folders behind a full-preset ablation take hours to rebuild and can be
 * lost with their machine; the ledger is small enough to commit beside the results, so a rerun of the
 * same command on a rebuilt base skips every seed it holds. A ledger is only read against the same
 * base (same student weights and mined states, by hash): mixing seeds of two bases would make one
 * table out of two experiments.
 */

/** What a base must match for its ledger's seeds to be reused. */
export interface BaseFingerprint {
  /** sha256 over the parts below. */
  hash: string;
  /** Each part's own sha256 (the student checkpoints' weights, the mined states' content). */
  parts: Record<string, string>;
}

/** One finished (row, seed): all the table, the report and the step accuracies read of it. */
export interface LedgerUnit {
  run: SeedRun;
  acc: StepAccuracies | null;
  rl?: RlRunResult;
  /** The RL run's metric series, thinned to at most CURVE_POINTS points. */
  curve?: Array<{ step: number; values: Record<string, number> }>;
  /** Wall seconds of each stage this ablation ran for the unit (reused stages are absent). */
  seconds: Record<string, number>;
  note?: string;
  commit: string | null;
  finishedAt: string;
}

/** A stage shared by several units (verification, the note-free collection, a plain SFT seed). */
export interface LedgerStage {
  seconds: number;
  result: unknown;
  commit: string | null;
  finishedAt: string;
}

export interface LedgerFile {
  format: 'rmsweb-ablation-ledger';
  version: 1;
  preset: string;
  seed: number;
  worldSeed: number;
  base: BaseFingerprint;
  units: Record<string, LedgerUnit>;
  stages: Record<string, LedgerStage>;
}

/** RL curves are kept at this many points at most (the report plots them; the table does not read them). */
export const CURVE_POINTS = 50;

const num = z.number().nullable();
const Outcome = z.object({ success: z.number(), solved: z.number(), solvedSteps: z.number() });
const SeedRunSchema = z.object({
  seed: z.number().int(),
  label: z.string(),
  pass1: z.looseObject({ mean: z.number(), perRun: z.array(z.number()) }),
  meanStepsSolved: num,
  perTask: z.record(z.string(), Outcome),
  rollouts: z.number(),
  rlSeconds: z.number(),
  trainSeconds: z.number(),
});
const Unit = z.object({
  run: SeedRunSchema,
  acc: z.object({ heldOut: num, critical: num }).nullable(),
  rl: z.looseObject({ name: z.string(), rolloutsSampled: z.number(), wallSeconds: z.number() }).optional(),
  curve: z.array(z.object({ step: z.number(), values: z.record(z.string(), z.number()) })).optional(),
  seconds: z.record(z.string(), z.number()),
  note: z.string().optional(),
  commit: z.string().nullable(),
  finishedAt: z.string(),
});
const LedgerSchema = z.object({
  format: z.literal('rmsweb-ablation-ledger'),
  version: z.literal(1),
  preset: z.string(),
  seed: z.number().int(),
  worldSeed: z.number().int(),
  base: z.object({ hash: z.string(), parts: z.record(z.string(), z.string()) }),
  units: z.record(z.string(), Unit),
  stages: z.record(
    z.string(),
    z.object({
      seconds: z.number(),
      result: z.unknown(),
      commit: z.string().nullable(),
      finishedAt: z.string(),
    }),
  ),
});

/** sha256 of a checkpoint's weights (config.json carries paths and times that differ between equal runs). */
export function checkpointDigest(dir: string): string {
  const f = join(dir, 'weights.bin');
  return existsSync(f) ? sha256(readFileSync(f)) : 'missing';
}

/**
 * sha256 of the mined states' content: task, label, both sides' step indices and actions, and the
 * comparability, sorted. Trajectory and state ids are random per run, so they are left out: two
 * runs that mined the same states from the same episodes digest the same.
 */
export function criticalDigest(file: string): string {
  if (!existsSync(file)) return 'missing';
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const s = JSON.parse(l) as {
        task: { id: string };
        label: string;
        comparability?: number;
        success: { stepIndex: number; action: unknown };
        failure: { stepIndex: number; action: unknown };
      };
      return JSON.stringify([
        s.task.id,
        s.label,
        s.success.stepIndex,
        s.success.action,
        s.failure.stepIndex,
        s.failure.action,
        s.comparability ?? null,
      ]);
    })
    .sort();
  return sha256(rows.join('\n'));
}

/** The fingerprint of a base from its parts (name -> digest), hashed in name order. */
export function fingerprint(parts: Record<string, string>): BaseFingerprint {
  const names = Object.keys(parts).sort();
  return { hash: sha256(names.map((n) => `${n}=${parts[n]}`).join('\n')), parts };
}

/** Keeps at most `max` points of a curve, evenly spaced, always the first and the last. */
export function thinCurve<T>(points: readonly T[], max = CURVE_POINTS): T[] {
  if (points.length <= max) return [...points];
  const out: T[] = [];
  for (let k = 0; k < max; k++) out.push(points[Math.round((k * (points.length - 1)) / (max - 1))]);
  return out;
}

/** A ledger file, read once, rewritten atomically after every unit or stage it gains. */
export class AblationLedger {
  private constructor(
    readonly file: string,
    private readonly data: LedgerFile,
  ) {}

  /**
   * Reads and validates `file` against this run's setup, before anything runs: null when it does
   * not exist; a file that is not a ledger, or one made with another preset, seed or world seed,
   * is refused with an input error naming it. The base is checked later, by {@link open}, once the
   * base exists to be hashed.
   */
  static check(file: string, o: { preset: string; seed: number; worldSeed: number }): LedgerFile | null {
    if (!existsSync(file)) return null;
    // The schema checks what the table reads; the rest of each record is kept as written.
    const d = readJsonFile(file, LedgerSchema, 'an ablation ledger') as unknown as LedgerFile;
    const same = (what: string, a: unknown, b: unknown) => {
      if (a !== b)
        throw new InputError(
          `the ablation ledger was measured with ${what} ${String(a)}, not ${String(b)}; rerun with that setting, or move the file away to start the table over`,
          { file },
        );
    };
    same('preset', d.preset, o.preset);
    same('seed', d.seed, o.seed);
    same('world seed', d.worldSeed, o.worldSeed);
    return d;
  }

  /** Refuses a ledger measured on another base than `base`, naming the parts that differ. */
  static checkBase(file: string, d: LedgerFile, base: BaseFingerprint): void {
    if (d.base.hash === base.hash) return;
    const differ = Object.keys({ ...d.base.parts, ...base.parts })
      .filter((k) => d.base.parts[k] !== base.parts[k])
      .sort();
    throw new InputError(
      `the ablation ledger holds ${Object.keys(d.units).length} seed(s) measured on another base (${differ.join(', ')} differ): ` +
        'its seeds cannot share a table with this one. Point --from at the demo folder it was measured on, or move the file away to start the table over',
      { file },
    );
  }

  /**
   * Opens `file` for a base, or starts it when it does not exist. A file of another base, preset,
   * seed or world seed is refused with an error naming it: nothing in it is overwritten.
   */
  static open(
    file: string,
    o: { preset: string; seed: number; worldSeed: number; base: BaseFingerprint },
  ): AblationLedger {
    const d = AblationLedger.check(file, o);
    if (!d) {
      const l = new AblationLedger(file, {
        format: 'rmsweb-ablation-ledger',
        version: 1,
        preset: o.preset,
        seed: o.seed,
        worldSeed: o.worldSeed,
        base: o.base,
        units: {},
        stages: {},
      });
      l.save();
      return l;
    }
    AblationLedger.checkBase(file, d, o.base);
    return new AblationLedger(file, d);
  }

  /** The hash of the base its seeds were measured on. */
  get baseHash(): string {
    return this.data.base.hash;
  }

  /** Seeds held, by unit label. */
  get size(): number {
    return Object.keys(this.data.units).length;
  }

  unit(label: string): LedgerUnit | null {
    return this.data.units[label] ?? null;
  }

  putUnit(label: string, u: LedgerUnit): void {
    this.data.units[label] = u;
    this.save();
  }

  stage<R>(name: string): (LedgerStage & { result: R }) | null {
    return (this.data.stages[name] as LedgerStage & { result: R }) ?? null;
  }

  putStage(name: string, s: LedgerStage): void {
    this.data.stages[name] = s;
    this.save();
  }

  /** The commits the held units were measured at, with how many units each. */
  commits(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const u of Object.values(this.data.units)) {
      const c = u.commit ?? 'unknown';
      out[c] = (out[c] ?? 0) + 1;
    }
    return out;
  }

  private save(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    // One unit or stage a line: still one JSON document, and a commit that adds a seed adds a line.
    const { units, stages, ...head } = this.data;
    const block = (o: Record<string, unknown>) =>
      Object.entries(o)
        .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
        .join(',\n');
    const headText = JSON.stringify(head, null, 2).slice(0, -2);
    writeFileAtomic(
      this.file,
      `${headText},\n"units": {\n${block(units)}\n},\n"stages": {\n${block(stages)}\n}\n}\n`,
    );
  }
}
