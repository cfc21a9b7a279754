import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  DEFAULT_PROMPT_TOKENS,
  LM_PROMPT_VERSION,
  lmPromptText,
  lmReplyText,
  renderLmObservation,
} from '../agent/lm-prompt.ts';
import {
  agentView,
  type CriticalState,
  InputError,
  sha256,
  type Trajectory,
  toBrowserUse,
} from '../core/index.ts';
import { findRunFolders, type RunStore, writeFileAtomic } from '../store/index.ts';
import { openRuns } from './export-sft.ts';
import { JsonlWriter } from './jsonl-writer.ts';
import { NoteScrubber } from './note-scrub.ts';
import { EXPORT_PROMPT_VERSION, IMAGE_SLOT, stepMessages } from './prompt.ts';
import { readCriticalStates } from './read-critical.ts';
import {
  actionOnlyHistory,
  reflectionNotes,
  scrubObservation,
  stepPrompt,
  visibleNotes,
} from './sft-flatten.ts';
import { type VerlRow, writeVerlParquet } from './verl-parquet.ts';

/**
 * - verl: verl's parquet rows (chat messages, screenshots embedded).
 * - jsonl: the same rows as JSONL, screenshots in images/ beside it.
 * - lm: JSONL in the plain layout of a language-model student without a chat template
 *   (src/agent/lm-prompt.ts): `prompt` is one string, rendered by the very renderer LmAgent prompts
 *   with; `extra_info` adds the page (`observation`, for the reward), `layout: "lm"`,
 *   `lmPromptVersion`, `promptTokens` and `completion`, the truth action exactly as
 *   `export sft --format lm` writes a reply (the salvage anchor's target). Text only.
 */
export const RL_FORMATS = ['verl', 'jsonl', 'lm'] as const;
export type RlFormat = (typeof RL_FORMATS)[number];

export interface ExportRlOptions {
  /** Run folders holding the trajectories and screenshots the critical states refer to. */
  runs: string[];
  /** JSONL file of CriticalState records (as `rmsweb mine` writes them). */
  critical: string;
  format: RlFormat;
  /** Output file (.parquet for verl, .jsonl for jsonl and lm); JSONL images go to images/ beside it. */
  out: string;
  /** Include the screenshot (default true); false renders the text-only prompt, for text-only LMs. */
  withImages?: boolean;
  /**
   * JSONL only: add the success-side page (url and elements) as `extra_info.observation`, so a
   * trainer's reward can tell equivalent elements apart from lookalikes (the PyTorch trainer reads it).
   */
  withObservation?: boolean;
  /** Format `lm` only: the compact observation's budget (estimated tokens; default 768). */
  promptTokens?: number;
}

export interface ExportRlSummary {
  format: RlFormat;
  out: string;
  rows: number;
  images: number;
  /** Rows whose prompt history came from the stored success trajectory (else from the state alone). */
  withTrajectoryHistory: number;
  droppedNoteLeak: number;
}

/** Label the verl `ability` column carries for every row. */
export const RL_ABILITY = 'web_navigation';

export function parseRlFormat(s: string): RlFormat {
  if (!(RL_FORMATS as readonly string[]).includes(s)) {
    throw new InputError(`unknown RL format "${s}"; expected one of ${RL_FORMATS.join(', ')}`, {
      field: 'format',
    });
  }
  return s as RlFormat;
}

function findTrajectory(stores: RunStore[], id: string): { store: RunStore; t: Trajectory } | null {
  for (const store of stores) {
    const t = store.getTrajectory(id);
    if (t) return { store, t };
  }
  return null;
}

type Layout = { kind: 'browser-use' } | { kind: 'lm'; promptTokens: number };

/**
 * The prompt of a critical state's success side, built exactly as the SFT prompt of that step
 * when the success trajectory is in one of the runs; otherwise from the state alone (history of
 * actions without the agent's texts). Notes are stripped by the same rule as SFT export.
 */
