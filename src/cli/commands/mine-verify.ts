import { solvingNotes } from '../../collect/solving-notes.ts';
import type { CriticalState, Task, Trajectory } from '../../core/index.ts';
import {
  baselineTargets,
  DEFAULT_COMPARABILITY_WEIGHTS,
  DEFAULT_REPLAY_THRESHOLD,
  type LocalBranchRunner,
  minerTargets,
  openJournal,
  type RemoteBranchRunner,
  summarizeVerification,
  type VerificationSummary,
  type VerifiedTarget,
  verifyTargets,
} from '../../mine/index.ts';
import type { EpisodeQueue } from '../../queue/episode-queue.ts';
import { parseRedisUrl } from '../../queue/job-data.ts';
import { queuedBranchRunner } from '../../queue/queued-verify.ts';
import { RunStore } from '../../store/index.ts';
import { DEFAULT_WORLD_SEED } from '../../world/split.ts';
import { abortOnSigint } from '../parse-options.ts';
import { createProgress } from '../progress.ts';
import { openQueueCoordinator } from '../queue-mode.ts';
import { openWorldRuntime, resolveAgent } from '../runtime.ts';

/** Options of `mine --verify` (parsed by the mine command). */
export interface MineVerifyOptions {
  runs: string[];
  out: string;
  policy: string;
  replayThreshold?: number;
  workers: number;
  worldSeed?: number;
  maxSteps?: number;
  seed: number;
  baselines: boolean;
  port?: number;
  browserWs?: string;
  progress?: boolean;
  /** Run the branches on queue workers (`rmsweb worker --redis URL`) instead of in this process. */
  queue?: string;
  /** Reports progress to the caller (a pipeline stage's bar) instead of drawing a bar of its own. */
  onProgress?: (done: number, total: number) => void;
}

/** `runs/x/critical.jsonl` -> `runs/x/critical.verify-queue`: the run store of queued branch episodes. */
export function queueStorePathFor(out: string): string {
  return `${out.replace(/\.jsonl?$/i, '')}.verify-queue`;
}

/** `runs/x/critical.jsonl` -> `runs/x/critical.verify.jsonl`: one finished branch a line. */
export function journalPathFor(out: string): string {
  return `${out.replace(/\.jsonl?$/i, '')}.verify.jsonl`;
}

/** `runs/x/critical.jsonl` -> `runs/x/critical.baselines.jsonl`: the baselines' checked states. */
export function baselinesPathFor(out: string): string {
  return `${out.replace(/\.jsonl?$/i, '')}.baselines.jsonl`;
}

/** The collection settings of the first run that has them (world seed, step budget). */
function collectConfig(runs: string[]): { worldSeed?: number; maxSteps?: number } {
  for (const dir of runs) {
    const store = RunStore.open(dir, { create: false, readonly: true });
    try {
      const stages = store.readManifest()?.stages as
        | Record<string, { config?: Record<string, unknown> }>
        | undefined;
      for (const name of ['collect', 'rollout', 'eval']) {
        const c = stages?.[name]?.config;
        if (c && typeof c.worldSeed === 'number')
          return {
            worldSeed: c.worldSeed,
            maxSteps: typeof c.maxSteps === 'number' ? c.maxSteps : undefined,
          };
      }
    } finally {
      store.close();
    }
  }
  return {};
}

/**
 * Verifies the miner's critical states (and, unless turned off, the two baselines on the same pairs)
 * in this process's browser or on queue workers: see src/mine/verify.ts. Returns the miner's states with their
 * verification attached, the baselines' results, and the summary.
 */
export async function runMineVerify(
  states: readonly CriticalState[],
  trajectories: readonly Trajectory[],
  o: MineVerifyOptions,
): Promise<{ states: CriticalState[]; baselines: VerifiedTarget[]; summary: VerificationSummary }> {
  const byId = new Map(trajectories.map((t) => [t.id, t]));
  const { targets, skipped } = minerTargets(states, byId);
  const all = o.baselines ? [...targets, ...baselineTargets(targets, o.seed)] : targets;
  const fromRun = collectConfig(o.runs);
  const worldSeed = o.worldSeed ?? fromRun.worldSeed ?? DEFAULT_WORLD_SEED;
  const maxSteps = o.maxSteps ?? fromRun.maxSteps ?? 30;
  const replayThreshold = o.replayThreshold ?? DEFAULT_REPLAY_THRESHOLD;

  // The continuation is the teacher configuration verified to solve each task: its solving notes.
  const notes = new Map<string, string[]>();
  for (const dir of o.runs)
    for (const [task, n] of solvingNotes(dir)) if (!notes.has(task)) notes.set(task, n);

  const journal = openJournal(journalPathFor(o.out));
  if (o.queue) parseRedisUrl(o.queue, '--queue');
  const rt =
    all.length && !o.queue
      ? await openWorldRuntime({ port: o.port, seed: worldSeed, browserWs: o.browserWs })
      : null;
  let store: RunStore | null = null;
  let queue: EpisodeQueue | null = null;
  const sig = abortOnSigint('mine --verify');
  const bar = o.onProgress ? null : createProgress('verify', 1, { force: o.progress });
  let results: Awaited<ReturnType<typeof verifyTargets>>;
  try {
    const notesFor = (task: Task) => notes.get(task.id) ?? [];
    let runner: LocalBranchRunner | { runBranch: RemoteBranchRunner };
    if (o.queue && all.length) {
      store = RunStore.open(queueStorePathFor(o.out));
      queue = await openQueueCoordinator(o.queue, store);
      runner = {
        runBranch: queuedBranchRunner({
          queue,
          agent: o.policy,
          agentSeed: o.seed,
          runtime: { kind: 'world', worldSeed },
          maxSteps,
          notesFor,
          threshold: replayThreshold,
          weights: { ...DEFAULT_COMPARABILITY_WEIGHTS },
          signal: sig.signal,
        }),
      };
    } else {
      runner = {
        makeEnv: () => rt!.makeEnv(),
        start: (env, task, ctx) => rt!.start(env, task, ctx),
        verify: (t) => rt!.verify(t),
        makeAgent: () => resolveAgent(o.policy, { seed: o.seed }),
      };
    }
    results = await verifyTargets(all, {
      ...runner,
      // The replay threshold is part of the key: a branch judged under another one is run again.
      policyId: `${o.policy}@${replayThreshold}`,
      notesFor,
      maxSteps,
      replayThreshold,
      worldSeed,
      workers: o.workers,
      journal,
      signal: sig.signal,
      onProgress: (done, total) => {
        o.onProgress?.(done, total);
        bar?.setTotal(total);
        bar?.update(done);
      },
      onError: (key, e) => process.stderr.write(`\nverify: branch ${key}: ${e.message}\n`),
    });
  } finally {
    bar?.stop();
    sig.dispose();
    await rt?.close();
    await queue?.close();
    store?.close();
  }
  if (sig.signal.aborted) process.exitCode = 130;
  const byState = new Map(
    results.results
      .filter((r) => r.target.method === 'miner' && !r.errored)
      .map((r) => [r.target.id, r.verification]),
  );
  const summary = summarizeVerification(results.results, {
    cost: { episodes: results.episodes, wallMs: results.wallMs, fromJournal: results.fromJournal },
    options: { policy: o.policy, replayThreshold, maxSteps, workers: o.workers, seed: o.seed },
    skipped,
  });
  return {
    states: states.map((cs) => {
      const v = byState.get(cs.id);
      return v ? { ...cs, verification: v } : cs;
    }),
    baselines: results.results.filter((r) => r.target.method !== 'miner'),
    summary,
  };
}
