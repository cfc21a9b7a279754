import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { describeZodIssues } from '../core/index.ts';
import { FileCache, findFiles, readJson, shortPath } from './files.ts';
import type { RunReader } from './run-reader.ts';

/** The file `rmsweb rl` writes beside a checkpoint (cli/commands/rl.ts RL_METRICS_FILE). */
export const RL_METRICS_FILE = 'rl-metrics.json';
/** The file the SFT trainer writes into a checkpoint folder (policy/sft-trainer.ts). */
export const SFT_METRICS_FILE = 'metrics.json';

export interface CurvePoint {
  step: number;
  values: Record<string, number>;
}

/** One training run's curves: a store metric series, an RL checkpoint, or an SFT checkpoint. */
export interface CurveSet {
  name: string;
  kind: 'rl' | 'sft' | 'series';
  /** Where it came from: `store series <name>` or a file path. */
  origin: string;
  points: CurvePoint[];
  /** Headline facts shown above the charts (algorithm, rollouts sampled, wall time...). */
  facts: Record<string, string | number | boolean | null>;
}

const Num = z.number().nullable();
const RlMetricsFile = z.looseObject({
  algo: z.string().optional(),
  reward: z.string().optional(),
  examples: z.number().optional(),
  rolloutsSampled: z.number().optional(),
  wallMs: z.number().optional(),
  metrics: z.array(z.looseObject({ step: z.number() })),
});
const SftMetricsFile = z.looseObject({
  epochs: z.array(z.looseObject({ epoch: z.number() })),
});

/** Numeric fields of a record, except the step counter itself. */
function numericValues(row: Record<string, unknown>, skip: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === skip) continue;
    const n = Num.safeParse(v);
    if (n.success && n.data !== null && Number.isFinite(n.data)) out[k] = n.data;
  }
  return out;
}

function fromFile(root: string, file: string): CurveSet | { error: string } {
  const raw = readJson(file);
  if ('error' in raw) return raw;
  const label = shortPath(root, dirname(file)) || basename(dirname(file));
  if (basename(file) === RL_METRICS_FILE) {
    const r = RlMetricsFile.safeParse(raw.value);
    if (!r.success) return { error: `${file}: ${describeZodIssues(r.error.issues)}` };
    const d = r.data;
    return {
      name: `${d.algo ?? 'rl'} · ${label}`,
      kind: 'rl',
      origin: file,
      points: d.metrics.map((m) => ({ step: m.step, values: numericValues(m, 'step') })),
      facts: {
        algorithm: d.algo ?? null,
        reward: d.reward ?? null,
        'critical states / examples': d.examples ?? null,
        'rollouts sampled': d.rolloutsSampled ?? null,
        'wall s': d.wallMs === undefined ? null : Math.round(d.wallMs / 100) / 10,
      },
    };
  }
  const r = SftMetricsFile.safeParse(raw.value);
  if (!r.success) return { error: `${file}: ${describeZodIssues(r.error.issues)}` };
  return {
    name: `sft · ${label}`,
    kind: 'sft',
    origin: file,
    points: r.data.epochs.map((e) => ({ step: e.epoch, values: numericValues(e, 'epoch') })),
    facts: { epochs: r.data.epochs.length },
  };
}

/**
 * Training curves: every metric series in the run store (`rl --log-run`), and every
 * `rl-metrics.json` / SFT `metrics.json` found in the run folder and the `--models` folders.
 */
export class CurveSource {
  private readonly cache = new Map<string, FileCache<CurveSet | { error: string }>>();

  constructor(
    private readonly store: RunReader,
    private readonly runDir: string,
    private readonly modelDirs: string[],
  ) {}

  load(): { sets: CurveSet[]; warnings: string[] } {
    const sets: CurveSet[] = [];
    const warnings: string[] = [];
    for (const series of this.store.listMetricSeries()) {
      const points = this.store.listMetrics(series);
      sets.push({
        name: series,
        kind: 'series',
        origin: `store series ${series}`,
        points,
        facts: { steps: points.length },
      });
    }
    const seen = new Set<string>();
    for (const root of [this.runDir, ...this.modelDirs]) {
      const files = findFiles(root, (n) => n === RL_METRICS_FILE || n === SFT_METRICS_FILE);
      for (const file of files) {
        const real = safeRealpath(file);
        if (seen.has(real)) continue;
        seen.add(real);
        let c = this.cache.get(root);
        if (!c) {
          c = new FileCache((f) => fromFile(root, f));
          this.cache.set(root, c);
        }
        const got = c.get(file);
        if ('error' in got) warnings.push(got.error);
        else sets.push(got);
      }
    }
    return { sets, warnings };
  }
}

function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** How curves are grouped into charts: the first group whose pattern matches a metric name wins. */
export const CURVE_GROUPS: Array<{ title: string; match: RegExp }> = [
  { title: 'Reward', match: /reward/i },
  { title: 'Gate pass rates', match: /gate/i },
  { title: 'Salvage share', match: /salvage_share|zero_variance/i },
  { title: 'KL', match: /(^|\/|_)kl/i },
  { title: 'Losses', match: /loss/i },
  { title: 'Accuracy', match: /accuracy/i },
];

/** Splits a set's metric names into the chart groups; names matching no group come back as `other`. */
export function groupMetrics(set: CurveSet): {
  groups: Array<{ title: string; keys: string[] }>;
  other: string[];
} {
  const keys = [...new Set(set.points.flatMap((p) => Object.keys(p.values)))].sort();
  const groups = CURVE_GROUPS.map((g) => ({ title: g.title, keys: [] as string[] }));
  const other: string[] = [];
  for (const k of keys) {
    const i = CURVE_GROUPS.findIndex((g) => g.match.test(k));
    if (i >= 0) groups[i].keys.push(k);
    else other.push(k);
  }
  return { groups: groups.filter((g) => g.keys.length), other };
}
