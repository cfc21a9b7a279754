import { z } from 'zod';
import { describeZodIssues, RmswebError } from '../../core/errors.ts';
import type { RunStore } from '../../store/run-store.ts';
import { createProgress, type Progress } from '../progress.ts';
import { type StageDef, stageResultSchema } from './stage-results.ts';

/** The record kind marking a finished pipeline stage in the pipeline's run store. */
export const STAGE_RECORD = 'stage';

/** What a finished stage leaves in the store: rerunning the pipeline skips it and reuses `result`. */
export interface StageRecord<R> {
  stage: string;
  done: true;
  /** Wall time of the run that finished the stage. */
  seconds: number;
  finishedAt: string;
  result: R;
}

const StageEnvelope = z.object({
  stage: z.string(),
  done: z.literal(true),
  seconds: z.number().nonnegative(),
  finishedAt: z.string(),
  result: z.unknown(),
});

/**
 * The stored record of a finished stage in `store`, validated against the stage's result schema
 * (stage-results.ts); null when there is none, or when it does not validate (`onInvalid` then
 * hears why, and the stage counts as not finished).
 */
export function readStageRecord<R>(
  store: RunStore,
  stage: string,
  onInvalid?: (why: string) => void,
): StageRecord<R> | null {
  const raw = store.getRecord<unknown>(STAGE_RECORD, stage);
  if (raw === null || raw === undefined) return null;
  const env = StageEnvelope.safeParse(raw);
  if (!env.success) {
    onInvalid?.(`record stage/${stage}: ${describeZodIssues(env.error.issues)}`);
    return null;
  }
  const result = stageResultSchema(stage).safeParse(env.data.result);
  if (!result.success) {
    onInvalid?.(`record stage/${stage}: result.${describeZodIssues(result.error.issues)}`);
    return null;
  }
  return { ...env.data, done: true, result: result.data as R };
}

/** The validated record of a defined stage (a family member by `suffix`) in `store`, typed by its definition. */
export function readStage<T>(
  store: RunStore,
  def: StageDef<T>,
  suffix = '',
  onInvalid?: (why: string) => void,
): StageRecord<T> | null {
  return readStageRecord<T>(store, def.key(suffix), onInvalid);
}

/** Thrown when Ctrl-C stopped a stage: the stage is not marked done, so a rerun resumes it. */
export class PipelineInterrupted extends RmswebError {
  constructor(stage: string) {
    super(`interrupted during stage ${stage}; rerun the same command to resume`, { code: 'INTERRUPTED' });
  }
}

/** What a stage body gets: a progress bar factory, the abort signal and a log line writer. */
export interface StageScope {
  /** `initial`: work a resumed stage did before this process (shown as done, not counted in the rate). */
  progress(total: number, label?: string, initial?: number): Progress;
  /** Wall seconds this stage has run so far, earlier invocations that stopped before it finished included. */
  seconds(): number;
  signal: AbortSignal;
  log(line: string): void;
}

export interface StageRunnerOptions {
  store: RunStore;
  signal: AbortSignal;
  /** Force progress bars without a terminal. */
  forceProgress?: boolean;
  quiet?: boolean;
  /** Milliseconds on a monotonic clock (default `performance.now`; tests pass their own). */
  now?: () => number;
}

/** Record kind of an unfinished stage's wall seconds so far (removed when it finishes). */
export const STAGE_PARTIAL = 'stage-partial';
/** How often a running stage's wall time is saved: a kill loses at most this much of its account. */
const PARTIAL_EVERY_MS = 30_000;

/**
 * Runs the pipeline's stages in order, each at most once per run folder: a stage that finished is
 * recorded (kind `stage`) with its result and wall time, and is skipped with that result on rerun.
 * Stages that stop on Ctrl-C are left unrecorded and resume from their own keyed records. A stage's
 * wall time counts every invocation that worked on it: an unfinished one's time is kept (kind
 * `stage-partial`, saved every 30 s and on the way out) and added when a later one finishes it.
 */
