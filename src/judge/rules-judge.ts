import type { Trajectory, Verdict } from '../core/index.ts';
import { AnswerMatchVerifier } from './answer-match.ts';
import type { Verifier, VerifyInput } from './verifier.ts';

/** The agent's own closing claim: its last action was `done`, with the success flag it gave. */
export function claimedSuccess(t: Trajectory): boolean | null {
  const last = t.steps.at(-1);
  if (last?.action.type !== 'done') return null;
  return last.action.success && !last.result.error;
}

/**
 * The offline `rules` judge, the reference row of a calibration. On a task with a reference answer
 * it is the heuristic answer match; the offline world gives judges no reference (its answers live
 * in the verifier), so there it reads what any judge can read without a model: the agent ended
 * with `done(success=true)`, without an error, and gave a non-empty answer. It never fails to
 * answer, so its error rate is 0 by construction.
 */
export class RulesJudge implements Verifier {
  readonly id = 'rules';
  private readonly answerMatch = new AnswerMatchVerifier();

  async verify(input: VerifyInput): Promise<Verdict> {
    if (input.task.verifier.kind === 'answer')
      return { ...(await this.answerMatch.verify(input)), verifierId: this.id };
    const claim = claimedSuccess(input.trajectory);
    const answered = (input.finalAnswer?.trim() ?? '') !== '';
    const failed = [
      ...(claim === null ? ['no_done_action'] : claim ? [] : ['agent_gave_up']),
      ...(answered ? [] : ['no_answer']),
    ];
    const success = failed.length === 0;
    return {
      success,
      score: success ? 1 : 0,
      reason: success
        ? 'rules: the agent ended with done(success=true) and an answer'
        : `rules: ${failed.map((f) => f.replace(/_/g, ' ')).join('; ')}`,
      verifierId: this.id,
      failedConditions: failed,
    };
  }
}
