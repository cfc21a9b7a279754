import type { Verdict } from '../core/index.ts';
import { type ChatContentPart, type ChatModel, textPart } from '../models/index.ts';
import { loadShots, screenshotsOf } from './evidence.ts';
import { askVerdict } from './verdict-line.ts';
import { unparseableVerdict, type Verifier, type VerifyInput } from './verifier.ts';

export interface WebVoyagerJudgeOptions {
  model: ChatModel;
  /** How many of the last screenshots to show; default 15, as the reference scripts use. */
  lastK?: number;
  /**
   * The reply budget; default 800. A smaller one bounds the cost (a small local model writes to
   * any budget); a reply cut off before its verdict gets one short follow-up asking for the verdict
   * alone.
   */
  maxTokens?: number;
}

const SYSTEM = `You check whether a web-browsing agent really completed a task.
You are given the task, the final answer the agent reported, and screenshots of the last pages it saw, oldest first.

How to decide:
- Every part of the task counts. If the task asks for several things, all of them must be done or answered.
- The screenshots are the evidence. When the answer and the screenshots disagree, believe the screenshots.
- Do not credit results the screenshots do not support; do not invent what the pages might have shown.
- An answer that is vague, hedged or about a different item than the task names is not a success.

Write a few sentences of reasoning, then end with one line that is exactly
Verdict: SUCCESS
or
Verdict: NOT SUCCESS`;

/**
 * Reads a SUCCESS / NOT SUCCESS verdict. A `Verdict:` line wins; otherwise the last upper-case
 * keyword in the text. Returns null when neither is there.
 */
export function parseSuccessKeyword(reply: string): { success: boolean; explanation: string } | null {
  // A small model may echo the prompt, whose instruction names both verdicts: that is no verdict.
  const text = reply.replace(/verdict\s*:\s*success\s*\n\s*or\s*\n\s*verdict\s*:\s*not\s+success/gi, (m) =>
    ' '.repeat(m.length),
  );
  const lines = [...text.matchAll(/verdict\s*[:-]\s*[*_"'`]*\s*(not\s+success|success)\b/gi)];
  let match = lines.at(-1);
  if (!match) match = [...text.matchAll(/\b(NOT SUCCESS|SUCCESS)\b/g)].at(-1);
  if (!match || match.index === undefined) return null;
  const success = !/^not/i.test(match[1]);
  const explanation = reply.slice(0, match.index).trim() || reply.trim();
  return { success, explanation };
}

/**
 * The WebVoyager-style judge: task, the agent's final answer and its last k screenshots go to a
 * vision model, which answers SUCCESS or NOT SUCCESS. An attempt without an answer scores 0
 * without asking the model.
 */
export class WebVoyagerJudge implements Verifier {
  readonly id = 'webvoyager-judge';
  private readonly model: ChatModel;
  private readonly lastK: number;
  private readonly maxTokens: number;

  constructor(opts: WebVoyagerJudgeOptions) {
    this.model = opts.model;
    this.lastK = opts.lastK ?? 15;
    this.maxTokens = opts.maxTokens ?? 800;
  }

  async verify(input: VerifyInput): Promise<Verdict> {
    const answer = input.finalAnswer?.trim() ?? '';
    if (!answer) {
      return {
        success: false,
        score: 0,
        reason: 'the agent gave no final answer',
        verifierId: this.id,
        failedConditions: ['no_answer'],
      };
    }
    // A text-only judge model (it refused images before) judges from the task and the answer.
    const textOnly = this.model.acceptsImages === false;
    const shots = textOnly ? [] : screenshotsOf(input.trajectory).slice(-this.lastK);
    const { parts, missing } = await loadShots(shots, input.loadImage);
    const content: ChatContentPart[] = [
      textPart(
        `Task: ${input.task.objective}\nStart page: ${input.task.startUrl}\nFinal answer reported by the agent: ${answer}\n` +
          (parts.length
            ? `The last ${parts.length} screenshot(s) follow, oldest first.`
            : textOnly
              ? 'No screenshots: this judge reads text only.'
              : 'No screenshots are available.'),
      ),
      ...parts.map((p) => p.part),
    ];
    const reply = await askVerdict(this.model, {
      system: SYSTEM,
      content,
      maxTokens: this.maxTokens,
      hasVerdict: (t) => parseSuccessKeyword(t) !== null,
      values: ['SUCCESS', 'NOT SUCCESS'],
      line: (v) => `Verdict: ${v}`,
      followUp: 'Your reply was cut off. Give only the verdict: SUCCESS or NOT SUCCESS.',
    });
    const parsed = parseSuccessKeyword(reply.text);
    if (!parsed) {
      const what = reply.cutOff
        ? `cut off at ${this.maxTokens} tokens before its verdict${reply.followUpError ? `; ${reply.followUpError}` : ''}`
        : 'no SUCCESS / NOT SUCCESS verdict found';
      return unparseableVerdict(this.id, what, reply.text);
    }
    const note =
      (missing ? ` (${missing} screenshot(s) could not be loaded)` : '') +
      (reply.followedUp ? ` (reply cut off at ${this.maxTokens} tokens; verdict asked separately)` : '');
    return {
      success: parsed.success,
      score: parsed.success ? 1 : 0,
      reason: `${parsed.explanation.slice(0, 1500)}${note}`,
      verifierId: this.id,
      failedConditions: parsed.success ? [] : ['judged_not_success'],
    };
  }
}
