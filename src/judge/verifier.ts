import type { Task, Trajectory, Verdict } from '../core/index.ts';

/** Everything a verifier may look at for one finished attempt. */
export interface VerifyInput {
  task: Task;
  /** The attempt: steps with observations (screenshot refs by hash), actions and results. */
  trajectory: Trajectory;
  /** The agent's final answer (text of its done action), or null when it gave none. */
  finalAnswer: string | null;
  /** Loads a stored screenshot by content hash (JPEG bytes), or null when it is missing. */
  loadImage(hash: string): Promise<Buffer | null>;
}

/**
 * Decides whether an attempt succeeded. Implementations: LLM judges (WebVoyager-style, WebJudge,
 * rubric), the offline answer match, and the world's programmatic verifier.
 *
 * A verifier returns a Verdict for every judgeable attempt, including when a judge's reply cannot
 * be parsed (success false, the reason says so). Infrastructure failures - the model endpoint
 * down after its retries - are thrown (ModelApiError), so callers can retry the judging instead of
 * recording a false failure.
 */
export interface Verifier {
  /** Stable id written into `Verdict.verifierId`. */
  readonly id: string;
  verify(input: VerifyInput): Promise<Verdict>;
}

/** The Verdict for a judge reply that could not be read. */
export function unparseableVerdict(verifierId: string, what: string, reply: string): Verdict {
  const preview = reply.trim().replace(/\s+/g, ' ').slice(0, 200);
  return {
    success: false,
    score: 0,
    reason: `judge reply was unparseable (${what}); counted as failure. Reply began: "${preview}"`,
    verifierId,
    failedConditions: ['unparseable_judge_reply'],
  };
}
