import type { CriticalVerification, Task, VerificationLabel } from '../core/index.ts';
import type { BranchJournal } from './branch-journal.ts';
import {
  type BranchJob,
  type BranchResult,
  type LocalBranchRunner,
  type RemoteBranchRunner,
  runLocalBranch,
} from './branches.ts';
import { type ComparabilityWeights, DEFAULT_COMPARABILITY_WEIGHTS } from './comparability.ts';
import { DEFAULT_REPLAY_THRESHOLD } from './replay.ts';
import type { VerifyTarget } from './verify-targets.ts';

/**
 * Causal verification of critical states. A critical state claims that at one state of a success
 * run, the success action leads to success and the failure action leads to failure. The offline world
 * is resettable and every task has a verifier, so the claim can be checked: reset a fresh session
 * under the recorded world and perturbation seeds, replay the success side's actions up to the state,
 * check the page reached is the recorded one (by the miner's own comparability), then branch twice,
 * once per action, and let the same continuation policy finish both branches.
 *
 * The parts: verify-targets.ts (which states), replay.ts (the replaying agent), branches.ts (one
 * branch episode and its result), branch-journal.ts (resuming); this file runs them and labels.
 */

export type VerifyOptions = (LocalBranchRunner | { runBranch: RemoteBranchRunner }) & VerifyCommon;

interface VerifyCommon {
  policyId: string;
  /** The notes the continuation reads on a task: those of the attempt that solved it. */
  notesFor: (task: Task) => string[];
  /** Step budget of a whole branch episode, prefix included (the collection's; default 30). */
  maxSteps?: number;
  replayThreshold?: number;
  weights?: Partial<ComparabilityWeights>;
  worldSeed?: number;
  workers?: number;
  /** Retries of a branch whose episode threw (a browser that died), default 1. */
  retries?: number;
  journal?: BranchJournal;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  onError?: (key: string, error: Error) => void;
}

/** The verification of one target, with its method. */
export interface VerifiedTarget {
  target: VerifyTarget;
  verification: CriticalVerification;
  /** True when a branch could not run (an episode error): not journaled, a rerun retries it. */
  errored: boolean;
}

function successKey(policy: string, t: VerifyTarget): string {
  return `${policy}|s|${t.success.id}|${t.i}`;
}

function failureKey(policy: string, t: VerifyTarget): string {
  return `${policy}|f|${t.success.id}|${t.i}|${t.failure.id}|${t.j}`;
}

function labelFor(s: BranchResult, f: BranchResult): { label: VerificationLabel; reason: string } {
  if (!s.reproduced || !f.reproduced || !s.branch || !f.branch)
    return {
      label: 'replay-failed',
      reason: (s.reproduced ? f.detail : s.detail) || 'the prefix did not reproduce',
    };
  const ok = s.branch.success;
  const bad = f.branch.success;
  if (ok && !bad)
    return {
      label: 'confirmed',
      reason: 'the success action leads to success and the failure action to failure',
    };
  if (ok && bad)
    return {
      label: 'not-causal',
      reason: f.branch.applicable
        ? 'both branches succeed: the continuation recovers from the failure action'
        : 'both branches succeed: the failure action has no counterpart on this page',
    };
  if (!ok && !bad)
    return { label: 'not-causal', reason: 'both branches fail: the continuation cannot finish from here' };
  return { label: 'not-causal', reason: 'only the failure branch succeeds' };
}

/**
 * Verifies targets: runs each distinct branch once (the success branch of a state is shared by every
 * method that picks it), `workers` at a time, skipping branches already in the journal, then labels
 * every target from its two branches. Results come back in target order.
 */
