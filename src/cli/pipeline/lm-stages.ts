import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Agent, AgentInput } from '../../agent/agent.ts';
import { gaveUpOnReply } from '../../agent/lm-agent.ts';
import { DEFAULT_PROMPT_TOKENS, LM_PROMPT_VERSION, lmActionText } from '../../agent/lm-prompt.ts';
import { type EpisodeJob, runEpisodePool } from '../../collect/episode-pool.ts';
import { solvingNotes } from '../../collect/solving-notes.ts';
import { actionsEquivalent } from '../../core/action-equivalence.ts';
import { InputError, RmswebError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { agentView, type Task } from '../../core/task.ts';
import type { Trajectory } from '../../core/trajectory.ts';
import { type ExportSftSummary, exportSft } from '../../data/index.ts';
import { NoteScrubber } from '../../data/note-scrub.ts';
import { reflectionNotes, scrubbedHistory, visibleNotes } from '../../data/sft-flatten.ts';
import { runEval } from '../../eval/run-eval.ts';
import { METRICS } from '../../rl/metrics.ts';
import { writeFileAtomic } from '../../store/index.ts';
import { RunStore } from '../../store/run-store.ts';
import { dequantizeBase, exportGguf } from '../commands/export-gguf.ts';
import { episodesNotRun } from '../episode-errors.ts';
import { resolveAgent, threadsPerWorker } from '../runtime.ts';
import { LlamaBackend, llamaPrefix } from '../serve-model/llama-backend.ts';
import { ModelServer } from '../serve-model/server.ts';
import { requireTorchTrainer, runTorchTrainer, SAVE_STEPS, type TrainerEvent } from '../torch-trainer.ts';
import type { PipelineContext } from './context.ts';
import type { EvalStageResult } from './eval-stage.ts';
import type { LmSettings } from './presets.ts';
import type { StageScope } from './stage.ts';
import { defineStage } from './stage-results.ts';
import { relabelStats } from './student-stages.ts';

/**
 * The language-model student's stages (`rmsweb demo --preset lm`): the lm export, the LoRA-or-full
 * choice, SFT and Salvage-DS through the torch trainer, greedy rollouts and evaluations through the
 * `lm:hf:` agent. Each is one resumable pipeline stage; training runs the Python trainer
 * (`python -m rmsweb_trainer sft|rl`) as `train sft|rl --backend torch` do.
 */

/** Where the lm stages keep their files inside the pipeline's run folder. */
export function lmPaths(root: string) {
  return {
    exportSft: join(root, 'exports', 'lm'),
    choose: join(root, 'lm', 'choose'),
    sftData: join(root, 'lm', 'sft-data.jsonl'),
    /** The SFT student of training seed `k` (0: the pipeline's seed). */
    sft: (k: number) => join(root, 'models', k ? `lm-sft-seed${k}` : 'lm-sft'),
    rl: (k: number) => join(root, 'models', k ? `lm-salvage-ds-seed${k}` : 'lm-salvage-ds'),
    /** An ablation row's RL student (`lm-nosalvage`, `lm-grpo-exact`, ...). */
    rlRow: (name: string) => join(root, 'models', name),
    rlData: join(root, 'lm', 'rl-data.jsonl'),
    /** DAgger round r > 1's relabelled rollouts (round 1's are the rollout stage's, `rollout/`). */
    daggerRollout: (r: number) => join(root, `lm-dagger${r}`),
    /** Round r's relabelled rows (every round up to r), its training rows and its student. */
    daggerExport: (r: number) => join(root, 'exports', `lm-dagger${r}`),
    daggerData: (r: number) => join(root, 'lm', `dagger${r}-data.jsonl`),
    dagger: (r: number) => join(root, 'models', `lm-dagger${r}`),
  };
}

/** The lm settings of a pipeline's preset; a preset without them is a programming error. */
export function lmSettings(ctx: PipelineContext): LmSettings {
  const lm = ctx.preset.lm;
  if (!lm) throw new Error(`preset ${ctx.preset.name} has no lm settings`);
  return lm;
}

/**
 * Checks the lm settings before anything is written: the model exists (with how to get the
 * default one), the trainer's Python environment is there, and the inference route is one that
 * works with this prompt budget. Every refusal is an input error naming the option.
 */
export function checkLmSettings(lm: LmSettings): void {
  if (!existsSync(lm.model))
    throw new InputError(
      `no such model: ${lm.model}${lm.model.endsWith('gemma-3-270m-q4_k_m.gguf') ? ' (run `bash scripts/get-local-model.sh` to install the local Gemma 3 270M, or give --model DIR|FILE.gguf)' : ''}`,
      { field: '--model' },
    );
  if (lm.promptTokens !== DEFAULT_PROMPT_TOKENS)
    // The lm: agent renders with the default budget; a student must act on the layout it learned.
    throw new InputError(
      `the lm: agent renders observations within ${DEFAULT_PROMPT_TOKENS} tokens; a preset with promptTokens ${lm.promptTokens} would train on another layout than it acts on`,
      { field: '--preset' },
    );
  if (lm.dagger.rounds > 0 && lm.rollout.tasks === 0)
    // round 1 relabels the rollout stage's episodes, and each later round rolls out as many tasks
    throw new InputError(
      `--lm-dagger ${lm.dagger.rounds} needs the rollout stage, and this preset rolls out on no task; use --lm-dagger 0`,
      { field: '--lm-dagger' },
    );
  if (lm.inference === 'llama') {
    if (!lm.model.endsWith('.gguf'))
      throw new InputError(
        `the llama route serves LoRA adapters over a GGUF base model; ${lm.model} is not a .gguf file (use --lm-inference hf)`,
        { field: '--lm-inference' },
      );
    const lib = join(llamaPrefix(), 'node_modules', 'node-llama-cpp', 'package.json');
    if (!existsSync(lib))
      throw new InputError(
        `the llama route needs node-llama-cpp (not found under ${llamaPrefix()}); run bash scripts/get-local-model.sh, or use --lm-inference hf`,
        { field: '--lm-inference' },
      );
  }
  requireTorchTrainer();
}

/**
 * A model the lm stages run: a Hugging Face checkpoint (or the base model itself), and the LoRA
 * checkpoints whose adapters, stacked in order on the base GGUF, make the same model for llama.cpp
 * (empty for the base model and for a fully fine-tuned student).
 */
export interface LmModelRef {
  dir: string;
  adapters: string[];
}

/**
 * The route a model runs on: the preset's, except where llama.cpp cannot serve it as trained (a
 * fully fine-tuned student has no adapter; serve-model loads one adapter, and the Salvage-DS
 * student of a LoRA run stacks two), which runs through hf and says why.
 */
export function lmRoute(lm: LmSettings, ref: LmModelRef): { route: 'hf' | 'llama'; why?: string } {
  if (lm.inference === 'hf') return { route: 'hf' };
  if (ref.dir !== lm.model && ref.adapters.length === 0)
    return { route: 'hf', why: 'a fully fine-tuned student has no LoRA adapter for llama.cpp' };
  if (ref.adapters.length > 1)
    return {
      route: 'hf',
      why: `serve-model loads one LoRA adapter and this student stacks ${ref.adapters.length}`,
    };
  return { route: 'llama' };
}

/**
 * Runs `fn` with the agent spec of `ref` on its route: `lm:hf:<dir>` (the Python serve process,
 * one per agent), or `lm:openai:` on an in-process llama.cpp server of the base GGUF with the
 * checkpoint's adapter exported as GGUF (kept beside it, so a resumed stage reuses it); the server
 * is stopped after.
 */
export async function withLmAgentSpec<T>(
  ctx: PipelineContext,
  scope: StageScope,
  ref: LmModelRef,
  fn: (spec: string, route: 'hf' | 'llama') => Promise<T>,
): Promise<T> {
  const lm = lmSettings(ctx);
  const { route, why } = lmRoute(lm, ref);
  if (why) scope.log(`runs through hf: ${why}`);
  if (route === 'hf') return fn(`lm:hf:${ref.dir}`, route);
  const adapter = ref.adapters[0];
  let file: string | undefined;
  if (adapter) {
    file = join(adapter, 'adapter.gguf');
    if (!existsSync(file)) exportGguf({ model: adapter, out: file, base: lm.model });
  }
  const backend = await LlamaBackend.open({
    gguf: servedBase(ctx, scope),
    threads: LLAMA_THREADS,
    ...(file ? { lora: { file } } : {}),
  });
  const server = await ModelServer.start({ backend, port: 0 });
  try {
    return await fn(`lm:openai:${backend.modelId}@${server.url}`, route);
  } finally {
    await server.close();
    await backend.close();
  }
}

/**
 * The base GGUF llama.cpp serves every lm model over: the base model dequantized to f16, made once
 * per run folder. llama.cpp's k-quant kernels quantize the activations too, which moved Gemma 3
 * 270M's next-token probabilities by 0.1-0.2 on lm prompts against what torch (which dequantizes
 * the GGUF on load) trained and evaluates; over f16 the two agree to ~4e-3 (f32: ~1e-3, at twice the
 * memory traffic). Written beside and renamed, so a killed stage never leaves half a file to reuse.
 */
function servedBase(ctx: PipelineContext, scope: StageScope): string {
  const lm = lmSettings(ctx);
  const out = join(ctx.paths.root, 'lm', 'base-f16.gguf');
  if (existsSync(out)) return out;
  mkdirSync(dirname(out), { recursive: true });
  const part = join(dirname(out), 'base-f16.part.gguf');
  scope.log(`dequantizing ${lm.model} to f16 for llama.cpp -> ${out}`);
  dequantizeBase({ gguf: lm.model, out: part, type: 'f16' });
  renameSync(part, out);
  return out;
}

/**
 * llama.cpp threads: one. Measured on lm prompts with the machine shared (load ~2.7): Gemma 3 270M
 * f16 took 3.0 s a step on one thread and 9.6-14.5 s on two (the threads spin against the browser
 * and the other jobs), Q4_K_M 2.3 s and 3.0 s.
 */
const LLAMA_THREADS = 1;

/** Stops an agent's model process (the hf route keeps one Python process per agent). */
export async function closeAgent(agent: Agent): Promise<void> {
  const a = agent as unknown as {
    close?: () => unknown;
    opts?: { model?: { close?: () => unknown } };
  };
  if (typeof a.close === 'function') await a.close();
  else if (typeof a.opts?.model?.close === 'function') await a.opts.model.close();
}

// ---- stage definitions -------------------------------------------------------------------------

const count = z.number().int().nonnegative();

const LmExportResult = z.looseObject({ file: z.string(), trajectories: count, examples: count });

const ModeTrial = z.object({
  mode: z.enum(['lora', 'full']),
  dir: z.string(),
  lr: z.number(),
  trainSeconds: z.number().nonnegative(),
  /** Exact greedy action (after parsing) and core action equivalence on the validation steps. */
  exact: z.number(),
  equivalent: z.number(),
  unparsable: count,
  scoreSeconds: z.number().nonnegative(),
});
const FinetuneChoice = z.object({
  chosen: z.enum(['lora', 'full']),
  /** `auto`: chosen on the validation split; `fixed`: set by the preset or --lm-finetune. */
  how: z.enum(['auto', 'fixed']),
  valTasks: z.array(z.string()),
  trainRows: count,
  valSteps: count,
  trials: z.array(ModeTrial),
});
export type FinetuneChoiceResult = z.infer<typeof FinetuneChoice>;

const LmSftResult = z.object({
  dir: z.string(),
  mode: z.enum(['lora', 'full']),
  seed: z.number().int(),
  rows: count,
  epochs: count,
  lr: z.number(),
  /** The wall time of the attempt that finished (from its resume point when `resumedFromStep`). */
  trainSeconds: z.number().nonnegative(),
  /** Rows (of ~tokens each) trained a second in that attempt, and the trainer's last epoch loss. */
  rowsPerSecond: z.number().nonnegative(),
  tokensPerSecond: z.number().nonnegative().nullable(),
  finalLoss: z.number().nullable(),
  /** The optimizer step an interrupted run's checkpoint had reached (absent: trained in one go). */
  resumedFromStep: z.number().int().nonnegative().optional(),
});
export type LmSftResult = z.infer<typeof LmSftResult>;

const LmDaggerSftResult = LmSftResult.extend({
  round: z.number().int().positive(),
  /** Labelled states of rounds 1..round (duplicates dropped), and the SFT rows added to them. */
  relabeledRows: count,
  /** States where the teacher's label was to give up (`done` with success false), left out. */
  gaveUp: count,
  collectionRows: count,
});
export type LmDaggerSftResult = z.infer<typeof LmDaggerSftResult>;

const LmRolloutResult = z.object({
  episodes: count,
  successes: count,
  errors: count,
  steps: count,
  /** States the teacher labelled (DAgger), and on how many it would have acted otherwise. */
  relabeled: z.object({ steps: count, disagreements: count }).optional(),
});
export type LmRolloutResult = z.infer<typeof LmRolloutResult>;

const LmRlExport = z.looseObject({ out: z.string(), rows: count });

const LmRlResult = z.object({
  dir: z.string(),
  mode: z.enum(['lora', 'full']),
  seed: z.number().int(),
  states: count,
  steps: count,
  rolloutsSampled: count,
  wallSeconds: z.number().nonnegative(),
  rewardStart: z.number().nullable(),
  rewardEnd: z.number().nullable(),
  salvageShare: z.number().nullable(),
  completionTokensPerSecond: z.number().nullable(),
});
export type LmRlResult = z.infer<typeof LmRlResult>;

/** The lm preset's stages; evaluations are `eval-lm-...` members of the `eval-` family. */
export const LM_STAGES = {
  exportSft: defineStage<ExportSftSummary>({ name: 'lm-export-sft', schema: LmExportResult }),
  choose: defineStage<FinetuneChoiceResult>({ name: 'lm-choose-finetune', schema: FinetuneChoice }),
  /** `lm-sft` (seed 0) and `lm-sft-seed<k>`. */
  sft: defineStage<LmSftResult>({ name: 'lm-sft', schema: LmSftResult, family: true }),
  rollout: defineStage<LmRolloutResult>({ name: 'lm-rollout', schema: LmRolloutResult }),
  exportRl: defineStage<z.infer<typeof LmRlExport>>({ name: 'lm-export-rl', schema: LmRlExport }),
  /** `lm-rl-salvage-ds` (seed 0) and `lm-rl-salvage-ds-seed<k>`. */
  rl: defineStage<LmRlResult>({ name: 'lm-rl-', schema: LmRlResult, family: true }),
  /** `lm-dagger-rollout<r>` (r > 1; round 1 relabels the `lm-rollout` stage's episodes). */
  daggerRollout: defineStage<LmRolloutResult>({
    name: 'lm-dagger-rollout',
    schema: LmRolloutResult,
    family: true,
  }),
  /** `lm-dagger-sft<r>`: round r's student. */
  daggerSft: defineStage<LmDaggerSftResult>({
    name: 'lm-dagger-sft',
    schema: LmDaggerSftResult,
    family: true,
  }),
} as const;

// ---- export ------------------------------------------------------------------------------------

/** The collection's verified successes as lm prompt-completion rows (`export sft --format lm`). */
export async function lmExportStage(ctx: PipelineContext, scope: StageScope): Promise<ExportSftSummary> {
  const lm = lmSettings(ctx);
  const s = exportSft({
    runs: [ctx.paths.collect],
    format: 'lm',
    out: lmPaths(ctx.paths.root).exportSft,
    promptTokens: lm.promptTokens,
  });
  if (s.examples === 0)
    throw new RmswebError('the collection has no verified-success steps: nothing to train the LM on', {
      code: 'NO_DATA',
    });
  scope.log(`${s.examples} lm rows from ${s.trajectories} successes -> ${s.file}`);
  return s;
}

/**
 * Refuses the run folder `root` whose lm rows were written in another version of the compact layout than
 * this code's: its finished stages trained students on that layout, and this code would prompt
 * them (and write RL rows) in its own. A new run folder is the remedy, not a silent mix.
 */
export function checkLmLayoutVersion(root: string): void {
  const file = join(lmPaths(root).exportSft, 'export.json');
  const written = z
    .looseObject({ lmPromptVersion: z.number().optional() })
    .safeParse(JSON.parse(readFileSync(file, 'utf8'))).data?.lmPromptVersion;
  if (written !== LM_PROMPT_VERSION)
    throw new InputError(
      `this run folder's lm rows are in layout version ${written ?? 'unknown'}, this code's is ` +
        `${LM_PROMPT_VERSION} (src/agent/lm-prompt.ts); its students would be prompted in a layout they ` +
        'were not trained on. Start a new run folder (--out).',
      { file, field: 'lmPromptVersion' },
    );
}

/** One exported lm row, as `export sft --format lm` writes it. */
interface LmRow {
  prompt: string;
  completion: string;
  id: string;
}

function readRows(file: string): LmRow[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LmRow);
}