function criticalPrompt(cs: CriticalState, stores: RunStore[], layout: Layout) {
  const extraNotes = [
    ...cs.success.observation.notes,
    ...stores.flatMap((s) => reflectionNotes(s, cs.task.id)),
  ];
  const found = findTrajectory(stores, cs.success.trajectoryId);
  const stepIdx = found ? found.t.steps.findIndex((s) => s.index === cs.success.stepIndex) : -1;
  if (found && stepIdx >= 0) {
    const scrubber = new NoteScrubber(visibleNotes(found.t, extraNotes));
    const p = stepPrompt(found.t, stepIdx, { scrubber, observation: cs.success.observation, layout });
    return { ...p, scrubber, fromTrajectory: true };
  }
  const scrubber = new NoteScrubber(extraNotes);
  const observation = scrubObservation(cs.success.observation, scrubber);
  const history = actionOnlyHistory(cs.success.history, observation);
  if (layout.kind === 'lm') {
    const r = renderLmObservation({ task: agentView(cs.task), observation, history }, layout.promptTokens);
    return {
      system: r.system,
      user: r.user,
      agentText: [observation.memory, observation.progress],
      imageHash: null,
      scrubber,
      fromTrajectory: false,
    };
  }
  const imageHash = observation.screenshot?.hash ?? null;
  const { system, user } = stepMessages({
    task: agentView(cs.task),
    observation,
    history,
    withImage: imageHash !== null,
  });
  return {
    system,
    user,
    agentText: [observation.memory, observation.progress],
    imageHash,
    scrubber,
    fromTrajectory: false,
  };
}

/**
 * The screenshot's bytes: from the first run store holding the hash, else from an inline base64
 * payload on the state's observation when it hashes to the same address.
 */
function imageBytes(hash: string, stores: RunStore[], cs: CriticalState): Uint8Array | null {
  const store = stores.find((s) => s.hasImage(hash));
  if (store) return store.readImage(hash);
  const data = cs.success.observation.screenshot?.data;
  if (!data) return null;
  const bytes = Buffer.from(data.replace(/^data:[^;,]+;base64,/, ''), 'base64');
  return sha256(bytes) === hash ? bytes : null;
}

/** What a reward needs of the success-side page: its URL and elements (no screenshot, no notes). */
function rewardObservation(cs: CriticalState) {
  const o = cs.success.observation;
  return {
    url: o.url,
    elements: o.elements.map((e) => ({
      index: e.index,
      tag: e.tag,
      role: e.role,
      name: e.name,
      text: e.text,
      attributes: e.attributes,
      nodeKey: e.nodeKey,
      parentIndex: e.parentIndex,
    })),
  };
}

/**
 * Converts critical states into RL training rows: the success side's prompt, and its action as
 * the rule reward's ground truth (Browser Use wire JSON, the shape the policy answers in).
 */
