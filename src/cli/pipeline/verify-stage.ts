import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CriticalState, describeZodIssues, InputError } from '../../core/index.ts';
import { RunStore, writeFileAtomic } from '../../store/index.ts';
import { runMineVerify } from '../commands/mine-verify.ts';
import type { PipelineContext } from './context.ts';
import type { StageScope } from './stage.ts';
import { canonicalWorldUrls } from './student-stages.ts';

/** What the verification stage stored: the verified states' file and their labels. */
export interface VerifyStageResult {
  /** critical.jsonl with each state's `verification` attached (what `rl --confirmed-only` reads). */
  file: string;
  states: number;
  confirmed: number;
  notCausal: number;
  replayFailed: number;
  /** Branch episodes this stage ran, and its wall seconds. */
  episodes: number;
  wallSeconds: number;
}

function readStates(file: string): CriticalState[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => ({ line, i }))
    .filter(({ line }) => line.trim())
    .map(({ line, i }) => {
      const r = CriticalState.safeParse(JSON.parse(line));
      if (!r.success)
        throw new InputError(`critical state is invalid: ${describeZodIssues(r.error.issues)}`, {
          file,
          line: i + 1,
        });
      return r.data;
    });
}

/**
 * Causal verification of the mined states (as `rmsweb mine --verify --no-baselines` with the
 * heuristic teacher as continuation): each state is replayed, branched on both actions and judged.
 * Writes the states with their labels beside the mined file; resumable through the branch journal.
 */
export async function verifyCriticalStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: {
    /** The run folders the states were mined from (those that do not exist are skipped). */
    runs: string[];
    critical: string;
    /** Where the verified states go (the branch journal goes beside it). */
    out: string;
    seed: number;
  },
): Promise<VerifyStageResult> {
  const t0 = performance.now();
  const states = readStates(o.critical);
  const runs = o.runs.filter((dir) => existsSync(join(dir, 'store.sqlite')));
  const trajectories = runs.flatMap((dir) => {
    const s = RunStore.open(dir, { create: false, readonly: true });
    try {
      return s.listTrajectories().map(canonicalWorldUrls);
    } finally {
      s.close();
    }
  });
  const out = o.out;
  mkdirSync(dirname(out), { recursive: true });
  let bar: ReturnType<StageScope['progress']> | null = null;
  const v = await runMineVerify(states, trajectories, {
    runs,
    out,
    policy: 'heuristic',
    workers: ctx.preset.workers,
    worldSeed: ctx.settings.worldSeed,
    seed: o.seed,
    baselines: false,
    port: ctx.settings.port,
    onProgress: (done, total) => {
      bar ??= scope.progress(total);
      bar.update(done);
    },
  });
  const lines = v.states.map((cs) => JSON.stringify(cs));
  writeFileAtomic(out, lines.length ? `${lines.join('\n')}\n` : '');
  const count = (label: string) => v.states.filter((cs) => cs.verification?.label === label).length;
  const r: VerifyStageResult = {
    file: out,
    states: v.states.length,
    confirmed: count('confirmed'),
    notCausal: count('not-causal'),
    replayFailed: count('replay-failed'),
    episodes: v.summary.cost.episodes,
    wallSeconds: (performance.now() - t0) / 1000,
  };
  scope.log(
    `${r.confirmed} of ${r.states} critical states confirmed (${r.notCausal} not causal, ${r.replayFailed} replay failed); ${r.episodes} branch episodes`,
  );
  return r;
}
