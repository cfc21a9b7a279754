import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_PROMPT_TOKENS, LM_PROMPT_VERSION } from '../agent/lm-prompt.ts';
import { hasExpertLabel, InputError } from '../core/index.ts';
import { RunStore, type TrajectoryFilter, writeFileAtomic } from '../store/index.ts';
import { JsonlWriter } from './jsonl-writer.ts';
import { EXPORT_PROMPT_VERSION, IMAGE_SLOT } from './prompt.ts';
import { flattenTrajectory, reflectionNotes, type SftExample, storeTrajectories } from './sft-flatten.ts';
import {
  LLAMAFACTORY_DATASET_NAME,
  llamafactoryDatasetInfo,
  SFT_FILE,
  SFT_FORMATS,
  SFT_RENDERERS,
  type SftFormat,
} from './sft-formats.ts';

export interface ExportSftOptions {
  /** Run folders to read, in order; a trajectory id seen in an earlier run is not exported twice. */
  runs: string[];
  format: SftFormat;
  /** Output folder: receives train.jsonl, images/, export.json (and dataset_info.json). */
  out: string;
  /**
   * How image paths are written. Default: relative to `out` for llamafactory (it resolves them
   * against its dataset_dir), absolute for trl and swift. OpenAI always gets data URLs.
   */
  imagePaths?: 'relative' | 'absolute';
  /** The compact layout's budget for format `lm` (estimated tokens of the rendered step). */
  promptTokens?: number;
  /**
   * DAgger rows instead of the successes: every step of the runs' relabelled rollouts (`rmsweb
   * rollout --relabel`) that holds an expert's label, with that label as the target; the expert's
   * give-ups are left out. Format `lm` only.
   */
  relabeled?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface ExportSftSummary {
  format: SftFormat;
  out: string;
  file: string;
  runs: string[];
  trajectories: number;
  examples: number;
  images: number;
  /** Steps dropped because note text survived scrubbing (see note-scrub.ts). */
  droppedNoteLeak: number;
  /** Relabelled steps whose expert label was to give up, left out (`relabeled` only). */
  droppedGiveUp: number;
  /** Steps exported without their screenshot because the run store lacked the image file. */
  missingImages: number;
  /** The rows are relabelled rollouts' states with the expert's actions (`relabeled`). */
  relabeled: boolean;
}

export function parseSftFormat(s: string): SftFormat {
  if (!(SFT_FORMATS as readonly string[]).includes(s)) {
    throw new InputError(`unknown SFT format "${s}"; expected one of ${SFT_FORMATS.join(', ')}`, {
      field: 'format',
    });
  }
  return s as SftFormat;
}

/** Opens run folders read-only, closing those already open if one fails. */
export function openRuns(runs: string[]): RunStore[] {
  if (runs.length === 0) throw new InputError('at least one --run folder is required', { field: 'run' });
  const stores: RunStore[] = [];
  try {
    for (const r of runs) stores.push(RunStore.open(r, { readonly: true }));
  } catch (e) {
    for (const s of stores) s.close();
    throw e;
  }
  return stores;
}

/**
 * Flattens the verified successes of the given runs into one supervised example per step and
 * writes them in `format`. Notes are stripped by the rule in note-scrub.ts.
 */
export function exportSft(opts: ExportSftOptions): ExportSftSummary {
  const format = parseSftFormat(opts.format);
  if (opts.relabeled && format !== 'lm')
    throw new InputError(
      `--relabeled needs --format lm: a relabelled step's target is the expert's action alone, while the ${format} format's target is the agent's whole output (thinking, memory, goal), which the expert never wrote`,
      { field: '--relabeled' },
    );
  const out = resolve(opts.out);
  const imagePaths = opts.imagePaths ?? (format === 'llamafactory' ? 'relative' : 'absolute');
  const stores = openRuns(opts.runs);
  mkdirSync(out, { recursive: true });
  const imagesDir = join(out, 'images');
  if (format !== 'openai' && format !== 'lm') mkdirSync(imagesDir, { recursive: true });
  const layout =
    format === 'lm'
      ? { kind: 'lm' as const, promptTokens: opts.promptTokens ?? DEFAULT_PROMPT_TOKENS }
      : { kind: 'browser-use' as const };
  const writer = new JsonlWriter(join(out, SFT_FILE));
  const render = SFT_RENDERERS[format];
  const copied = new Set<string>();
  let inlined = 0;
  const summary: ExportSftSummary = {
    format,
    out,
    file: join(out, SFT_FILE),
    runs: stores.map((s) => s.dir),
    trajectories: 0,
    examples: 0,
    images: 0,
    droppedNoteLeak: 0,
    droppedGiveUp: 0,
    missingImages: 0,
    relabeled: opts.relabeled ?? false,
  };
  try {
    // Relabelled rollouts are mostly failures: every trajectory is walked, and those without a label skipped.
    const filter: TrajectoryFilter = opts.relabeled ? {} : { success: true };
    const total = stores.reduce((n, s) => n + s.countTrajectories(filter), 0);
    const notesCache = new Map<string, string[]>();
    let walked = 0;
    for (const { store, trajectory } of storeTrajectories(stores, filter)) {
      walked++;
      if (opts.relabeled && !hasExpertLabel(trajectory)) {
        opts.onProgress?.(walked, total);
        continue;
      }
      const cacheKey = `${store.dir}\u0000${trajectory.task.id}`;
      const extraNotes = notesCache.get(cacheKey) ?? reflectionNotes(store, trajectory.task.id);
      notesCache.set(cacheKey, extraNotes);
      const { examples, droppedNoteLeak, droppedGiveUp } = flattenTrajectory(trajectory, {
        extraNotes,
        layout,
        relabeled: opts.relabeled,
      });
      summary.droppedNoteLeak += droppedNoteLeak;
      summary.droppedGiveUp += droppedGiveUp;
      for (const ex of examples) {
        let image: string | null = null;
        let example: SftExample = ex;
        if (ex.imageHash) {
          if (!store.hasImage(ex.imageHash)) {
            summary.missingImages++;
            example = { ...ex, imageHash: null, user: ex.user.replace(`\n${IMAGE_SLOT}`, '') };
          } else if (format === 'openai') {
            image = `data:image/jpeg;base64,${store.readImage(ex.imageHash).toString('base64')}`;
            inlined++;
          } else {
            const name = `${ex.imageHash}.jpg`;
            const dest = join(imagesDir, name);
            if (!copied.has(ex.imageHash)) {
              if (!existsSync(dest)) copyFileSync(store.imagePath(ex.imageHash), dest);
              copied.add(ex.imageHash);
            }
            image = imagePaths === 'relative' ? `images/${name}` : dest;
          }
        }
        writer.write(render(example, image));
        summary.examples++;
      }
      summary.trajectories++;
      opts.onProgress?.(walked, total);
    }
    if (opts.relabeled && summary.trajectories === 0)
      throw new InputError(
        `${opts.runs.join(', ')} hold no relabelled rollouts (record them with \`rmsweb rollout --relabel heuristic --notes-from COLLECTION\`)`,
        { field: '--relabeled' },
      );
    writer.commit();
  } catch (e) {
    writer.abort();
    throw e;
  } finally {
    for (const s of stores) s.close();
  }
  summary.images = format === 'openai' ? inlined : copied.size;
  if (format === 'llamafactory') {
    writeFileAtomic(
      join(out, 'dataset_info.json'),
      `${JSON.stringify(llamafactoryDatasetInfo(SFT_FILE), null, 2)}\n`,
    );
  }
  writeFileAtomic(
    join(out, 'export.json'),
    `${JSON.stringify(
      {
        kind: 'sft',
        promptVersion: EXPORT_PROMPT_VERSION,
        ...(format === 'lm'
          ? {
              layout: 'lm',
              lmPromptVersion: LM_PROMPT_VERSION,
              promptTokens: layout.kind === 'lm' ? layout.promptTokens : undefined,
            }
          : {}),
        ...summary,
        datasetName: format === 'llamafactory' ? LLAMAFACTORY_DATASET_NAME : undefined,
        exportedAt: new Date().toISOString(),
      },
      null,
      2,
    )}\n`,
  );
  return summary;
}

/** Reads an exported JSONL file back as rows (used by tests and by `rmsweb stats`-like tools). */
export function readJsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
