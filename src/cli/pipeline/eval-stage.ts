import type { Task } from '../../core/task.ts';
import type { EvalSummary } from '../../eval/metrics.ts';
import { runEval } from '../../eval/run-eval.ts';
import { episodesNotRun } from '../episode-errors.ts';
import { resolveAgent } from '../runtime.ts';
import type { PipelineContext } from './context.ts';
import type { StageScope } from './stage.ts';

/** An evaluation's summary plus what identifies its setup (so another run can tell if it may reuse it). */
export interface EvalStageResult {
  label: string;
  agent: string;
  summary: EvalSummary;
  complete: boolean;
  setup: { taskIds: string[]; runs: number; maxSteps: number };
}

/**
 * pass@1 of an agent over the preset's runs on world test tasks (or the validation split's) (`runEval`, as `rmsweb eval`),
 * episodes keyed by label in the pipeline store so an interrupted evaluation resumes. Screenshots
 * are off: neither the heuristic teacher nor the student reads them.
 */
export async function evalStage(
  ctx: PipelineContext,
  scope: StageScope,
  o: {
    label: string;
    agent: string;
    tasks: Task[] /** Shown in tables; default the spec. */;
    agentName?: string;
    /** Runs and step cap instead of the preset's evaluation ones (the validation split's one greedy run). */
    runs?: number;
    maxSteps?: number;
  },
): Promise<EvalStageResult> {
  const p = {
    ...ctx.preset.eval,
    ...(o.runs ? { runs: o.runs } : {}),
    ...(o.maxSteps ? { maxSteps: o.maxSteps } : {}),
  };
  const rt = await ctx.world(false);
  const total = o.tasks.length * p.runs;
  const bar = scope.progress(total);
  const common = {
    label: o.label,
    agentId: o.agentName ?? o.agent,
    suite: 'world',
    tasks: o.tasks,
    store: ctx.store,
    makeAgent: () => resolveAgent(o.agent, { seed: ctx.settings.seed }),
    makeEnv: rt.makeEnv,
    start: rt.start,
    verify: rt.verify,
    runs: p.runs,
    workers: ctx.preset.workers,
    maxSteps: p.maxSteps,
    signal: scope.signal,
    onEpisode: (done: number, _total: number, rate: number) => bar.update(done, { success: rate }),
  };
  let s = await runEval(common);
  // A browser failure loses only its episode; one more pass retries the missing keys.
  if (!s.complete && !scope.signal.aborted) s = await runEval(common);
  const { complete, ...summary } = s;
  if (!complete && !scope.signal.aborted)
    scope.log(`incomplete: ${summary.episodes}/${total} episodes recorded`);
  if (summary.errored && !scope.signal.aborted)
    throw episodesNotRun(`eval ${o.label}`, summary.errored, total);
  scope.log(
    `pass@1 ${(100 * summary.pass1.mean).toFixed(1)}% over ${summary.runs} run(s) x ${summary.tasks} tasks`,
  );
  return {
    label: o.label,
    agent: o.agent,
    summary,
    complete,
    setup: { taskIds: o.tasks.map((t) => t.id), runs: p.runs, maxSteps: p.maxSteps },
  };
}