function writeRows(file: string, rows: readonly LmRow[]): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/** The trajectory id of an export row (`<trajectoryId>:<stepIndex>`). */
const rowTrajectory = (r: LmRow) => r.id.slice(0, r.id.lastIndexOf(':'));

/** The collection's verified successes, by trajectory id. */
function successes(collectDir: string): Map<string, Trajectory> {
  const store = RunStore.open(collectDir, { create: false, readonly: true });
  try {
    return new Map(store.listTrajectories({ success: true }).map((t) => [t.id, t]));
  } finally {
    store.close();
  }
}

// ---- SFT ---------------------------------------------------------------------------------------

/** Rows a second and tokens a second of a finished trainer run, from its events. */
export function sftRates(
  events: TrainerEvent[],
  rows: number,
  epochs: number,
  batch: number,
  seconds: number,
) {
  // Each optimizer step's event counts the tokens it trained on; a resumed run logs only the steps
  // after its checkpoint, and its rates count those alone.
  const steps = events.filter((e) => e.event === 'step');
  const tokens = steps
    .map((e) => Number(e.tokens ?? Number.NaN))
    .filter(Number.isFinite)
    .reduce((a, b) => a + b, 0);
  const first = Number(steps[0]?.step ?? 1);
  const resumedFromStep = Number.isInteger(first) && first > 1 ? first - 1 : undefined;
  const trained =
    resumedFromStep === undefined ? rows * epochs : Math.min(rows * epochs, steps.length * batch);
  return {
    rowsPerSecond: seconds > 0 ? trained / seconds : 0,
    tokensPerSecond: tokens > 0 && seconds > 0 ? tokens / seconds : null,
    ...(resumedFromStep === undefined ? {} : { resumedFromStep }),
  };
}

