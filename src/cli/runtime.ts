import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { Agent } from '../agent/agent.ts';
import type { EpisodeEnv } from '../agent/episode.ts';
import { HeuristicAgent } from '../agent/heuristic/heuristic-agent.ts';
import { LlmAgent } from '../agent/llm-agent.ts';
import { LmAgent } from '../agent/lm-agent.ts';
import { RandomAgent } from '../agent/random-agent.ts';
import { BrowserHost } from '../browser/index.ts';
import { LlmReflector } from '../collect/llm-reflector.ts';
import type { Reflector } from '../collect/reflector.ts';
import { RulesReflector } from '../collect/rules-reflector.ts';
import { InputError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';
import {
  AnswerMatchVerifier,
  RubricVerifier,
  type Verifier,
  WebJudge,
  WebVoyagerJudge,
} from '../judge/index.ts';
import { worldVerifier } from '../judge/world-verifier.ts';
import { HfChatModel } from '../models/hf-chat-model.ts';
import { HfCompletionModel } from '../models/hf-completion-model.ts';
import { createChatModel } from '../models/openai-chat-model.ts';
import { createCompletionModel } from '../models/text-completion.ts';
import { readCheckpoint } from '../policy/checkpoint.ts';
import { loadPolicyAgent } from '../policy/policy-agent.ts';
import { ensureWorld, probeWorld } from '../world/ensure.ts';
import { startWorldEpisode } from '../world/episode.ts';
import { DEFAULT_WORLD_SEED } from '../world/split.ts';

/** Browser and world settings shared by every command that runs episodes. */
export interface RuntimeOptions {
  /** World port (default 7311); a running world with the same seed is reused, else one starts in-process. */
  port?: number;
  seed?: number;
  /** Connect to a remote browser (Playwright's launchServer / connect) instead of launching Chromium. */
  browserWs?: string;
  /** Take screenshots (default true). */
  screenshots?: boolean;
  /** JPEG quality (default 60). */
  screenshotQuality?: number;
}

/** A running world plus a browser: what episodes on world tasks need. */
export interface WorldRuntime {
  origin: string;
  host: BrowserHost;
  makeEnv(): Promise<EpisodeEnv & { close(): Promise<void> }>;
  start(
    env: EpisodeEnv,
    task: Task,
    ctx?: { perturb: number },
  ): Promise<{
    observation: Trajectory['steps'][number]['observation'];
    sessionId?: string;
    perturb?: number;
  }>;
  verify(trajectory: Trajectory): Promise<Verdict>;
  close(): Promise<void>;
}

/**
 * Whether an agent's episodes take screenshots unless told (`--screenshots`/`--no-screenshots`):
 * the local student (`policy:`) reads only the element list, so its rollouts and evaluations skip
 * them (a screenshot costs about as much as the rest of an observation); other agents keep them
 * for vision models and the viewer. An LLM judge (`openai:`) reads them, so it keeps them too.
 */
export function screenshotsFor(
  agentSpec: string,
  opts: { override?: boolean; judge?: string } = {},
): boolean {
  if (opts.override !== undefined) return opts.override;
  if (opts.judge?.startsWith('openai:')) return true;
  return !agentSpec.startsWith('policy:') && !agentSpec.startsWith('lm:');
}

/** Starts (or reuses) the offline world and a browser. */
export async function openWorldRuntime(o: RuntimeOptions = {}): Promise<WorldRuntime> {
  let world = await ensureWorld({ port: o.port, seed: o.seed });
  let host: BrowserHost;
  try {
    host = o.browserWs ? await BrowserHost.connect(o.browserWs) : await BrowserHost.launch();
  } catch (e) {
    await world.stop();
    throw e;
  }
  // A reused world belongs to the process that started it and ends with it (a collection that
  // finishes while an eval still runs): then this process starts its own, on the same port.
  let takingOver: Promise<void> | null = null;
  const keepWorld = async () => {
    if (world.server) return;
    takingOver ??= (async () => {
      const port = Number(new URL(world.origin).port);
      if (!(await probeWorld(port, o.seed ?? DEFAULT_WORLD_SEED)))
        world = await ensureWorld({ port, seed: o.seed });
    })().finally(() => {
      takingOver = null;
    });
    await takingOver;
  };
  return {
    get origin() {
      return world.origin;
    },
    get host() {
      return host;
    },
    makeEnv: async () => {
      // A crashed local Chromium is relaunched, so the episode that died with it can be retried.
      if (!host.isConnected && !o.browserWs) host = await BrowserHost.launch();
      return host.newEnv({
        allowlist: [world.origin],
        screenshot: { enabled: o.screenshots ?? true, quality: o.screenshotQuality ?? 60 },
      });
    },
    start: async (env, task, ctx) => {
      await keepWorld();
      const r = await startWorldEpisode(env, task, world.origin, undefined, { perturb: ctx?.perturb });
      return { observation: r.observation, sessionId: r.sessionId, perturb: r.perturb };
    },
    verify: (trajectory) => worldVerifier(world.origin)(trajectory),
    close: async () => {
      await host.close().catch(() => {});
      await world.stop();
    },
  };
}

/**
 * Resolves an agent spec: `heuristic` (the offline teacher), `random` (a seeded random clicker,
 * the floor), `openai:<model>[@<url>]` (any OpenAI-compatible endpoint), `policy:<dir>` (the local
 * student checkpoint), `hf:<dir>` (a Hugging Face causal LM, e.g. one `--backend torch` trained, run
 * with transformers in a Python process; text only, greedy, the export's prompt), `lm:openai:<model>
 * [@<url>]` (a language-model student in its compact layout, `export sft --format lm`, behind an
 * OpenAI-compatible `/completions` endpoint; greedy) and `lm:hf:<dir>` (the same student as a
 * Hugging Face checkpoint or .gguf, continued greedily by transformers in a Python process; its
 * budget is the one its rmsweb-trainer.json records, else the default).
 */
export async function resolveAgent(
  spec: string,
  opts: {
    seed?: number;
    greedy?: boolean;
    /** torch CPU threads of an `lm:hf:` agent's process (see {@link threadsPerWorker}). */
    threads?: number;
  } = {},
): Promise<Agent> {
  if (spec === 'heuristic') return new HeuristicAgent();
  if (spec === 'random') return new RandomAgent(opts.seed ?? 0);
  if (spec.startsWith('openai:')) return new LlmAgent({ model: createChatModel(spec, { role: 'teacher' }) });
  if (spec.startsWith('lm:')) {
    const model = lmCompletionModel(spec, 'agent', opts.threads);
    const promptTokens = model instanceof HfCompletionModel ? trainedPromptTokens(model.id) : undefined;
    return new LmAgent({ model, promptTokens });
  }
  if (spec.startsWith('policy:'))
    return loadPolicyAgent(spec.slice('policy:'.length), { seed: opts.seed, greedy: opts.greedy });
  if (spec.startsWith('hf:')) {
    const dir = spec.slice('hf:'.length);
    if (!dir)
      throw new InputError('hf: needs a checkpoint folder, e.g. hf:models/torch-rl', { field: 'agent' });
    return new LlmAgent({ model: new HfChatModel(dir), vision: false, maxTokens: 256 });
  }
  throw new InputError(`unknown agent "${spec}"; use ${AGENT_SPECS}`, { field: 'agent' });
}

/**
 * torch CPU threads for each of `workers` model processes on this machine's cores: at least one,
 * and no more than a fair share, since oversubscribed OpenMP threads wait on each other.
 */
export function threadsPerWorker(workers: number): number {
  return Math.max(1, Math.floor(availableParallelism() / Math.max(1, workers)));
}

/** The agent specs, as help texts and errors list them. */
export const AGENT_SPECS =
  'heuristic, random, openai:<model>[@<url>], policy:<dir>, hf:<dir>, lm:openai:<model>[@<url>] or lm:hf:<dir>';

/** The completion model of an `lm:` spec: `lm:openai:<model>[@<url>]` or `lm:hf:<dir>`. */
function lmCompletionModel(spec: string, field = 'agent', threads?: number) {
  const inner = spec.slice('lm:'.length);
  if (inner.startsWith('hf:')) {
    const dir = inner.slice('hf:'.length);
    if (!dir)
      throw new InputError('lm:hf: needs a checkpoint folder or .gguf, e.g. lm:hf:models/lm-sft', { field });
    return new HfCompletionModel(dir, { field, threads });
  }
  if (!inner.startsWith('openai:'))
    throw new InputError(
      `"${spec}": an lm: agent takes an OpenAI-compatible endpoint, lm:openai:<model>[@<url>], or a checkpoint, lm:hf:<dir>`,
      { field },
    );
  return createCompletionModel(inner, { role: 'teacher' });
}

// What `--agent lm:hf:DIR` reads of the trainer's record (trainer/rmsweb_trainer/data.py, layout_meta).
const TrainerRecord = z.object({
  layout: z.string().optional(),
  promptTokens: z.number().int().positive().optional(),
});

/**
 * The compact observation's budget an lm checkpoint was trained with: `promptTokens` of its
 * rmsweb-trainer.json when it trained on lm rows, else undefined (LmAgent's default). A student
 * prompted with another budget than its training's sees other pages than it learned from.
 */
export function trainedPromptTokens(dir: string): number | undefined {
  const file = join(dir, 'rmsweb-trainer.json');
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file, field: '--agent' });
  }
  const r = TrainerRecord.safeParse(raw);
  if (!r.success)
    throw new InputError(`field ${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`, {
      file,
      field: '--agent',
    });
  return r.data.layout === 'lm' ? r.data.promptTokens : undefined;
}

