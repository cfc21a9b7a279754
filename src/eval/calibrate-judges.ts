import type { Trajectory } from '../core/trajectory.ts';
import { mapLimit } from '../judge/evidence.ts';
import {
  isFinalVerdict,
  JUDGE_VERDICT_RECORD,
  type JudgeUnderTest,
  JudgeVerdictRecord,
  judgeVerdictKey,
} from '../judge/judge-under-test.ts';
import type { RunStore } from '../store/run-store.ts';
import { buildCalibration, type CalibrationReport, calibrationEpisode } from './judge-calibration.ts';
import { type EpisodeSample, sampleEpisodes, verifiedWorldEpisodes } from './judge-sample.ts';

export interface CalibrateJudgesOptions {
  store: RunStore;
  /** How the run is named in the report (its folder). */
  run: string;
  judges: JudgeUnderTest[];
  sample: number;
  seed: number;
  /** Verdicts in flight at once, over all judges; default 1 (a local server answers one at a time). */
  concurrency?: number;
  resamples?: number;
  commit?: string;
  signal?: AbortSignal;
  /** Called before judging with the pairs already stored, then after every new verdict. */
  onProgress?: (done: number, total: number, last?: JudgeVerdictRecord) => void;
}

/** The sample a calibration would judge, read from a store without judging anything. */
export function planCalibration(
  store: RunStore,
  n: number,
  seed: number,
): { sample: EpisodeSample; trajectories: Map<string, Trajectory> } {
  const all = store.listTrajectories();
  const sample = sampleEpisodes(verifiedWorldEpisodes(all), n, seed);
  const picked = new Set(sample.ids);
  const trajectories = new Map(all.filter((t) => picked.has(t.id)).map((t) => [t.id, t]));
  return { sample, trajectories };
}

/** A judge's stored verdicts, by trajectory id. */
export function storedJudgeVerdicts(store: RunStore, judge: string): Map<string, JudgeVerdictRecord> {
  const out = new Map<string, JudgeVerdictRecord>();
  for (const { value } of store.listRecords(JUDGE_VERDICT_RECORD, JudgeVerdictRecord))
    if (value.judge === judge) out.set(value.trajectoryId, value);
  return out;
}

/**
 * Calibrates judges against the verifier on a balanced, seeded sample of a run's verified world
 * episodes. Each verdict is stored in the run store as it arrives (kind `judge-verdict`), so an
 * interrupted calibration resumes: a rerun skips every (judge, episode) pair already judged,
 * except those an endpoint or a timeout cut short, which it asks again.
 */
export async function calibrateJudges(o: CalibrateJudgesOptions): Promise<CalibrationReport> {
  const { sample, trajectories } = planCalibration(o.store, o.sample, o.seed);
  const stored = new Map(o.judges.map((j) => [j.name, storedJudgeVerdicts(o.store, j.name)]));
  const todo: Array<{ judge: JudgeUnderTest; trajectory: Trajectory }> = [];
  for (const judge of o.judges)
    for (const id of sample.ids) {
      const prev = stored.get(judge.name)!.get(id);
      if (!prev || !isFinalVerdict(prev)) todo.push({ judge, trajectory: trajectories.get(id)! });
    }
  const total = o.judges.length * sample.ids.length;
  let done = total - todo.length;
  o.onProgress?.(done, total);
  const loadImage = async (hash: string) => (o.store.hasImage(hash) ? o.store.readImage(hash) : null);
  await mapLimit(todo, Math.max(1, o.concurrency ?? 1), async ({ judge, trajectory }) => {
    if (o.signal?.aborted) return;
    const rec = await judge.judge(trajectory, loadImage);
    if (o.signal?.aborted) return;
    o.store.putRecord(JUDGE_VERDICT_RECORD, judgeVerdictKey(judge.name, trajectory.id), rec);
    stored.get(judge.name)!.set(trajectory.id, rec);
    o.onProgress?.(++done, total, rec);
  });
  return buildCalibration({
    run: o.run,
    commit: o.commit,
    seed: o.seed,
    sample,
    episodes: sample.ids.map((id) => calibrationEpisode(trajectories.get(id)!)),
    judges: o.judges.map((j) => j.name),
    verdicts: stored,
    resamples: o.resamples,
  });
}
