import { z } from 'zod';
import {
  InputError,
  ModelApiError,
  RmswebError,
  type Trajectory,
  Usage,
  type Verdict,
} from '../core/index.ts';
import {
  type ChatGenerateOptions,
  type ChatGenerateResult,
  type ChatModel,
  createChatModel,
  parseModelSpec,
} from '../models/index.ts';
import { RubricVerifier } from './rubric-verifier.ts';
import { RulesJudge } from './rules-judge.ts';
import type { Verifier, VerifyInput } from './verifier.ts';
import { WebJudge } from './webjudge.ts';
import { WebVoyagerJudge } from './webvoyager-judge.ts';

/** The judging methods a `--judge` spec can name before its model. */
export const JUDGE_METHODS = ['webvoyager', 'webjudge', 'rubric'] as const;
export type JudgeMethod = (typeof JUDGE_METHODS)[number];

/** A parsed judge spec: `rules`, or `[METHOD:]openai:MODEL[@URL]` (METHOD defaults to webvoyager). */
export type JudgeSpec = { kind: 'rules' } | { kind: 'llm'; method: JudgeMethod; model: string };

/**
 * Parses a judge spec. Throws an InputError naming `field` for anything else, so a command can
 * refuse it before it writes.
 */
export function parseJudgeSpec(spec: string, field = '--judge'): JudgeSpec {
  const s = spec.trim();
  if (s === 'rules') return { kind: 'rules' };
  const m = /^(webvoyager|webjudge|rubric):(.+)$/i.exec(s);
  const method = (m?.[1].toLowerCase() ?? 'webvoyager') as JudgeMethod;
  const model = m ? m[2] : s;
  if (!/^openai:/i.test(model))
    throw new InputError(
      `unknown judge "${s}": use rules, or [webvoyager:|webjudge:|rubric:]openai:MODEL[@URL]`,
      { field },
    );
  parseModelSpec(model, field);
  return { kind: 'llm', method, model };
}

/** The canonical name of a judge spec (the key its verdicts are stored under). */
export function judgeName(spec: JudgeSpec): string {
  return spec.kind === 'rules' ? 'rules' : `${spec.method}:${spec.model}`;
}

/** Why a judge gave no usable verdict. None of these is a "failure" verdict. */
export const JudgeErrorKind = z.enum(['unparseable', 'timeout', 'endpoint', 'error']);
export type JudgeErrorKind = z.infer<typeof JudgeErrorKind>;

/** One judge's verdict on one stored episode, as kept in the run store. */
export const JudgeVerdictRecord = z.object({
  judge: z.string(),
  trajectoryId: z.string(),
  taskId: z.string(),
  site: z.string(),
  /** `error`: the judge gave no usable verdict (see `errorKind`); it is never scored. */
  outcome: z.enum(['success', 'failure', 'error']),
  errorKind: JudgeErrorKind.optional(),
  /** The judge's graded score (a rubric's process score, an answer match's share), when it gives one. */
  score: z.number().nullable(),
  reason: z.string(),
  usage: Usage,
  ms: z.number().nonnegative(),
  at: z.string(),
});
export type JudgeVerdictRecord = z.infer<typeof JudgeVerdictRecord>;

/** Run-store record kind of judge verdicts; the key is `judgeVerdictKey(judge, trajectoryId)`. */
export const JUDGE_VERDICT_RECORD = 'judge-verdict';

/** The record key of a judge's verdict on a trajectory. */
export function judgeVerdictKey(judge: string, trajectoryId: string): string {
  return `${judge}|${trajectoryId}`;
}

/** Whether a stored verdict is final: a rerun retries only what an endpoint or a timeout cut short. */
export function isFinalVerdict(r: JudgeVerdictRecord): boolean {
  return r.outcome !== 'error' || r.errorKind === 'unparseable';
}

/** Whether a verdict says the judge's reply could not be read (a judge error, not a failure). */
export function isUnparseableVerdict(
  v: { failedConditions?: readonly string[] } | null | undefined,
): boolean {
  return !!v?.failedConditions?.includes('unparseable_judge_reply');
}

/** How an episode error caused by its judge begins, so a ledger can tell it from an infrastructure error. */
export const JUDGE_FAILURE_PREFIX = 'judge failed: ';

/** Whether an episode error message says the judge, not the agent's endpoint or browser, failed. */
export function isJudgeFailureMessage(message: string): boolean {
  return message.startsWith(JUDGE_FAILURE_PREFIX);
}

/**
 * Wraps a judging function so what it throws says the judge failed. A model endpoint error stays a
 * ModelApiError (same retry behaviour: the client already retried it); anything else becomes an
 * RmswebError with the original as its cause.
 */
export function withJudgeFailures<T>(verify: (t: T) => Promise<Verdict>): (t: T) => Promise<Verdict> {
  return async (t) => {
    try {
      return await verify(t);
    } catch (e) {
      const message = `${JUDGE_FAILURE_PREFIX}${(e as Error).message}`;
      if (ModelApiError.isInstance(e))
        throw new ModelApiError(message, {
          status: e.status,
          url: e.url,
          isRetryable: e.isRetryable,
          cause: e,
        });
      throw new RmswebError(message, { code: 'JUDGE', cause: e });
    }
  };
}