/**
 * Checks an agent spec without running anything, so a command refuses before it creates its run
 * folder: the spec's kind, an `openai:` endpoint's key (building the client reads it, sends
 * nothing), a `policy:` folder's checkpoint. Throws InputError naming `field`.
 */
export function checkAgentSpec(spec: string, field = '--agent'): void {
  if (spec === 'heuristic' || spec === 'random') return;
  if (spec.startsWith('openai:')) {
    createChatModel(spec, { role: 'teacher' });
    return;
  }
  if (spec.startsWith('policy:')) {
    readCheckpoint(spec.slice('policy:'.length));
    return;
  }
  if (spec.startsWith('lm:')) {
    lmCompletionModel(spec, field);
    return;
  }
  if (spec.startsWith('hf:')) {
    const dir = spec.slice('hf:'.length);
    if (!dir || !existsSync(join(dir, 'config.json')))
      throw new InputError(`${dir || '(empty)'}: not a Hugging Face checkpoint folder (no config.json)`, {
        field,
      });
    return;
  }
  throw new InputError(`unknown agent "${spec}"; use ${AGENT_SPECS}`, { field });
}

/**
 * Whether an agent spec decides the same way on the same page every time: the heuristic teacher,
 * the random clicker (reseeded per task) and the student decoding greedily. An LLM endpoint samples.
 */
