import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import { Trajectory } from '../../core/trajectory.ts';
import { evalTag } from '../../eval/run-eval.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { RunStore } from '../../store/run-store.ts';
import { FULL_CORPUS_RL, unitLabel } from './ablation-plan.ts';
import { type Base, baseRunFolders } from './base-stages.ts';
import { pipelinePaths } from './context.ts';
import { STAGE_RECORD } from './stage.ts';
import { STAGES, type StageDef } from './stage-results.ts';

/**
 * The part of an ablation's base that its unfinished seeds still read, once the stages that read
 * the base's run stores have run: the student checkpoints, the mined and verified states, the
 * plain SFT retrains, the teacher's held-out evaluation episodes (the step probes) and the stage
 * records the table quotes. A few MB, gzipped, written once outside the repo (`snapshotLocation`:
 * binaries stay out of git, the ledger beside the results is the part to commit): when the demo and
 * ablation folders are lost with their machine, `restoreSnapshot` lays them out again, and the
 * ablation resumes from the ledger on exactly the base it was measured on. What it does not hold
 * (the collection, rollouts and DAgger rounds, hundreds of MB) no unfinished seed reads by then.
 *
 * Before those stages, the ablation writes a larger snapshot of phase `stores`: the same base
 * files and records plus the base's run stores themselves (their `store.sqlite` files, without the
 * screenshots, which no ablation stage reads), so that a machine lost during the first hours of
 * the ablation, before the small snapshot exists, loses only the ablation's stages and not the
 * base. The `complete` snapshot replaces it.
 */

/** Which run folder a snapshotted file or record belongs to. */
export type SnapshotRoot = 'base' | 'ablate';