/** Options of the LLM judges under test. */
export interface JudgeRunOptions {
  /** Reply budget of each judge call (bounds the cost of a small model that writes to any budget). */
  maxTokens?: number;
  /** One verdict's time limit, every call included; default 120 s. */
  timeoutMs?: number;
  /** Per-request timeout of the model client; default the verdict's limit. */
  requestTimeoutMs?: number;
  /** Retries of the model client on 5xx/429/connection errors; default the client's. */
  retries?: number;
  /** Environment the model client reads keys and base URLs from (tests pass their own). */
  env?: NodeJS.ProcessEnv;
  /** Makes the chat model (tests inject fakes); default `createChatModel(spec, { role: 'judge' })`. */
  makeModel?: (modelSpec: string) => ChatModel;
}

/** A judge ready to run: its name and a function from one stored episode to its verdict record. */
export interface JudgeUnderTest {
  name: string;
  spec: JudgeSpec;
  judge(trajectory: Trajectory, loadImage: VerifyInput['loadImage']): Promise<JudgeVerdictRecord>;
}

/** Sums the usage of every call a judge makes for one verdict. */
class MeteredModel implements ChatModel {
  usage: Usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 };
  constructor(private readonly base: ChatModel) {}
  get id() {
    return this.base.id;
  }
  get provider() {
    return this.base.provider;
  }
  get acceptsImages() {
    return this.base.acceptsImages;
  }
  async doGenerate(opts: ChatGenerateOptions): Promise<ChatGenerateResult> {
    const r = await this.base.doGenerate(opts);
    this.usage = {
      promptTokens: this.usage.promptTokens + r.usage.promptTokens,
      completionTokens: this.usage.completionTokens + r.usage.completionTokens,
      costUsd: this.usage.costUsd + r.usage.costUsd,
      calls: this.usage.calls + r.usage.calls,
    };
    return r;
  }
}

function verifierFor(spec: JudgeSpec, model: ChatModel | null, o: JudgeRunOptions): Verifier {
  if (spec.kind === 'rules' || !model) return new RulesJudge();
  const t = o.maxTokens;
  if (spec.method === 'webjudge')
    return new WebJudge({ model, ...(t ? { maxTokens: { keyPoints: t, score: t, outcome: t } } : {}) });
  if (spec.method === 'rubric') return new RubricVerifier({ model });
  return new WebVoyagerJudge({ model, ...(t ? { maxTokens: t } : {}) });
}

/**
 * The rubric judge needs a rubric; a world task has none, so it gets a one-criterion rubric, the
 * objective itself, which asks the judge the same question the verifier answers.
 */
function withRubric(t: Trajectory): Trajectory {
  if (t.task.verifier.kind === 'rubric') return t;
  return {
    ...t,
    task: {
      ...t.task,
      verifier: {
        kind: 'rubric',
        items: [{ criterion: t.task.objective, description: 'the task is fully done', maxPoints: 1 }],
      },
    },
  };
}

/**
 * Builds a judge under test. Its verdict records never turn a judge error into a failure: an
 * unreadable reply is `unparseable`, a verdict past `timeoutMs` is `timeout`, an endpoint still
 * failing after the client's retries is `endpoint`; each is `outcome: 'error'`.
 */
export function judgeUnderTest(spec: JudgeSpec, o: JudgeRunOptions = {}): JudgeUnderTest {
  const name = judgeName(spec);
  const timeoutMs = o.timeoutMs ?? 120_000;
  const base =
    spec.kind === 'llm'
      ? (o.makeModel?.(spec.model) ??
        createChatModel(spec.model, {
          role: 'judge',
          env: o.env,
          timeoutMs: o.requestTimeoutMs ?? timeoutMs,
          ...(o.retries !== undefined ? { retry: { maxRetries: o.retries } } : {}),
        }))
      : null;
  return {
    name,
    spec,
    async judge(trajectory, loadImage) {
      const model = base ? new MeteredModel(base) : null;
      const verifier = verifierFor(spec, model, o);
      const t = spec.kind === 'llm' && spec.method === 'rubric' ? withRubric(trajectory) : trajectory;
      const t0 = Date.now();
      const record = (
        r: Pick<JudgeVerdictRecord, 'outcome' | 'score' | 'reason'> & { errorKind?: JudgeErrorKind },
      ): JudgeVerdictRecord => ({
        judge: name,
        trajectoryId: trajectory.id,
        taskId: trajectory.task.id,
        site: trajectory.task.site,
        ...r,
        usage: model?.usage ?? { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 },
        ms: Date.now() - t0,
        at: new Date().toISOString(),
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        const v = await Promise.race([
          verifier.verify({ task: t.task, trajectory: t, finalAnswer: t.finalAnswer, loadImage }),
          timeout,
        ]);
        if (v === 'timeout')
          return record({
            outcome: 'error',
            errorKind: 'timeout',
            score: null,
            reason: `no verdict within ${timeoutMs / 1000} s`,
          });
        if (isUnparseableVerdict(v))
          return record({ outcome: 'error', errorKind: 'unparseable', score: null, reason: v.reason });
        const score = v.processScore ?? v.score;
        return record({ outcome: v.success ? 'success' : 'failure', score, reason: v.reason });
      } catch (e) {
        const kind: JudgeErrorKind = ModelApiError.isInstance(e) ? 'endpoint' : 'error';
        return record({ outcome: 'error', errorKind: kind, score: null, reason: (e as Error).message });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