export function isDeterministicAgent(spec: string, opts: { greedy?: boolean } = {}): boolean {
  if (spec === 'heuristic' || spec === 'random') return true;
  if (spec.startsWith('policy:')) return opts.greedy ?? true;
  if (spec.startsWith('hf:') || spec.startsWith('lm:')) return true; // decoded greedily
  return false;
}

/** Resolves a reflector spec: `rules` (offline) or an `openai:` model. */
export function resolveReflector(spec: string): Reflector {
  if (spec === 'rules') return new RulesReflector();
  if (spec.startsWith('openai:')) return new LlmReflector(createChatModel(spec, { role: 'reflector' }));
  throw new InputError(`unknown reflector "${spec}"; use rules or openai:<model>[@<url>]`, {
    field: 'reflector',
  });
}

/** A browser for the live web (no world): episodes start at the task's own URL. */
export async function openWebRuntime(
  o: RuntimeOptions & { allowlist?: string[] } = {},
): Promise<Omit<WorldRuntime, 'origin' | 'verify' | 'start'>> {
  const host = o.browserWs ? await BrowserHost.connect(o.browserWs) : await BrowserHost.launch();
  return {
    host,
    makeEnv: () =>
      host.newEnv({
        ...(o.allowlist ? { allowlist: o.allowlist } : {}),
        screenshot: { enabled: o.screenshots ?? true, quality: o.screenshotQuality ?? 60 },
      }),
    close: () => host.close().catch(() => {}),
  };
}

/**
 * Resolves `--judge` for a live suite: `answer` (offline reference-answer match, heuristic), or an
 * `openai:` model as the suite's judge (WebVoyager: screenshots + answer; Online-Mind2Web: WebJudge;
 * WebTailBench: rubric). The verifier reads screenshots from the in-memory trajectory.
 */
export function resolveLiveJudge(suite: string, spec: string): (t: Trajectory) => Promise<Verdict> {
  let verifier: Verifier;
  if (spec === 'answer') verifier = new AnswerMatchVerifier();
  else if (spec.startsWith('openai:')) {
    const model = createChatModel(spec, { role: 'judge' });
    verifier =
      suite === 'online-mind2web'
        ? new WebJudge({ model })
        : suite === 'webtailbench'
          ? new RubricVerifier({ model })
          : new WebVoyagerJudge({ model });
  } else
    throw new InputError(`unknown judge "${spec}"; use openai:MODEL[@URL] or answer`, { field: '--judge' });
  return (trajectory) =>
    verifier.verify({
      task: trajectory.task,
      trajectory,
      finalAnswer: trajectory.finalAnswer,
      loadImage: async (hash) => {
        const step = trajectory.steps.find((s) => s.observation.screenshot?.hash === hash);
        const data = step?.observation.screenshot?.data;
        return data ? Buffer.from(data, 'base64') : null;
      },
    });
}