/**
 * One torch SFT run of `model` on `data` into `out` (as `train sft --backend torch`), no validation
 * split: the pipeline validates on its own held-out tasks. Returns the trainer's events and wall time.
 */
async function torchSft(
  ctx: PipelineContext,
  scope: StageScope,
  o: {
    model: string;
    data: string;
    out: string;
    mode: 'lora' | 'full';
    /** Rows in `data`: with `batch` and `epochs`, the optimizer steps the progress bar counts. */
    rows: number;
    epochs: number;
    batch: number;
    lr: number;
    seed: number;
  },
): Promise<{ events: TrainerEvent[]; seconds: number }> {
  const lm = lmSettings(ctx);
  mkdirSync(o.out, { recursive: true });
  const args = ['sft', '--model', resolve(o.model), '--data', o.data, '--out', o.out];
  args.push('--epochs', String(o.epochs), '--batch', String(o.batch), '--lr', String(o.lr));
  args.push('--seed', String(o.seed), '--val-frac', '0', '--device', lm.device);
  args.push('--micro-batch', String(lm.microBatch));
  // A killed stage (Ctrl-C, a machine restart) runs this same command again, which resumes from the
  // latest checkpoint in <out>/checkpoints (the trainer discards one made from other rows or options).
  args.push('--save-steps', String(SAVE_STEPS.sft));
  if (o.mode === 'lora') args.push('--lora');
  if (o.mode === 'lora' && lm.sft.loraLayers > 0) args.push('--lora-layers', String(lm.sft.loraLayers));
  // An hour of Gemma SFT on CPU with one line at its end looks hung: the bar counts optimizer steps.
  const total = Math.max(1, Math.ceil(o.rows / Math.max(1, o.batch)) * o.epochs);
  const bar = scope.progress(total, `${o.mode} sft`);
  const t0 = performance.now();
  const events = await runTorchTrainer({
    args,
    signal: scope.signal,
    metricsFile: join(o.out, 'sft-metrics.jsonl'),
    onEvent: (e) => {
      if (e.event === 'step' && typeof e.step === 'number')
        bar.update(Math.min(total, e.step), { loss: Number(Number(e['losses/sft']).toFixed(4)) });
      if (e.event === 'epoch')
        scope.log(`${o.mode} epoch ${e.epoch}/${o.epochs} loss ${Number(e['losses/train']).toFixed(4)}`);
    },
  });
  if (scope.signal.aborted) return { events, seconds: 0 };
  return { events, seconds: (performance.now() - t0) / 1000 };
}