export class StageRunner {
  /** Wall seconds of each stage, over the invocations that worked on it (as recorded when it finished). */
  readonly timings: Record<string, number> = {};
  /** Stages skipped because an earlier run finished them. */
  readonly skipped: string[] = [];
  /** Stages this invocation ran. */
  readonly ran: string[] = [];

  constructor(private readonly o: StageRunnerOptions) {}

  log(line: string): void {
    if (!this.o.quiet) process.stderr.write(`${line}\n`);
  }

  /** The stored, validated result of a finished stage, or null (an invalid one is logged and rerun). */
  finished<R>(stage: string): StageRecord<R> | null {
    return readStageRecord<R>(this.o.store, stage, (why) =>
      this.log(`[${stage}] the stored result does not validate (${why}); running the stage again`),
    );
  }

  /** {@link run} of a defined stage (a family member by `suffix`), typed by its definition. */
  runStage<T>(def: StageDef<T>, body: (scope: StageScope) => Promise<T>, suffix = ''): Promise<T> {
    return this.run(def.key(suffix), body);
  }

  /** Runs `body` unless the stage already finished; returns its (stored) result. */
  async run<R>(stage: string, body: (scope: StageScope) => Promise<R>): Promise<R> {
    stageResultSchema(stage); // every stage's result has a schema, or a resumed run could not check it
    const prev = this.finished<R>(stage);
    if (prev?.done) {
      this.timings[stage] = prev.seconds;
      this.skipped.push(stage);
      this.log(`[${stage}] done earlier (${prev.seconds.toFixed(1)} s); skipped`);
      return prev.result;
    }
    if (this.o.signal.aborted) throw new PipelineInterrupted(stage);
    const store = this.o.store;
    const before = store.getRecord<{ seconds: number }>(STAGE_PARTIAL, stage)?.seconds ?? 0;
    this.log(
      before > 0
        ? `[${stage}] running (resumed; ${before.toFixed(0)} s in earlier runs)`
        : `[${stage}] running`,
    );
    const now = this.o.now ?? (() => performance.now());
    const t0 = now();
    const elapsed = () => before + (now() - t0) / 1000;
    const keep = () => store.putRecord(STAGE_PARTIAL, stage, { seconds: elapsed() });
    // A kill (machine lost, session over) runs no finally: the time so far is saved as it goes,
    // from the start, so the record also says the stage has begun (context.ts's late settings).
    keep();
    const tick = setInterval(keep, PARTIAL_EVERY_MS);
    tick.unref();
    const bars: Progress[] = [];
    const scope: StageScope = {
      progress: (total, label, initial) => {
        const bar = createProgress(label ?? stage, total, {
          force: this.o.forceProgress,
          quiet: this.o.quiet,
          initial,
        });
        bars.push(bar);
        return bar;
      },
      seconds: elapsed,
      signal: this.o.signal,
      log: (line) => this.log(`[${stage}] ${line}`),
    };
    let result: R;
    try {
      result = await body(scope);
    } catch (e) {
      keep();
      throw e;
    } finally {
      clearInterval(tick);
      for (const b of bars) b.stop();
    }
    if (this.o.signal.aborted) {
      keep();
      throw new PipelineInterrupted(stage);
    }
    const seconds = elapsed();
    const record: StageRecord<R> = {
      stage,
      done: true,
      seconds,
      finishedAt: new Date().toISOString(),
      result,
    };
    store.putRecord(STAGE_RECORD, stage, record);
    store.deleteRecord(STAGE_PARTIAL, stage);
    this.timings[stage] = seconds;
    this.ran.push(stage);
    this.log(
      `[${stage}] finished in ${seconds.toFixed(1)} s${before > 0 ? ` (${before.toFixed(0)} s of it in earlier runs)` : ''}`,
    );
    return result;
  }
}