export function exportRl(opts: ExportRlOptions): ExportRlSummary {
  const format = parseRlFormat(opts.format);
  const out = resolve(opts.out);
  const states = readCriticalStates(opts.critical);
  // As `rmsweb rl` on the same file: an empty export is a mistake upstream, not a 0-row dataset.
  if (states.length === 0) throw new InputError('no critical states in file', { file: opts.critical });
  // A demo or ablate folder keeps its runs in sub-folders; all of them are searched.
  const stores = openRuns(opts.runs.flatMap((r) => findRunFolders(r)));
  const summary: ExportRlSummary = {
    format,
    out,
    rows: 0,
    images: 0,
    withTrajectoryHistory: 0,
    droppedNoteLeak: 0,
  };
  const layout: Layout =
    format === 'lm'
      ? { kind: 'lm', promptTokens: opts.promptTokens ?? DEFAULT_PROMPT_TOKENS }
      : { kind: 'browser-use' };
  if (opts.promptTokens !== undefined && format !== 'lm')
    throw new InputError('promptTokens applies to the lm format only', { field: 'prompt-tokens' });
  // lm rows always carry the page: the PyTorch trainer's reward resolves elements on it
  const withObservation = opts.withObservation || format === 'lm';
  const rows: Array<
    VerlRow & {
      observation?: ReturnType<typeof rewardObservation>;
      lm?: { prompt: string; completion: string };
    }
  > = [];
  const imageData = new Map<string, Uint8Array>();
  try {
    if (opts.withObservation && format === 'verl')
      throw new InputError('withObservation applies to the jsonl and lm formats only', { field: 'format' });
    for (const { line, state: cs } of states) {
      const p = criticalPrompt(cs, stores, layout);
      if (opts.withImages === false && p.imageHash) {
        p.user = p.user.replace(`\n${IMAGE_SLOT}`, '').replace(IMAGE_SLOT, '');
        p.imageHash = null;
      }
      if (p.agentText.some((x) => p.scrubber.leaks(x))) {
        summary.droppedNoteLeak++;
        continue;
      }
      const images: VerlRow['images'] = [];
      if (p.imageHash) {
        const bytes = imageBytes(p.imageHash, stores, cs);
        if (!bytes) {
          throw new InputError(
            `screenshot ${p.imageHash} of critical state ${cs.id} is in none of the run stores (${opts.runs.join(', ')})`,
            { file: opts.critical, line },
          );
        }
        imageData.set(p.imageHash, bytes);
        images.push({ bytes, path: `images/${p.imageHash}.jpg` });
      }
      if (p.fromTrajectory) summary.withTrajectoryHistory++;
      rows.push({
        data_source: `rmsweb/${cs.task.suite}`,
        prompt: [
          { role: 'system', content: p.system },
          { role: 'user', content: p.user.replace(IMAGE_SLOT, '<image>') },
        ],
        images,
        ability: RL_ABILITY,
        reward_model: { style: 'rule', ground_truth: JSON.stringify(toBrowserUse(cs.success.action)) },
        extra_info: {
          split: 'train',
          index: rows.length,
          critical_state_id: cs.id,
          task_id: cs.task.id,
          site: cs.task.site,
          label: cs.label,
          label_source: cs.labelSource,
          success_trajectory_id: cs.success.trajectoryId,
          success_step: cs.success.stepIndex,
          failure_trajectory_id: cs.failure.trajectoryId,
          failure_step: cs.failure.stepIndex,
          failure_action: JSON.stringify(toBrowserUse(cs.failure.action)),
          comparability: cs.comparability.total,
        },
        ...(withObservation ? { observation: rewardObservation(cs) } : {}),
        ...(layout.kind === 'lm'
          ? { lm: { prompt: lmPromptText(p), completion: lmReplyText(cs.success.action) } }
          : {}),
      });
    }
  } finally {
    for (const s of stores) s.close();
  }
  mkdirSync(dirname(out), { recursive: true });
  if (format === 'verl') {
    writeVerlParquet(out, rows);
  } else {
    const imagesDir = join(dirname(out), 'images');
    if (format !== 'lm') mkdirSync(imagesDir, { recursive: true });
    for (const [hash, bytes] of imageData) {
      const dest = join(imagesDir, `${hash}.jpg`);
      if (!existsSync(dest)) writeFileAtomic(dest, bytes);
    }
    const w = new JsonlWriter(out);
    for (const { observation, lm, ...r } of rows)
      w.write({
        ...r,
        ...(lm ? { prompt: lm.prompt } : {}),
        images: r.images.map((i) => i.path),
        extra_info: {
          ...r.extra_info,
          ...(observation ? { observation } : {}),
          ...(lm && layout.kind === 'lm'
            ? {
                layout: 'lm',
                lmPromptVersion: LM_PROMPT_VERSION,
                promptTokens: layout.promptTokens,
                completion: lm.completion,
              }
            : {}),
        },
      });
    w.commit();
  }
  summary.rows = rows.length;
  summary.images = imageData.size;
  writeFileAtomic(
    join(dirname(out), `${basename(out)}.export.json`),
    `${JSON.stringify({ kind: 'rl', promptVersion: EXPORT_PROMPT_VERSION, ...(layout.kind === 'lm' ? { layout: 'lm', lmPromptVersion: LM_PROMPT_VERSION, promptTokens: layout.promptTokens } : {}), critical: resolve(opts.critical), runs: opts.runs.map((r) => resolve(r)), ...summary, exportedAt: new Date().toISOString() }, null, 2)}\n`,
  );
  return summary;
}