/** A seeded sample of at most `n` rows (all of them, shuffled, when there are fewer). */
function sampleRows(rows: readonly LmRow[], n: number, seed: string): LmRow[] {
  return new Rng(seed).shuffle([...rows]).slice(0, n);
}

/** Greedy step accuracy of an agent on teacher steps (exact action after parsing, and equivalence). */
export interface StepScore {
  exact: number;
  equivalent: number;
  unparsable: number;
  steps: number;
}

/** A teacher step as the agent sees it at inference, with the teacher's action. */
interface StepProbe {
  input: AgentInput;
  truth: Trajectory['steps'][number]['action'];
}

/** Probes of `trajectories`' steps: the input the episode loop would give the student (notes scrubbed). */
function stepProbes(collectDir: string, trajectories: readonly Trajectory[]): StepProbe[] {
  const store = RunStore.open(collectDir, { create: false, readonly: true });
  try {
    return trajectories.flatMap((t) => {
      const history = scrubbedHistory(
        t,
        new NoteScrubber(visibleNotes(t, reflectionNotes(store, t.task.id))),
      );
      return t.steps.map((s, i) => ({
        input: {
          task: agentView(t.task),
          observation: { ...history[i]!.observation, notes: [] },
          history: history.slice(0, i),
        },
        truth: s.action,
      }));
    });
  } finally {
    store.close();
  }
}

/** Greedy step accuracy of the agent `spec` on the probes (its model process closed after). */
async function scoreSteps(spec: string, probes: readonly StepProbe[], scope: StageScope): Promise<StepScore> {
  const agent = await resolveAgent(spec, { greedy: true });
  let exact = 0;
  let equivalent = 0;
  let unparsable = 0;
  try {
    for (const p of probes) {
      if (scope.signal.aborted) break;
      const d = await agent.act(p.input);
      const a = d.actions[0];
      if (!a || (a.type === 'done' && gaveUpOnReply(d.output))) {
        unparsable++;
        continue;
      }
      if (lmActionText(a) === lmActionText(p.truth)) exact++;
      if (actionsEquivalent(a, p.truth, p.input.observation)) equivalent++;
    }
  } finally {
    await closeAgent(agent);
  }
  const n = Math.max(1, probes.length);
  return { exact: exact / n, equivalent: equivalent / n, unparsable, steps: probes.length };
}