const SnapshotManifest = z.object({
  format: z.literal('rmsweb-ablation-base'),
  version: z.literal(1),
  /** The ledger's base hash: a snapshot restores only the base its ledger was measured on. */
  base: z.string(),
  /** The run folders' absolute paths when the snapshot was taken (records name files under them). */
  roots: z.object({ base: z.string(), ablate: z.string() }),
  records: z.array(
    z.object({ root: z.enum(['base', 'ablate']), kind: z.string(), key: z.string(), value: z.unknown() }),
  ),
  files: z.array(
    z.object({
      root: z.enum(['base', 'ablate']),
      path: z.string(),
      sha256: z.string(),
      bytes: z.number().int().nonnegative(),
    }),
  ),
  /** Metric series kept (RL curves), with their points. */
  metrics: z
    .array(
      z.object({
        root: z.enum(['base', 'ablate']),
        series: z.string(),
        points: z.array(z.object({ step: z.number(), values: z.record(z.string(), z.number()) })),
      }),
    )
    .default([]),
  /** Trajectories kept (in trajectories.jsonl.gz) and the tag that selected them. */
  trajectories: z.object({ root: z.enum(['base', 'ablate']), tag: z.string(), count: z.number().int() }),
  /**
   * `stores`: taken before the stages that read the base's run stores, so it holds those stores;
   * `complete`: taken after them (snapshots from before phases existed are complete).
   */
  phase: z.enum(['stores', 'complete']).default('complete'),
  commit: z.string().nullable(),
  createdAt: z.string(),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;

export interface SnapshotSpec {
  base: string;
  roots: Record<SnapshotRoot, string>;
  stores: Record<SnapshotRoot, RunStore>;
  /** Record keys to keep: `kind/key` patterns, a trailing '*' matches a prefix. */
  records: Record<SnapshotRoot, string[]>;
  /** Files or folders to keep, relative to their root. */
  files: Record<SnapshotRoot, string[]>;
  /** Metric series to keep (RL curves of the runs kept). */
  metrics?: Record<SnapshotRoot, string[]>;
  /** Trajectories to keep: those of `root` with this tag (and success, round 0 when set). */
  trajectories: { root: SnapshotRoot; tag: string; filter?: (t: Trajectory) => boolean };
  /** Default `complete`. */
  phase?: SnapshotManifest['phase'];
  commit: string | null;
}

// Gzipped: the records the table quotes make the manifest ~9 MB of JSON, committed once a base.
const MANIFEST = 'manifest.json.gz';
// Snapshots written before the manifest was gzipped: still read.
const MANIFEST_PLAIN = 'manifest.json';
const TRAJECTORIES = 'trajectories.jsonl.gz';

function filesUnder(root: string, rel: string): string[] {
  const p = join(root, rel);
  if (!existsSync(p)) return [];
  if (!statSync(p).isDirectory()) return [rel];
  return readdirSync(p)
    .sort()
    .flatMap((n) => filesUnder(root, join(rel, n)));
}

const matches = (patterns: string[], id: string) =>
  patterns.some((p) => (p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : id === p));

/** Whether `dir` holds a snapshot (its manifest). */
export function hasSnapshot(dir: string): boolean {
  return existsSync(join(dir, MANIFEST)) || existsSync(join(dir, MANIFEST_PLAIN));
}

/**
 * Writes the snapshot into `dir` (files gzipped under files/<root>/, then the manifest last, so a
 * snapshot cut short has no manifest and is written again). A snapshot already in `dir` (the
 * `stores` phase) is replaced: its manifest goes first, so a replacement cut short is written again
 * too. Returns the manifest.
 */
export function writeSnapshot(dir: string, spec: SnapshotSpec): SnapshotManifest {
  for (const f of [MANIFEST, MANIFEST_PLAIN, 'files', TRAJECTORIES])
    rmSync(join(dir, f), { recursive: true, force: true });
  const records: SnapshotManifest['records'] = [];
  for (const root of ['base', 'ablate'] as const) {
    const store = spec.stores[root];
    for (const kind of new Set(spec.records[root].map((p) => p.split('/')[0])))
      for (const r of store.listRecords<unknown>(kind))
        if (matches(spec.records[root], `${kind}/${r.key}`))
          records.push({ root, kind, key: r.key, value: r.value });
  }
  const files: SnapshotManifest['files'] = [];
  for (const root of ['base', 'ablate'] as const)
    for (const rel of spec.files[root].flatMap((f) => filesUnder(spec.roots[root], f))) {
      const bytes = readFileSync(join(spec.roots[root], rel));
      const out = join(dir, 'files', root, `${rel}.gz`);
      mkdirSync(dirname(out), { recursive: true });
      writeFileAtomic(out, gzipSync(bytes, { level: 9 }));
      files.push({ root, path: rel, sha256: sha256(bytes), bytes: bytes.length });
    }
  const metrics: SnapshotManifest['metrics'] = [];
  for (const root of ['base', 'ablate'] as const)
    for (const series of spec.metrics?.[root] ?? [])
      metrics.push({ root, series, points: spec.stores[root].listMetrics(series) });
  const t = spec.trajectories;
  const trajs = spec.stores[t.root].listTrajectories({ tag: t.tag }).filter((x) => t.filter?.(x) ?? true);
  writeFileAtomic(
    join(dir, TRAJECTORIES),
    gzipSync(trajs.map((x) => JSON.stringify(x)).join('\n'), { level: 9 }),
  );
  const manifest: SnapshotManifest = {
    format: 'rmsweb-ablation-base',
    version: 1,
    base: spec.base,
    roots: spec.roots,
    records,
    files,
    metrics,
    trajectories: { root: t.root, tag: t.tag, count: trajs.length },
    phase: spec.phase ?? 'complete',
    commit: spec.commit,
    createdAt: new Date().toISOString(),
  };
  writeFileAtomic(join(dir, MANIFEST), gzipSync(`${JSON.stringify(manifest, null, 1)}\n`, { level: 9 }));
  return manifest;
}

/** Reads and validates a snapshot's manifest; errors name the file and field. */
export function readSnapshot(dir: string): SnapshotManifest {
  const gz = existsSync(join(dir, MANIFEST));
  const file = join(dir, gz ? MANIFEST : MANIFEST_PLAIN);
  let raw: unknown;
  try {
    const bytes = readFileSync(file);
    raw = JSON.parse((gz ? gunzipSync(bytes) : bytes).toString('utf8'));
  } catch (e) {
    throw new InputError(`cannot read a base snapshot: ${(e as Error).message}`, { file });
  }
  const parsed = SnapshotManifest.safeParse(raw);
  if (!parsed.success)
    throw new InputError(`not a base snapshot: ${describeZodIssues(parsed.error.issues)}`, { file });
  return parsed.data;
}

/**
 * Lays a snapshot out into run folders at `roots` (which may differ from where it was taken:
 * paths in records are rewritten to them). Each file is checked against its sha256. Records and
 * files already present are left as they are: restoring never overwrites a run.
 */
export function restoreSnapshot(
  dir: string,
  roots: Record<SnapshotRoot, string>,
  stores: Record<SnapshotRoot, RunStore>,
): { files: number; records: number; trajectories: number } {
  const m = readSnapshot(dir);
  const rewrite = (v: unknown): unknown =>
    JSON.parse(
      JSON.stringify(v)
        .replaceAll(
          JSON.stringify(`${m.roots.ablate}/`).slice(1, -1),
          JSON.stringify(`${roots.ablate}/`).slice(1, -1),
        )
        .replaceAll(
          JSON.stringify(`${m.roots.base}/`).slice(1, -1),
          JSON.stringify(`${roots.base}/`).slice(1, -1),
        ),
    );
  let files = 0;
  for (const f of m.files) {
    const dest = join(roots[f.root], f.path);
    if (existsSync(dest)) continue;
    const src = join(dir, 'files', f.root, `${f.path}.gz`);
    if (!existsSync(src))
      throw new InputError(`the base snapshot lacks ${relative(dir, src)}`, { file: src });
    let bytes: Buffer;
    try {
      bytes = gunzipSync(readFileSync(src));
    } catch (e) {
      throw new InputError(`the base snapshot's ${f.path} cannot be read: ${(e as Error).message}`, {
        file: src,
      });
    }
    if (sha256(bytes) !== f.sha256)
      throw new InputError(`the base snapshot's ${f.path} does not match its sha256`, { file: src });
    mkdirSync(dirname(dest), { recursive: true });
    writeFileAtomic(dest, bytes);
    files++;
  }
  let records = 0;
  for (const r of m.records) {
    const store = stores[r.root];
    if (store.getRecord(r.kind, r.key) !== null) continue;
    store.putRecord(r.kind, r.key, rewrite(r.value));
    records++;
  }
  for (const x of m.metrics)
    if (stores[x.root].listMetrics(x.series).length === 0)
      for (const p of x.points) stores[x.root].appendMetric(x.series, p.step, p.values);
  let trajectories = 0;
  const store = stores[m.trajectories.root];
  if (store.countTrajectories({ tag: m.trajectories.tag }) === 0) {
    const text = gunzipSync(readFileSync(join(dir, TRAJECTORIES))).toString('utf8');
    for (const line of text.split('\n').filter((l) => l.trim())) {
      store.saveTrajectory(Trajectory.parse(JSON.parse(line)));
      trajectories++;
    }
  }
  return { files, records, trajectories };
}

/** The stage-record pattern of a stage name (for SnapshotSpec.records). */
export const stagePattern = (name: string) => `${STAGE_RECORD}/${name}`;

/**
 * The record pattern of a defined stage: the stage itself, or for a family the member `member`
 * (a trailing '*' keeps every member starting with it).
 */
export function stageRecords(def: StageDef<unknown>, member = ''): string {
  return stagePattern(member.endsWith('*') ? `${def.key(member.slice(0, -1))}*` : def.key(member));
}

/** What an ablation's snapshot is taken of. */
export interface AblationSnapshot {
  /** The snapshot folder. */
  dir: string;
  /** The ledger's base hash. */
  baseHash: string;
  base: Base;
  /** The base's run store (the `--from` folder's, or the ablation's own). */
  baseStore: RunStore;
  ablate: { root: string; store: RunStore };
  /** The checkpoint folder RL starts from. */
  startStudent: string;
  seeds: number[];
  commit: string | null;
  log(line: string): void;
}

/**
 * Writes an ablation's base snapshot. `stores` (before the stages that read the base's run
 * stores) also keeps those stores; `complete` (after them) keeps what they made instead: the
 * verified states, the plain SFT retrains and the full-corpus RL runs, with their records.
 */
export function takeBaseSnapshot(phase: 'stores' | 'complete', o: AblationSnapshot): SnapshotManifest {
  const { base } = o;
  const first = o.seeds[0]!;
  const fullLabel = (seed: number) => unitLabel(FULL_CORPUS_RL.name, seed, first);
  const runStores = baseRunFolders(base).filter((d) => existsSync(join(d, 'store.sqlite')));
  if (phase === 'stores')
    for (const d of runStores) {
      // The write-ahead log of a store left open by a killed run must be in the file copied.
      const st = RunStore.open(d, { create: false });
      try {
        st.checkpoint();
      } finally {
        st.close();
      }
    }
  const complete = phase === 'complete';
  const m = writeSnapshot(o.dir, {
    base: o.baseHash,
    phase,
    roots: { base: base.paths.root, ablate: o.ablate.root },
    stores: { base: o.baseStore, ablate: o.ablate.store },
    records: {
      base: [
        'pipeline/settings',
        stageRecords(STAGES.collect),
        stageRecords(STAGES.trainSft),
        stageRecords(STAGES.trainSftOf, 'dagger*'),
        stageRecords(STAGES.selectStudent),
        stageRecords(STAGES.mine),
        stageRecords(STAGES.eval, 'teacher'),
      ],
      ablate: complete
        ? [
            stageRecords(STAGES.verifyCritical),
            stageRecords(STAGES.trainSftOf, 'seed*'),
            stageRecords(STAGES.rl, `${FULL_CORPUS_RL.name}*`),
          ]
        : [],
    },
    metrics: { base: [], ablate: complete ? o.seeds.map((x) => `rl/${fullLabel(x)}`) : [] },
    files: {
      // The start student is the plain SFT one when the validation split chose it: once is enough.
      base: [
        ...new Set([relative(base.paths.root, o.startStudent), relative(base.paths.root, base.paths.sft)]),
        relative(base.paths.root, base.paths.critical),
        ...(complete ? [] : runStores.map((d) => relative(base.paths.root, join(d, 'store.sqlite')))),
      ],
      ablate: complete
        ? [
            'verified/critical.jsonl',
            ...o.seeds.filter((x) => x !== base.seed).map((x) => `models/sft-seed${x}`),
            ...o.seeds.map((x) => `models/${fullLabel(x)}`),
          ]
        : [],
    },
    trajectories: {
      root: 'base',
      tag: evalTag('teacher'),
      filter: (t) => t.round === 0 && t.verdict?.success === true,
    },
    commit: o.commit,
  });
  const mb = m.files.reduce((a, f) => a + f.bytes, 0) / 1e6;
  o.log(
    complete
      ? `[snapshot] ${o.dir}: ${m.files.length} files (${mb.toFixed(1)} MB before gzip), ${m.records.length} records, ${m.trajectories.count} teacher episodes`
      : `[snapshot] ${o.dir}: the base with its ${runStores.length} run stores (${mb.toFixed(1)} MB before gzip), kept until the stages that read them have run`,
  );
  return m;
}

/**
 * Lays a snapshot out when the `--from` demo folder is gone (with its machine): the base files and
 * records into `fromDir`, the ablation's own into its run folder. Returns what it restored.
 */
export function restoreBase(
  dir: string,
  fromDir: string,
  ablate: { root: string; store: RunStore },
): { files: number; records: number; trajectories: number } {
  const paths = pipelinePaths(fromDir);
  mkdirSync(paths.root, { recursive: true });
  const bs = RunStore.open(paths.root);
  try {
    return restoreSnapshot(
      dir,
      { base: paths.root, ablate: ablate.root },
      { base: bs, ablate: ablate.store },
    );
  } finally {
    bs.close();
  }
}

/**
 * Where an ablation's snapshot lives. `--snapshot DIR` when given. Else beside the ledger
 * (`ablation-<preset>.base/`) when the ledger is outside any git work tree: a folder of tens of MB
 * of gzipped checkpoints and stores does not belong in git. Else (a ledger in the repo, e.g.
 * `--results results/`) in the user's data folder, `$XDG_CACHE_HOME/rmsweb/snapshots/` (default
 * `~/.cache/rmsweb/snapshots/`), under `<preset>-<base hash>`: the hash is the ledger's, so a
 * snapshot is found again by the base it holds, whatever folders the runs used.
 */
export function snapshotLocation(o: {
  snapshot?: string;
  ledgerFile: string;
  preset: string;
  baseHash: string;
  inRepo: (dir: string) => boolean;
}): string {
  if (o.snapshot) return resolve(o.snapshot);
  if (!o.inRepo(dirname(resolve(o.ledgerFile))))
    return resolve(`${o.ledgerFile.replace(/\.ledger\.json$|\.json$/, '')}.base`);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'rmsweb', 'snapshots', `${o.preset}-${o.baseHash.slice(0, 16)}`);
}
