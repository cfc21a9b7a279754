import { EPISODE_ERROR_RECORD, type EpisodeErrorRecord } from '../collect/episode-pool.ts';
import type { Trajectory } from '../core/trajectory.ts';
import {
  isJudgeFailureMessage,
  isUnparseableVerdict,
  JUDGE_VERDICT_RECORD,
  JudgeVerdictRecord,
} from '../judge/judge-under-test.ts';
import { RunStore } from '../store/run-store.ts';
import { WORLD_VERIFIER_ID } from '../world/world.ts';
import { agreement, cohensKappa, confusionOf } from './judge-agreement.ts';

/** How an LLM judge's verdicts on a run's world episodes compare with the verifier's. */
export interface LedgerJudgeAgreement {
  judge: string;
  /** Episodes it gave a usable verdict on. */
  n: number;
  agreement: number;
  kappa: number;
  /** Episodes it was asked about and gave no usable verdict on. */
  errors: number;
}

/**
 * Where every episode's reward came from: each episode is counted once, as scored (a verdict of
 * the programmatic verifier or of a judge, success or agent failure) or as not scored (an
 * infrastructure error: it could not be run; a judge error: the judge gave no usable verdict;
 * unjudged: stored without any verdict). pass@1 is taken over the scored episodes only.
 */
export interface RewardLedger {
  /** Episodes counted: stored trajectories plus episodes that could not be run. */
  episodes: number;
  scored: number;
  successes: number;
  /** Scored and not a success: the agent's failure. */
  agentFailures: number;
  /** Could not be run (model endpoint down, browser lost); retried by the next run. */
  infraErrors: number;
  /** The judge gave no usable verdict (unreadable reply; a judge endpoint down). */
  judgeErrors: number;
  /** Stored without a verdict. */
  unjudged: number;
  /** Scored episodes by the verifier or judge that scored them (`Verdict.verifierId`). */
  bySource: Record<string, number>;
  /** LLM judges calibrated on these episodes (`rmsweb judge calibrate`), against the verifier. */
  judgeAgreement?: LedgerJudgeAgreement[];
}

/** Whether a stored episode counts toward pass@1: it has a verdict and it is not a judge error. */
export function isScored(t: Pick<Trajectory, 'verdict'>): boolean {
  return !!t.verdict && !isUnparseableVerdict(t.verdict);
}

/**
 * The ledger of stored trajectories and the episode errors of the same jobs (their records'
 * messages tell judge failures from infrastructure failures). With `judgeVerdicts`, world
 * episodes the verifier scored are compared with every judge's stored verdict on them.
 */
export function rewardLedger(
  trajectories: readonly Trajectory[],
  errors: readonly Pick<EpisodeErrorRecord, 'message'>[] = [],
  judgeVerdicts: readonly JudgeVerdictRecord[] = [],
): RewardLedger {
  const bySource: Record<string, number> = {};
  let successes = 0;
  let agentFailures = 0;
  let judgeErrors = 0;
  let unjudged = 0;
  for (const t of trajectories) {
    if (!t.verdict) unjudged++;
    else if (isUnparseableVerdict(t.verdict)) judgeErrors++;
    else {
      bySource[t.verdict.verifierId] = (bySource[t.verdict.verifierId] ?? 0) + 1;
      if (t.verdict.success) successes++;
      else agentFailures++;
    }
  }
  const thrownByJudge = errors.filter((e) => isJudgeFailureMessage(e.message)).length;
  judgeErrors += thrownByJudge;
  const ledger: RewardLedger = {
    episodes: trajectories.length + errors.length,
    scored: successes + agentFailures,
    successes,
    agentFailures,
    infraErrors: errors.length - thrownByJudge,
    judgeErrors,
    unjudged,
    bySource,
  };
  const truth = new Map(
    trajectories
      .filter((t) => t.task.suite === 'world' && t.verdict?.verifierId === WORLD_VERIFIER_ID)
      .map((t) => [t.id, t.verdict!.success]),
  );
  const byJudge = new Map<string, JudgeVerdictRecord[]>();
  for (const v of judgeVerdicts)
    if (truth.has(v.trajectoryId)) byJudge.set(v.judge, [...(byJudge.get(v.judge) ?? []), v]);
  if (byJudge.size)
    ledger.judgeAgreement = [...byJudge.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([judge, vs]) => {
        const c = confusionOf(
          vs.map((v) => ({
            truth: truth.get(v.trajectoryId)!,
            judged: v.outcome === 'error' ? null : v.outcome === 'success',
          })),
        );
        return {
          judge,
          n: vs.length - c.errors,
          agreement: agreement(c),
          kappa: cohensKappa(c),
          errors: c.errors,
        };
      });
  return ledger;
}

/**
 * The ledger of a run's stored episodes: trajectories with `tag` (all when absent), the episode
 * errors recorded under `errorKeys` (or, without them, every error record whose key starts with
 * `errorPrefix` and whose episode is still not stored), and the judge verdicts kept in the store.
 */
export function storedLedger(
  store: RunStore,
  o: {
    tag?: string;
    trajectories?: readonly Trajectory[];
    errorKeys?: Iterable<string>;
    errorPrefix?: string;
  },
): RewardLedger {
  const trajectories = o.trajectories ?? store.listTrajectories(o.tag ? { tag: o.tag } : {});
  const wanted = o.errorKeys ? new Set(o.errorKeys) : null;
  const errors = store
    .listRecords<EpisodeErrorRecord>(EPISODE_ERROR_RECORD)
    .filter(
      (r) => (wanted ? wanted.has(r.key) : r.key.startsWith(o.errorPrefix ?? '')) && !store.hasEpisode(r.key),
    )
    .map((r) => r.value);
  const judged = store.listRecords(JUDGE_VERDICT_RECORD, JudgeVerdictRecord).map((r) => r.value);
  return rewardLedger(trajectories, errors, judged);
}

/** The ledger of a collection run folder's episodes (the teacher's attempts and their errors). */
export function collectionLedger(dir: string): RewardLedger {
  const store = RunStore.open(dir);
  try {
    return storedLedger(store, { tag: 'collect', errorPrefix: 'collect:' });
  } finally {
    store.close();
  }
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');

/**
 * The ledger as one line: what was scored and by what, what was left out of pass@1 and why, and
 * each calibrated judge's agreement with the verifier on these episodes.
 */
export function formatLedger(l: RewardLedger): string {
  const sources = Object.entries(l.bySource)
    .map(([k, v]) => `${v} by ${k}`)
    .join(', ');
  const left = [
    l.infraErrors ? `${l.infraErrors} infrastructure error(s)` : '',
    l.judgeErrors ? `${l.judgeErrors} judge error(s)` : '',
    l.unjudged ? `${l.unjudged} unjudged` : '',
  ].filter(Boolean);
  const judges = (l.judgeAgreement ?? [])
    .map(
      (j) =>
        `${j.judge} agrees with the verifier on ${pct(j.agreement)} of ${j.n} (kappa ${Number.isFinite(j.kappa) ? j.kappa.toFixed(2) : 'n/a'}${j.errors ? `; ${j.errors} judge error(s)` : ''})`,
    )
    .join('; ');
  return (
    `${l.episodes} episodes: ${l.scored} scored${sources ? ` (${sources})` : ''}: ${l.successes} success(es), ${l.agentFailures} agent failure(s); ` +
    `${left.length ? `left out of pass@1: ${left.join(', ')}` : 'none left out of pass@1'}` +
    (judges ? `; ${judges}` : '')
  );
}