/**
 * LoRA or full fine-tuning, chosen on a validation split of train tasks: `choose.valTasks` solved
 * collection tasks are held out; both modes train on the same `trainExamples` rows of the other
 * tasks for the same epochs (each at its own learning rate, as each would be used), and each
 * student's greedy actions are scored on up to `valSteps` teacher steps of the held-out tasks,
 * through the inference route the demo evaluates with. Equivalent-action accuracy decides; a tie
 * goes to LoRA (cheaper, and the route llama.cpp can serve). With the mode fixed (preset or
 * `--lm-finetune`) nothing is trained and the record says so.
 */
export async function chooseFinetuneStage(
  ctx: PipelineContext,
  scope: StageScope,
): Promise<FinetuneChoiceResult> {
  const lm = lmSettings(ctx);
  if (lm.finetune !== 'auto')
    return { chosen: lm.finetune, how: 'fixed', valTasks: [], trainRows: 0, valSteps: 0, trials: [] };
  const p = lmPaths(ctx.paths.root);
  const rows = readRows(join(p.exportSft, 'train.jsonl'));
  const trajectories = successes(ctx.paths.collect);
  const tasks = [...new Set([...trajectories.values()].map((t) => t.task.id))].sort();
  if (tasks.length < 2)
    throw new RmswebError(
      `the collection solved ${tasks.length} task(s): too few to hold one out for the LoRA-or-full choice; set --lm-finetune lora|full`,
      { code: 'NO_DATA' },
    );
  const val = new Set(
    new Rng(`lm-choose:${ctx.settings.seed}`)
      .shuffle(tasks)
      .slice(0, Math.min(lm.choose.valTasks, tasks.length - 1)),
  );
  const taskOf = (r: LmRow) => trajectories.get(rowTrajectory(r))?.task.id;
  const train = sampleRows(
    rows.filter((r) => !val.has(taskOf(r) ?? '')),
    lm.choose.trainExamples,
    `lm-choose-rows:${ctx.settings.seed}`,
  );
  const probes = new Rng(`lm-choose-steps:${ctx.settings.seed}`)
    .shuffle(
      stepProbes(
        ctx.paths.collect,
        [...trajectories.values()].filter((t) => val.has(t.task.id)),
      ),
    )
    .slice(0, lm.choose.valSteps);
  const data = join(p.choose, 'train.jsonl');
  writeRows(data, train);
  scope.log(
    `LoRA vs full: ${train.length} rows of ${tasks.length - val.size} tasks, scored on ${probes.length} steps of ${val.size} held-out train tasks`,
  );
  const trials: FinetuneChoiceResult['trials'] = [];
  for (const mode of ['lora', 'full'] as const) {
    const dir = join(p.choose, mode);
    const lr = lm.sft.lr[mode];
    const { seconds } = await torchSft(ctx, scope, {
      model: lm.model,
      data,
      out: dir,
      mode,
      rows: train.length,
      epochs: lm.choose.epochs,
      batch: lm.sft.batch,
      lr,
      seed: ctx.settings.seed,
    });
    if (scope.signal.aborted) break;
    const t0 = performance.now();
    // Scored through hf whatever the route: llama.cpp cannot serve the fully fine-tuned candidate.
    const s = await scoreSteps(`lm:hf:${dir}`, probes, scope);
    const scoreSeconds = (performance.now() - t0) / 1000;
    scope.log(
      `${mode}: trained in ${seconds.toFixed(0)} s; greedy exact ${(100 * s.exact).toFixed(1)}%, equivalent ${(100 * s.equivalent).toFixed(1)}%, ${s.unparsable} unusable replies (${scoreSeconds.toFixed(0)} s)`,
    );
    trials.push({
      mode,
      dir,
      lr,
      trainSeconds: seconds,
      exact: s.exact,
      equivalent: s.equivalent,
      unparsable: s.unparsable,
      scoreSeconds,
    });
  }
  const chosen = chooseMode(trials);
  scope.log(`chosen: ${chosen}`);
  return {
    chosen,
    how: 'auto',
    valTasks: [...val].sort(),
    trainRows: train.length,
    valSteps: probes.length,
    trials,
  };
}

/** The better trial on equivalent-action accuracy, then exact; a tie goes to LoRA. */
export function chooseMode(
  trials: ReadonlyArray<{ mode: 'lora' | 'full'; equivalent: number; exact: number }>,
) {
  const lora = trials.find((t) => t.mode === 'lora');
  const full = trials.find((t) => t.mode === 'full');
  if (!lora || !full) return lora ? 'lora' : full ? 'full' : 'lora';
  if (full.equivalent > lora.equivalent + 1e-9) return 'full';
  if (full.equivalent >= lora.equivalent - 1e-9 && full.exact > lora.exact + 1e-9) return 'full';
  return 'lora';
}

/**
 * SFT of the LM student (training seed `k`: the pipeline's seed + k) on a seeded sample of at most
 * `sft.examples` export rows, in the chosen mode. An interrupted stage resumes from the trainer's
 * latest checkpoint (every `SAVE_STEPS.sft` optimizer steps, src/cli/torch-trainer.ts).
 */
