import { z } from 'zod';
import { InputError, type RubricItem, type Verdict } from '../core/index.ts';
import {
  type ChatContentPart,
  type ChatModel,
  generateObject,
  ModelOutputError,
  textPart,
} from '../models/index.ts';
import { actionHistory, loadShots, screenshotsOf } from './evidence.ts';
import { unparseableVerdict, type Verifier, type VerifyInput } from './verifier.ts';

/** Failures outside the agent's control, told apart from the agent's own mistakes. */
export const EXTERNAL_BLOCKERS = [
  'none',
  'captcha',
  'login_required',
  'out_of_stock',
  'site_error',
  'unavailable',
  'other',
] as const;

/** What the judge returns (validated; one repair on failure). */
export const RubricJudgement = z.object({
  items: z.array(
    z.object({
      /** 1-based criterion number as listed in the prompt. */
      index: z.number().int().positive(),
      /** False when the criterion's condition does not hold, so it is left out of the score. */
      applies: z.boolean(),
      earnedPoints: z.number(),
      justification: z.string().default(''),
    }),
  ),
  outcome: z.enum(['success', 'failure']),
  blocker: z.enum(EXTERNAL_BLOCKERS),
  blockerDetail: z.string().default(''),
  summary: z.string().default(''),
});
export type RubricJudgement = z.infer<typeof RubricJudgement>;

export interface RubricVerifierOptions {
  model: ChatModel;
  /** How many of the last screenshots to show; default 15. */
  lastK?: number;
}

const SYSTEM = `You grade a web agent's attempt at a task against a rubric.
For each numbered criterion, decide whether it applies (a criterion with a condition applies only when the condition holds) and award points from 0 up to its maximum, following its description exactly. Fractional points are allowed where the description gives partial credit.
Separately, decide the outcome: "success" only if the task as a whole was accomplished (the user got what they asked for), else "failure". Points for effort do not make a success.
Also say whether the attempt was stopped by something outside the agent's control: captcha, login_required, out_of_stock, site_error, unavailable (the item, date or service does not exist or is sold out), other; or none.
Base everything on the action history, the final answer and the screenshots. Do not credit claims the evidence does not support.
Reply with JSON only.`;

function formatRubric(items: RubricItem[]): string {
  return items
    .map(
      (it, i) =>
        `${i + 1}. ${it.criterion} (max ${it.maxPoints} points)` +
        (it.description ? `\n   ${it.description}` : '') +
        (it.condition ? `\n   Condition: ${it.condition}` : ''),
    )
    .join('\n');
}

/** Earned over possible points among the criteria that apply; missing criteria earn 0 and apply. */
export function processScoreOf(
  items: RubricItem[],
  judged: RubricJudgement['items'],
): { earned: number; possible: number; score: number; short: string[] } {
  let earned = 0;
  let possible = 0;
  const short: string[] = [];
  items.forEach((it, i) => {
    const j = judged.find((x) => x.index === i + 1);
    if (j && !j.applies) return;
    const got = Math.min(it.maxPoints, Math.max(0, j?.earnedPoints ?? 0));
    earned += got;
    possible += it.maxPoints;
    if (got < it.maxPoints) short.push(it.criterion);
  });
  return { earned, possible, score: possible > 0 ? earned / possible : 0, short };
}

/**
 * The WebTailBench rubric verifier: an LLM awards points per criterion; the process score
 * (earned / possible) is kept in `processScore`, apart from the outcome (`success`, `score`).
 * Blockers outside the agent's control appear as `blocked:<kind>` in `failedConditions`.
 */
export class RubricVerifier implements Verifier {
  readonly id = 'rubric';
  private readonly model: ChatModel;
  private readonly lastK: number;

  constructor(opts: RubricVerifierOptions) {
    this.model = opts.model;
    this.lastK = opts.lastK ?? 15;
  }

  async verify(input: VerifyInput): Promise<Verdict> {
    const spec = input.task.verifier;
    if (spec.kind !== 'rubric' || spec.items.length === 0) {
      throw new InputError(
        `task ${input.task.id} has no rubric; the rubric verifier needs verifier.kind "rubric"`,
        {
          field: 'verifier',
        },
      );
    }
    const { parts, missing } = await loadShots(
      screenshotsOf(input.trajectory).slice(-this.lastK),
      input.loadImage,
    );
    const content: ChatContentPart[] = [
      textPart(
        `Task: ${input.task.objective}\n\nRubric:\n${formatRubric(spec.items)}\n\n` +
          `Actions taken by the agent:\n${actionHistory(input.trajectory)}\n\n` +
          `Final answer: ${input.finalAnswer?.trim() || '(none given)'}\n\n` +
          (parts.length
            ? `The last ${parts.length} screenshot(s) follow, oldest first.`
            : 'No screenshots are available.'),
      ),
      ...parts.map((p) => p.part),
    ];
    let judgement: RubricJudgement;
    try {
      const r = await generateObject(this.model, RubricJudgement, {
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content },
        ],
        temperature: 0,
        maxTokens: 1500,
        schemaName: 'rubric_judgement',
      });
      judgement = r.object;
    } catch (e) {
      if (ModelOutputError.isInstance(e)) return unparseableVerdict(this.id, e.message, e.reply);
      throw e;
    }
    const ps = processScoreOf(spec.items, judgement.items);
    const success = judgement.outcome === 'success';
    const blocked = judgement.blocker !== 'none';
    const reason = [
      judgement.summary.trim() || (success ? 'task accomplished' : 'task not accomplished'),
      `process ${ps.earned}/${ps.possible} points`,
      ...(blocked
        ? [
            `blocked outside the agent's control: ${judgement.blocker}${judgement.blockerDetail ? ` (${judgement.blockerDetail})` : ''}`,
          ]
        : []),
      ...(missing ? [`${missing} screenshot(s) missing`] : []),
    ].join('; ');
    return {
      success,
      score: success ? 1 : 0,
      processScore: ps.score,
      reason,
      verifierId: this.id,
      failedConditions: [...ps.short, ...(blocked ? [`blocked:${judgement.blocker}`] : [])],
    };
  }
}
