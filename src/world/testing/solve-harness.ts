import { type BrowserEnv, BrowserHost } from '../../browser/index.ts';
import type { Action } from '../../core/action.ts';
import type { Observation } from '../../core/observation.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { Verdict } from '../../core/trajectory.ts';
import { startWorldEpisode } from '../episode.ts';
import { WorldServer } from '../server.ts';
import { EnvSolverDriver, type SteppableEnv } from '../solver-kit.ts';
import { generateWorldTasks, type WorldTaskOptions } from '../tasks.ts';
import type { World } from '../world.ts';
import { randomPlay } from './random-play.ts';

/**
 * Runs world tasks in real Chromium for tests: the reference solver of a task's template, or the
 * seeded random clicker. One harness holds one world server and one browser; each run gets a fresh
 * browser context and a fresh world session, and is verified in-process by the world.
 */

/** The outcome of one run of one task. */
export interface HarnessRun {
  task: Task;
  verdict: Verdict;
  /** Actions the solver (or random agent) took, `done` included. */
  actions: number;
  answer: string | null;
  /** Set when the solver threw (a broken page or solver); the verdict is then a failure too. */
  error?: string;
  ms: number;
}

/** Records the answer of the `done` action while passing every action to the env. */
class RecordingEnv implements SteppableEnv {
  answer: string | null = null;
  actions = 0;
  constructor(private readonly env: BrowserEnv) {}
  step(action: Action): Promise<Observation> {
    this.actions++;
    if (action.type === 'done') this.answer = action.text;
    return this.env.step(action);
  }
  observe(): Promise<Observation> {
    return this.env.observe();
  }
}

export class WorldHarness {
  private env: BrowserEnv | null = null;

  private constructor(
    readonly server: WorldServer,
    readonly host: BrowserHost,
  ) {}

  /** Starts a world server (free port) and a headless Chromium. */
  static async open(opts: { seed?: number } = {}): Promise<WorldHarness> {
    const server = await WorldServer.start({ port: 0, seed: opts.seed });
    try {
      const host = await BrowserHost.launch();
      return new WorldHarness(server, host);
    } catch (e) {
      await server.stop();
      throw e;
    }
  }

  get world(): World {
    return this.server.world;
  }

  get origin(): string {
    return this.server.url;
  }

  /** The world's tasks (start URLs keep the canonical origin; runs rewrite them to this server). */
  tasks(opts: Omit<WorldTaskOptions, 'world' | 'seed'> = {}): Task[] {
    return generateWorldTasks({ ...opts, world: this.world, seed: this.world.seed });
  }

  private async environment(): Promise<BrowserEnv> {
    if (!this.env) {
      this.env = await this.host.newEnv({
        screenshot: { enabled: false },
        allowlist: [this.origin],
        settleMs: 100,
      });
    }
    return this.env;
  }

  private async run(
    task: Task,
    play: (env: RecordingEnv, first: Observation) => Promise<void>,
    perturb = 0,
  ): Promise<HarnessRun> {
    const t0 = Date.now();
    const env = await this.environment();
    const { sessionId, observation } = await startWorldEpisode(env, task, this.origin, undefined, {
      perturb,
    });
    const rec = new RecordingEnv(env);
    let error: string | undefined;
    try {
      await play(rec, observation);
    } catch (e) {
      error = (e as Error).message;
    }
    const actions = rec.actions;
    const verdict = this.world.verify(task, sessionId, rec.answer);
    if (error) verdict.success = false;
    return { task, verdict, actions, answer: rec.answer, error, ms: Date.now() - t0 };
  }

  /** Runs the reference solver of the task's template, under a world perturbation seed (0: none). */
  solve(task: Task, opts: { perturb?: number } = {}): Promise<HarnessRun> {
    if (task.verifier.kind !== 'world') throw new Error(`task ${task.id} is not a world task`);
    const entry = this.world.template(task.verifier.template);
    if (!entry) throw new Error(`task ${task.id}: unknown template ${task.verifier.template}`);
    const params = task.verifier.params;
    return this.run(
      task,
      async (env, first) => {
        await entry.template.solve(params, new EnvSolverDriver(env, first), entry.site.data);
      },
      opts.perturb,
    );
  }

  /** Runs the seeded random clicker for `steps` actions, then a random `done`. */
  random(task: Task, opts: { seed: number; steps?: number }): Promise<HarnessRun> {
    return this.run(task, async (env, first) => {
      await randomPlay(env, first, new Rng(`${opts.seed}:${task.id}`), opts.steps ?? 15);
    });
  }

  async close(): Promise<void> {
    await this.env?.close().catch(() => {});
    await this.host.close().catch(() => {});
    await this.server.stop();
  }
}

/** Draws `perTemplate` tasks of every template (seeded), for sampled solver and random-play tests. */
export function sampleByTemplate(
  tasks: Task[],
  perTemplate: number,
  seed: number | string = 'sample',
): Task[] {
  const groups = new Map<string, Task[]>();
  for (const t of tasks) {
    const key = t.verifier.kind === 'world' ? t.verifier.template : t.id;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const rng = new Rng(`${seed}`);
  const out: Task[] = [];
  for (const [, group] of [...groups].sort(([a], [b]) => a.localeCompare(b)))
    out.push(...rng.shuffle(group).slice(0, perTemplate));
  return out;
}

/** A one-line summary of a run for test logs. */
export function describeRun(r: HarnessRun): string {
  const status = r.verdict.success ? 'ok ' : 'FAIL';
  const ref = r.task.referenceLength ?? 0;
  return `${status} ${r.task.id} actions=${r.actions} ref=${ref} ${r.ms}ms${r.error ? ` error=${r.error}` : ''}${r.verdict.success ? '' : ` ${r.verdict.reason}`}`;
}

/**
 * Solves each task under one of several non-zero perturbation seeds in turn (the answer and the
 * verifier do not change with the seed) and describes the runs that failed: none, when the
 * privileged solvers cope with perturbed pages.
 */
export async function failuresUnderPerturbation(
  h: WorldHarness,
  tasks: Task[],
  seeds: readonly number[] = [11, 23, 37, 41],
): Promise<string[]> {
  const failed: string[] = [];
  for (const [i, t] of tasks.entries()) {
    const run = await h.solve(t, { perturb: seeds[i % seeds.length] });
    if (!run.verdict.success) failed.push(describeRun(run));
  }
  return failed;
}