export async function lmSftStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: { mode: 'lora' | 'full'; k: number },
): Promise<LmSftResult> {
  const lm = lmSettings(ctx);
  const p = lmPaths(ctx.paths.root);
  const seed = ctx.settings.seed + o.k;
  const rows = sampleRows(
    readRows(join(p.exportSft, 'train.jsonl')),
    lm.sft.examples,
    `lm-sft-rows:${ctx.settings.seed}`,
  );
  writeRows(p.sftData, rows);
  const dir = p.sft(o.k);
  const lr = lm.sft.lr[o.mode];
  scope.log(
    `${o.mode} fine-tuning on ${rows.length} rows, ${lm.sft.epochs} epoch(s), lr ${lr}, seed ${seed}`,
  );
  const { events, seconds } = await torchSft(ctx, scope, {
    model: lm.model,
    data: p.sftData,
    out: dir,
    mode: o.mode,
    rows: rows.length,
    epochs: lm.sft.epochs,
    batch: lm.sft.batch,
    lr,
    seed,
  });
  return {
    dir,
    mode: o.mode,
    seed,
    rows: rows.length,
    epochs: lm.sft.epochs,
    lr,
    ...sftOutcome(events, seconds, rows.length, lm.sft.epochs, lm.sft.batch),
  };
}

/** A finished torch SFT run's wall time, rates and last epoch loss, as the SFT results record them. */
function sftOutcome(events: TrainerEvent[], seconds: number, rows: number, epochs: number, batch: number) {
  const last = events.filter((e) => e.event === 'epoch').at(-1);
  const loss = last ? Number(last['losses/train']) : Number.NaN;
  return {
    trainSeconds: seconds,
    ...sftRates(events, rows, epochs, batch, seconds),
    finalLoss: Number.isFinite(loss) ? loss : null,
  };
}

/**
 * DAgger round `round`'s student: a fresh LoRA (or, for a fully fine-tuned student, another full
 * pass) over the first seed's SFT student `init`, trained on the teacher's labels of every state the
 * students of rounds 1..round reached (`rollouts`, in round order: `export sft --format lm
 * --relabeled`, the renderer of the SFT rows and the agent; a state seen twice, prompt and label
 * alike, is kept once) and a seeded sample of the SFT rows, shuffled together. Resumes from the
 * trainer's checkpoints, as SFT does.
 */
export async function lmDaggerSftStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: { round: number; init: LmSftResult; rollouts: string[] },
): Promise<LmDaggerSftResult> {
  const lm = lmSettings(ctx);
  const p = lmPaths(ctx.paths.root);
  const exported = exportSft({
    runs: o.rollouts,
    format: 'lm',
    out: p.daggerExport(o.round),
    promptTokens: lm.promptTokens,
    relabeled: true,
  });
  // The export leaves out the teacher's give-ups (src/data/sft-flatten.ts); a state seen twice with
  // the same label is one row.
  const gaveUp = exported.droppedGiveUp;
  const seen = new Set<string>();
  const labelled = readRows(exported.file).filter((r) => {
    const key = `${r.prompt}\u0000${r.completion}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const kept = sampleRows(
    readRows(p.sftData),
    lm.dagger.collectionRows,
    `lm-dagger-rows:${ctx.settings.seed}:${o.round}`,
  );
  const rows = new Rng(`lm-dagger-order:${ctx.settings.seed}:${o.round}`).shuffle([...labelled, ...kept]);
  const data = p.daggerData(o.round);
  writeRows(data, rows);
  const dir = p.dagger(o.round);
  const lr = lm.sft.lr[o.init.mode];
  scope.log(
    `round ${o.round}: ${labelled.length} labelled states (${gaveUp} give-ups and ${exported.examples - labelled.length} repeats dropped) + ${kept.length} SFT rows, ${o.init.mode} over ${o.init.dir}, ${lm.dagger.epochs} epoch(s), lr ${lr}`,
  );
  const { events, seconds } = await torchSft(ctx, scope, {
    model: o.init.dir,
    data,
    out: dir,
    mode: o.init.mode,
    rows: rows.length,
    epochs: lm.dagger.epochs,
    batch: lm.sft.batch,
    lr,
    seed: o.init.seed,
  });
  return {
    round: o.round,
    dir,
    mode: o.init.mode,
    seed: o.init.seed,
    rows: rows.length,
    relabeledRows: labelled.length,
    gaveUp,
    collectionRows: kept.length,
    epochs: lm.dagger.epochs,
    lr,
    ...sftOutcome(events, seconds, rows.length, lm.dagger.epochs, lm.sft.batch),
  };
}

// ---- rollouts and evaluation -------------------------------------------------------------------

/**
 * Greedy rollouts of an LM student on train tasks into a rollout run folder (keyed episodes, so an
 * interrupted stage resumes), every state labelled by the heuristic teacher with the note that
 * solved the task in the collection (none where it never did): the miner reads the failures, and
 * the DAgger rounds train on the labels. The rollout stage runs the SFT student into `rollout/`;
 * DAgger round r runs round r - 1's student (`student`) into its own folder (`dir`).
 */
export async function lmRolloutStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: { tasks: Task[]; student: LmModelRef; dir?: string; name?: string },
): Promise<LmRolloutResult> {
  return withLmAgentSpec(ctx, scope, o.student, (spec) =>
    rollouts(ctx, scope, {
      tasks: o.tasks,
      spec,
      dir: o.dir ?? ctx.paths.rollout,
      name: o.name ?? 'student-lm-sft',
    }),
  );
}

/**
 * The train tasks of DAgger round `round` (1-based): the next `n` of `train` after the earlier
 * rounds', wrapping around, so that each round's student meets tasks the previous rounds' rows do
 * not come from (round 1's are the rollout stage's, the first `n`).
 */
export function daggerTasks(train: readonly Task[], round: number, n: number): Task[] {
  const count = Math.min(n, train.length);
  return Array.from({ length: count }, (_, i) => train[((round - 1) * n + i) % train.length]!);
}

async function rollouts(
  ctx: PipelineContext,
  scope: StageScope,
  o: { tasks: Task[]; spec: string; dir: string; name: string },
): Promise<LmRolloutResult> {
  const lm = lmSettings(ctx);
  const notes = solvingNotes(ctx.paths.collect);
  const jobs: EpisodeJob[] = o.tasks.map((task) => ({
    task,
    key: `rollout:${o.name}:${task.id}#0`,
    round: 0,
    tags: ['rollout', 'student', `agent:${o.name}`, 'relabel:heuristic'],
    seed: ctx.settings.seed,
    expertNotes: notes.get(task.id) ?? [],
  }));
  const store = RunStore.open(o.dir);
  const agents: Agent[] = [];
  try {
    const rt = await ctx.world(false);
    let done = jobs.filter((j) => store.hasEpisode(j.key)).length;
    const bar = scope.progress(jobs.length);
    bar.update(done);
    const res = await runEpisodePool({
      jobs,
      store,
      makeAgent: async () => {
        const a = await resolveAgent(o.spec, {
          seed: ctx.settings.seed,
          greedy: true,
          threads: threadsPerWorker(ctx.preset.workers),
        });
        agents.push(a);
        return a;
      },
      makeExpert: () => resolveAgent('heuristic', { seed: ctx.settings.seed }),
      makeEnv: rt.makeEnv,
      start: rt.start,
      verify: rt.verify,
      workers: ctx.preset.workers,
      maxSteps: lm.rollout.maxSteps,
      signal: scope.signal,
      onEpisode: () => bar.update(++done),
      onError: ({ job, error }) => scope.log(`${job.key}: ${error.message}`),
    });
    const all = store.listTrajectories({ tag: 'rollout' });
    const relabeled = relabelStats(all);
    const out = {
      episodes: all.length,
      successes: all.filter((t) => t.verdict?.success === true).length,
      errors: res.errors,
      steps: all.reduce((a, t) => a + t.steps.length, 0),
      relabeled,
    };
    scope.log(
      `${out.successes}/${out.episodes} student rollouts succeeded (${out.steps} steps); the teacher labelled ${relabeled.steps} states and would have acted otherwise on ${relabeled.disagreements}`,
    );
    if (res.errors && !scope.signal.aborted)
      throw episodesNotRun('lm rollout stage', res.errors, jobs.length);
    return out;
  } finally {
    for (const a of agents) await closeAgent(a);
    store.close();
  }
}