export async function verifyTargets(
  targets: readonly VerifyTarget[],
  opts: VerifyOptions,
): Promise<{ results: VerifiedTarget[]; episodes: number; wallMs: number; fromJournal: number }> {
  const weights: ComparabilityWeights = { ...DEFAULT_COMPARABILITY_WEIGHTS, ...opts.weights };
  const policy = opts.policyId;
  const threshold = opts.replayThreshold ?? DEFAULT_REPLAY_THRESHOLD;
  const jobs = new Map<string, BranchJob>();
  for (const t of targets) {
    const sk = successKey(policy, t);
    if (!jobs.has(sk)) {
      const step = t.success.steps[t.i];
      jobs.set(sk, { key: sk, success: t.success, i: t.i, action: step.action, from: step.observation });
    }
    const fk = failureKey(policy, t);
    if (!jobs.has(fk)) {
      const step = t.failure.steps[t.j];
      jobs.set(fk, { key: fk, success: t.success, i: t.i, action: step.action, from: step.observation });
    }
  }
  const done = new Map<string, BranchResult>();
  const errors = new Map<string, string>();
  let fromJournal = 0;
  const pending: BranchJob[] = [];
  for (const job of jobs.values()) {
    const saved = opts.journal?.get(job.key);
    if (saved) {
      done.set(job.key, saved);
      fromJournal++;
    } else pending.push(job);
  }
  let finished = done.size;
  opts.onProgress?.(finished, jobs.size);
  let episodes = 0;
  const started = performance.now();
  /** Runs one job with retries; records it done, or its error. */
  const attempt = async (run: () => Promise<BranchResult>, job: BranchJob, reopen: () => Promise<void>) => {
    for (let n = 0; ; n++) {
      try {
        const r = await run();
        episodes++;
        done.set(job.key, r);
        opts.journal?.put(r);
        return;
      } catch (e) {
        if (opts.signal?.aborted) return;
        if (n < (opts.retries ?? 1)) {
          await reopen();
          continue;
        }
        errors.set(job.key, (e as Error).message);
        opts.onError?.(job.key, e as Error);
        return;
      }
    }
  };
  const remote = 'runBranch' in opts ? opts.runBranch : null;
  const local = 'runBranch' in opts ? null : opts;
  const worker = async () => {
    if (remote) {
      for (;;) {
        if (opts.signal?.aborted) return;
        const job = pending.shift();
        if (!job) return;
        await attempt(
          () => remote(job),
          job,
          async () => {},
        );
        if (opts.signal?.aborted) return;
        opts.onProgress?.(++finished, jobs.size);
      }
    }
    const l = local!;
    let env = await l.makeEnv();
    const agent = await l.makeAgent();
    try {
      for (;;) {
        if (opts.signal?.aborted) return;
        const job = pending.shift();
        if (!job) return;
        await attempt(
          () =>
            runLocalBranch(job, env, agent, {
              start: l.start,
              verify: l.verify,
              notes: opts.notesFor(job.success.task),
              maxSteps: opts.maxSteps ?? 30,
              threshold,
              weights,
              signal: opts.signal,
            }),
          job,
          async () => {
            await env.close().catch(() => {});
            env = await l.makeEnv();
          },
        );
        if (opts.signal?.aborted) return;
        opts.onProgress?.(++finished, jobs.size);
      }
    } finally {
      await env.close().catch(() => {});
      await agent.close?.();
    }
  };
  // Nothing to run (all journaled, or no targets): open no browser at all.
  if (pending.length)
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(opts.workers ?? 2, pending.length)) }, worker),
    );
  const wallMs = Math.round(performance.now() - started);

  const now = new Date().toISOString();
  const results: VerifiedTarget[] = [];
  for (const t of targets) {
    const s = done.get(successKey(policy, t));
    const f = done.get(failureKey(policy, t));
    const notes = opts.notesFor(t.success.task).length;
    const common = {
      policy,
      notes,
      ...(opts.worldSeed !== undefined ? { worldSeed: opts.worldSeed } : {}),
      perturbSeed: t.success.perturbSeed ?? 0,
      verifiedAt: now,
    };
    if (!s || !f) {
      const why = errors.get(successKey(policy, t)) ?? errors.get(failureKey(policy, t)) ?? 'not run';
      results.push({
        target: t,
        errored: true,
        verification: {
          ...common,
          label: 'replay-failed',
          reason: `a branch could not run: ${why}`,
          replay: {
            reproduced: false,
            comparability: 0,
            threshold,
            detail: why,
          },
          success: s?.branch ?? null,
          failure: f?.branch ?? null,
          episodes: 0,
          wallMs: 0,
        },
      });
      continue;
    }
    const { label, reason } = labelFor(s, f);
    const replayed = s.reproduced ? f : s;
    results.push({
      target: t,
      errored: false,
      verification: {
        ...common,
        label,
        reason,
        replay: {
          reproduced: s.reproduced && f.reproduced,
          comparability: Math.min(s.comparability, f.comparability),
          threshold,
          detail: replayed.detail,
        },
        success: s.branch,
        failure: f.branch,
        episodes: 2,
        wallMs: s.wallMs + f.wallMs,
      },
    });
  }
  return { results, episodes, wallMs, fromJournal };
}