/**
 * pass@1 of an LM (base or student) on test tasks over the preset's runs, each run under its own
 * perturbation seed (`runEval`, as evalStage), its model processes closed after.
 */
export async function lmEvalStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: { label: string; model: LmModelRef; agentName: string; tasks: Task[] },
): Promise<EvalStageResult> {
  return withLmAgentSpec(ctx, scope, o.model, (spec, route) =>
    evaluate(ctx, scope, { ...o, agentName: `${o.agentName} (${route})` }, spec),
  );
}

async function evaluate(
  ctx: PipelineContext,
  scope: StageScope,
  o: { label: string; agentName: string; tasks: Task[] },
  spec: string,
): Promise<EvalStageResult> {
  const p = ctx.preset.eval;
  const rt = await ctx.world(false);
  const total = o.tasks.length * p.runs;
  const bar = scope.progress(total);
  const agents: Agent[] = [];
  const common = {
    label: o.label,
    agentId: o.agentName,
    suite: 'world',
    tasks: o.tasks,
    store: ctx.store,
    makeAgent: async () => {
      const a = await resolveAgent(spec, {
        seed: ctx.settings.seed,
        greedy: true,
        threads: threadsPerWorker(ctx.preset.workers),
      });
      agents.push(a);
      return a;
    },
    makeEnv: rt.makeEnv,
    start: rt.start,
    verify: rt.verify,
    runs: p.runs,
    deterministicAgent: true,
    workers: ctx.preset.workers,
    maxSteps: p.maxSteps,
    signal: scope.signal,
    onEpisode: (done: number, _total: number, rate: number) => bar.update(done, { success: rate }),
  };
  try {
    let s = await runEval(common);
    if (!s.complete && !scope.signal.aborted) s = await runEval(common);
    const { complete, ...summary } = s;
    if (summary.errored && !scope.signal.aborted)
      throw episodesNotRun(`eval ${o.label}`, summary.errored, total);
    scope.log(
      `pass@1 ${(100 * summary.pass1.mean).toFixed(1)}% over ${summary.runs} run(s) x ${summary.tasks} tasks`,
    );
    return {
      label: o.label,
      agent: o.agentName,
      summary,
      complete,
      setup: { taskIds: o.tasks.map((t) => t.id), runs: p.runs, maxSteps: p.maxSteps },
    };
  } finally {
    for (const a of agents) await closeAgent(a);
  }
}

// ---- Salvage-DS --------------------------------------------------------------------------------

const CLI = fileURLToPath(new URL('../../../bin/rmsweb.js', import.meta.url));

/**
 * The mined states as lm RL rows: `rmsweb export rl --format lm` (the same renderer as the SFT
 * rows and the agent), run as a command so the stage depends on the agreed interface only.
 */
export async function lmExportRlStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: { runs: string[] },
): Promise<{ out: string; rows: number }> {
  const lm = lmSettings(ctx);
  const out = lmPaths(ctx.paths.root).rlData;
  mkdirSync(dirname(out), { recursive: true });
  const args = [CLI, 'export', 'rl', '--format', 'lm', '--critical', ctx.paths.critical, '--out', out];
  for (const r of o.runs) args.push('--run', r);
  args.push('--prompt-tokens', String(lm.promptTokens), '--json');
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
    (res, rej) => {
      const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let so = '';
      let se = '';
      proc.stdout.on('data', (d: Buffer) => {
        so += d.toString();
      });
      proc.stderr.on('data', (d: Buffer) => {
        se += d.toString();
      });
      proc.on('error', rej);
      proc.on('exit', (c) => res({ code: c ?? 1, stdout: so, stderr: se }));
    },
  );
  if (code !== 0)
    throw new RmswebError(`rmsweb export rl --format lm failed (${code}): ${stderr.trim().slice(-1500)}`, {
      code: 'EXPORT_RL',
    });
  let rows = 0;
  try {
    rows = Number((JSON.parse(stdout) as { rows?: number }).rows ?? 0);
  } catch {
    rows = readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.trim()).length;
  }
  scope.log(`${rows} mined states as lm RL rows -> ${out}`);
  return { out, rows };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** An RL run of the lm stages: Salvage-DS as the method specifies it, or an ablation's change of it. */
export interface LmRlVariant {
  algo: 'salvage-ds' | 'grpo';
  reward: 'polarized' | 'exact';
  /** Salvage-DS's salvage of groups with no contrast (off: `--no-salvage`). */
  salvage: boolean;
}

/** Salvage-DS as the method specifies it: polarized reward, salvage on. */
export const SALVAGE_DS: LmRlVariant = { algo: 'salvage-ds', reward: 'polarized', salvage: true };

/**
 * Salvage-DS (polarized reward, salvage on; or `variant`) of the SFT student `init` on the lm RL
 * rows through the torch trainer, in the chosen fine-tuning mode, with the preset's budget; its
 * curve goes to the pipeline store as `rl/<name>` (the report plots it). The student is saved in
 * `dir` (default: the Salvage-DS student of seed k).
 */
export async function lmRlStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: {
    name: string;
    init: string;
    data: string;
    states: number;
    mode: 'lora' | 'full';
    k: number;
    variant?: LmRlVariant;
    dir?: string;
  },
): Promise<LmRlResult> {
  const lm = lmSettings(ctx);
  const rl = lm.rl;
  const seed = ctx.settings.seed + o.k;
  const dir = o.dir ?? lmPaths(ctx.paths.root).rl(o.k);
  mkdirSync(dir, { recursive: true });
  const lr = rl.lr[o.mode];
  const v = o.variant ?? SALVAGE_DS;
  const args = ['rl', '--algo', v.algo, '--reward', v.reward, '--model', resolve(o.init)];
  if (!v.salvage) args.push('--no-salvage');
  args.push('--data', o.data, '--out', dir, '--steps', String(rl.steps), '--batch', String(rl.batchSize));
  args.push('--group-size', String(rl.groupSize), '--lr', String(lr), '--seed', String(seed));
  args.push('--max-new-tokens', String(rl.maxNewTokens), '--device', lm.device);
  args.push('--micro-batch', String(lm.microBatch));
  if (o.mode === 'lora') args.push('--lora');
  if (o.mode === 'lora' && rl.loraLayers > 0) args.push('--lora-layers', String(rl.loraLayers));
  // A killed stage runs this same command again, which resumes from the latest checkpoint in
  // <dir>/checkpoints (the trainer discards one of other rows or options, and removes them at the end).
  args.push('--save-steps', String(SAVE_STEPS.rl[o.mode]));
  const series = `rl/${o.name}`;
  const resuming = existsSync(join(dir, 'checkpoints'));
  const stepsBefore = resuming ? Math.max(0, ...ctx.store.listMetrics(series).map((m) => m.step)) : 0;
  const bar = scope.progress(rl.steps, undefined, Math.min(stepsBefore, rl.steps));
  await runTorchTrainer({
    args,
    signal: scope.signal,
    metricsFile: join(dir, 'rl-metrics.jsonl'),
    onEvent: (e) => {
      if (e.event !== 'step' || typeof e.step !== 'number') return;
      const values = Object.fromEntries(
        Object.entries(e).filter(([k, v]) => k.includes('/') && typeof v === 'number'),
      ) as Record<string, number>;
      ctx.store.appendMetric(series, e.step, values);
      bar.update(e.step, { reward: values[METRICS.meanReward] ?? 0 });
    },
  });
  // over every invocation that worked on the stage, as the stage table counts it
  const wallSeconds = scope.seconds();
  // The whole curve, steps before a resume included: every step event went to the store as it came.
  const steps = ctx.store
    .listMetrics(series)
    .filter((m) => m.step <= rl.steps)
    .map((m) => m.values);
  const fifth = Math.max(1, Math.floor(steps.length / 5));
  const reward = (xs: Array<Record<string, number>>) =>
    mean(xs.map((m) => m[METRICS.meanReward]).filter((x): x is number => typeof x === 'number'));
  // Generated tokens of each step's rollouts, when the trainer logs them.
  const tokens = steps
    .map((m) => m['charts/completion_tokens'])
    .filter((x): x is number => typeof x === 'number');
  const last = steps.at(-1);
  const result: LmRlResult = {
    dir,
    mode: o.mode,
    seed,
    states: o.states,
    steps: steps.length,
    rolloutsSampled: Math.round(last?.[METRICS.rolloutsTotal] ?? steps.length * rl.batchSize * rl.groupSize),
    wallSeconds,
    rewardStart: reward(steps.slice(0, fifth)),
    rewardEnd: reward(steps.slice(-fifth)),
    salvageShare: mean(
      steps.map((m) => m[METRICS.salvageShare]).filter((x): x is number => typeof x === 'number'),
    ),
    completionTokensPerSecond:
      tokens.length && wallSeconds > 0 ? tokens.reduce((a, b) => a + b, 0) / wallSeconds : null,
  };
  // Interrupted: the stage is not recorded and reruns on resume; leave no finished-looking summary.
  if (scope.signal.aborted) return result;
  writeFileAtomic(join(dir, 'lm-rl.json'), `${JSON.stringify({ ...result, init: o.init }, null, 2)}\n`);
  scope.log(
    `${result.steps} steps, ${result.rolloutsSampled} rollouts in ${wallSeconds.toFixed(0)} s; reward ${result.rewardStart?.toFixed(3) ?? 'n/a'} -> ${result.rewardEnd?.toFixed(3) ?? 'n/a'}`,
  );
  return result;
}
