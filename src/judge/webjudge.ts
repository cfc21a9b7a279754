import type { Verdict } from '../core/index.ts';
import { type ChatContentPart, type ChatModel, firstText, textPart } from '../models/index.ts';
import { actionHistory, loadShots, mapLimit, type StepShot, screenshotsOf } from './evidence.ts';
import { askVerdict } from './verdict-line.ts';
import { unparseableVerdict, type Verifier, type VerifyInput } from './verifier.ts';

/** Reply budgets (max_tokens) of WebJudge's three stages. */
export interface WebJudgeMaxTokens {
  /** The key-point list; default 500. */
  keyPoints?: number;
  /** Each screenshot's relevance score; default 300. */
  score?: number;
  /** The outcome; default 800. */
  outcome?: number;
}

const DEFAULT_MAX_TOKENS: Required<WebJudgeMaxTokens> = { keyPoints: 500, score: 300, outcome: 800 };

export interface WebJudgeOptions {
  model: ChatModel;
  /** Screenshots scoring at least this (1-5) are kept; default 3. */
  keepThreshold?: number;
  /** At most this many screenshots reach the final judgement; default 50. */
  maxKept?: number;
  /** Screenshot-scoring calls in flight at once; default 4. */
  concurrency?: number;
  /**
   * Reply budgets per stage. The defaults leave a capable model room to reason; smaller ones bound
   * the cost (a small local model writes to any budget). A reply cut off before its `Score:` or
   * `Status:` line gets one short follow-up asking for that line alone, and a key-point list cut
   * off inside its last point loses that point.
   */
  maxTokens?: WebJudgeMaxTokens;
}

const KEY_POINTS_SYSTEM = `You break a web task into the key points an agent must satisfy for the task to count as done.
Rules:
- Only list requirements the task states. Do not add your own.
- Keep every constraint exact: values, ranges, dates, counts, names. "2 bedrooms" is not "2+ bedrooms".
- Words such as cheapest, newest, highest rated, most popular or closest become a key point about sorting or filtering by that attribute.
Reply with the line "Key points:" followed by one numbered line per key point.`;

const SCORE_SYSTEM = `You rate one screenshot from a web agent's attempt at a task.
Decide how much the screenshot helps to tell whether the task's key points were met: does it show a filter, a sort order, a selection, a form, a result or a confirmation that matters?
Scale: 1 = irrelevant, 2 = barely related, 3 = relevant, 4 = shows important progress, 5 = shows decisive evidence.
Explain briefly, then end with one line "Score: N" where N is 1 to 5.`;

const OUTCOME_SYSTEM = `You decide whether a web agent completed a task.
You get the task, its key points, the agent's actions (its final answer is withheld on purpose), and the screenshots judged relevant, each with a note on why.
Rules:
- Every key point must be met, exactly as stated. A filter or sort the task requires must actually be applied; a near value does not count.
- Judge from the actions and the screenshots only. Do not assume a step happened if nothing shows it.
- If the task asks for information, the pages must show it was reached.
Explain your reasoning briefly, then end with one line that is exactly
Status: success
or
Status: failure`;

/** Reads numbered or bulleted key points after a "Key points" heading (or anywhere). */
export function parseKeyPoints(reply: string): string[] {
  const at = reply.search(/key\s*points\s*:?/i);
  const body = at >= 0 ? reply.slice(at).replace(/^key\s*points\s*:?/i, '') : reply;
  return body
    .split('\n')
    .map((l) => /^\s*(?:\d+\s*[.)]|[-*•])\s+(.+?)\s*$/.exec(l)?.[1])
    .filter((x): x is string => !!x && x.length > 1);
}

/** Reads the last "Score: N" (1-5), or null. */
export function parseScore(reply: string): number | null {
  const m = [...reply.matchAll(/score\s*[:=]\s*[*_]*\s*([1-5])\b/gi)].at(-1);
  return m ? Number(m[1]) : null;
}

/** Reads the last "Status: success|failure", or null. */
export function parseStatus(reply: string): { success: boolean; explanation: string } | null {
  // A small model may echo the prompt, whose instruction names both statuses: that is no verdict.
  const text = reply.replace(/status\s*:\s*success\s*\n\s*or\s*\n\s*status\s*:\s*failure/gi, (x) =>
    ' '.repeat(x.length),
  );
  const m = [...text.matchAll(/status\s*[:-]\s*[*_"'`]*\s*(success|failure)\b/gi)].at(-1);
  if (!m || m.index === undefined) return null;
  return { success: m[1].toLowerCase() === 'success', explanation: reply.slice(0, m.index).trim() };
}

interface ScoredShot {
  shot: StepShot;
  part: ChatContentPart;
  score: number;
  note: string;
}

/**
 * The WebJudge method (Online-Mind2Web): (1) key points from the task, (2) every screenshot scored
 * 1-5 for relevance and kept at the threshold or above (at most `maxKept`, the highest scores),
 * (3) the outcome from the task, the key points, the action history without the final answer, and
 * the kept screenshots.
 */
export class WebJudge implements Verifier {
  readonly id = 'webjudge';
  private readonly model: ChatModel;
  private readonly keepThreshold: number;
  private readonly maxKept: number;
  private readonly concurrency: number;
  private readonly maxTokens: Required<WebJudgeMaxTokens>;

  constructor(opts: WebJudgeOptions) {
    this.model = opts.model;
    this.keepThreshold = opts.keepThreshold ?? 3;
    this.maxKept = opts.maxKept ?? 50;
    this.concurrency = opts.concurrency ?? 4;
    this.maxTokens = { ...DEFAULT_MAX_TOKENS, ...opts.maxTokens };
  }

  /**
   * Step 1. Falls back to the whole task as one key point when the reply lists none. A list cut
   * off by its budget inside its last point drops that point, which may end mid-sentence.
   */
  async keyPoints(objective: string): Promise<{ points: string[]; fallback: boolean }> {
    const r = await this.model.doGenerate({
      messages: [
        { role: 'system', content: KEY_POINTS_SYSTEM },
        { role: 'user', content: `Task: ${objective}` },
      ],
      temperature: 0,
      maxTokens: this.maxTokens.keyPoints,
    });
    const reply = firstText(r);
    let points = parseKeyPoints(reply);
    // Cut off inside the last point (the reply's last line is that point): it may be partial.
    const lastLine = reply.trimEnd().split('\n').at(-1) ?? '';
    if (r.choices[0]?.finishReason === 'length' && parseKeyPoints(lastLine).length)
      points = points.slice(0, -1);
    return points.length ? { points, fallback: false } : { points: [objective], fallback: true };
  }

  async verify(input: VerifyInput): Promise<Verdict> {
    const objective = input.task.objective;
    const kp = await this.keyPoints(objective);
    const keyPointText = kp.points.map((p, i) => `${i + 1}. ${p}`).join('\n');

    // Step 2: score every screenshot; an unreadable score drops the image rather than guessing.
    // A text-only judge model (it refused images before, or refuses the first one here) has no
    // screenshots to score: scores it gave without seeing the image are dropped, the rest not asked.
    const blind = () => this.model.acceptsImages === false;
    const textOnlyBefore = blind();
    const { parts, missing } = await loadShots(
      textOnlyBefore ? [] : screenshotsOf(input.trajectory),
      input.loadImage,
    );
    let unreadable = 0;
    let followUps = 0;
    const scoredOrBlind = await mapLimit(
      parts,
      this.concurrency,
      async ({ shot, part }): Promise<ScoredShot | null> => {
        if (blind()) return null;
        const r = await askVerdict(this.model, {
          system: SCORE_SYSTEM,
          content: [
            textPart(
              `Task: ${objective}\nKey points:\n${keyPointText}\nScreenshot from step ${shot.stepIndex + 1} (${shot.url}):`,
            ),
            part,
          ],
          maxTokens: this.maxTokens.score,
          hasVerdict: (t) => parseScore(t) !== null,
          values: [1, 2, 3, 4, 5],
          line: (n) => `Score: ${n}`,
          followUp: 'Your reply was cut off. Give only the score, 1 to 5.',
        });
        if (blind()) return null;
        if (r.followedUp) followUps++;
        const score = parseScore(r.text);
        if (score === null) unreadable++;
        const note = r.text
          .replace(/score\s*[:=].*$/gim, '')
          .trim()
          .replace(/\s+/g, ' ')
          .slice(0, 300);
        return { shot, part, score: score ?? 0, note };
      },
    );
    const textOnly = blind();
    const scored = textOnly ? [] : scoredOrBlind.filter((s): s is ScoredShot => s !== null);
    const kept = scored
      .filter((s) => s.score >= this.keepThreshold)
      .sort((a, b) => b.score - a.score || b.shot.stepIndex - a.shot.stepIndex)
      .slice(0, this.maxKept)
      .sort((a, b) => a.shot.stepIndex - b.shot.stepIndex);

    // Step 3: the outcome, without the agent's own claim of success.
    const content: ChatContentPart[] = [
      textPart(
        `Task: ${objective}\nKey points:\n${keyPointText}\n\nActions taken by the agent:\n` +
          `${actionHistory(input.trajectory, { withholdAnswer: true })}\n\n` +
          (kept.length
            ? `${kept.length} relevant screenshot(s) follow, in order.`
            : 'No screenshot was judged relevant.'),
      ),
    ];
    for (const k of kept) {
      content.push(textPart(`Step ${k.shot.stepIndex + 1}, relevance ${k.score}/5: ${k.note}`), k.part);
    }
    const outcome = await askVerdict(this.model, {
      system: OUTCOME_SYSTEM,
      content,
      maxTokens: this.maxTokens.outcome,
      hasVerdict: (t) => parseStatus(t) !== null,
      values: ['success', 'failure'],
      line: (v) => `Status: ${v}`,
      followUp: 'Your reply was cut off. Give only the status: success or failure.',
    });
    const status = parseStatus(outcome.text);
    if (!status) {
      const what = outcome.cutOff
        ? `cut off at ${this.maxTokens.outcome} tokens before its "Status:" line${outcome.followUpError ? `; ${outcome.followUpError}` : ''}`
        : 'no "Status: success|failure" line found';
      return unparseableVerdict(this.id, what, outcome.text);
    }
    if (outcome.followedUp) followUps++;
    const notes = [
      `${kp.points.length} key point(s)${kp.fallback ? ' (key-point reply unreadable; used the task itself)' : ''}`,
      textOnly ? 'text-only judge: no screenshots read' : `${kept.length}/${parts.length} screenshot(s) kept`,
      ...(unreadable ? [`${unreadable} screenshot score(s) unreadable, dropped`] : []),
      ...(missing ? [`${missing} screenshot(s) missing`] : []),
      ...(followUps ? [`${followUps} reply(ies) cut off by the token budget, verdict asked separately`] : []),
    ].join('; ');
    return {
      success: status.success,
      score: status.success ? 1 : 0,
      reason: `${status.explanation.slice(0, 1500)} [${notes}]`,
      verifierId: this.id,
      failedConditions: status.success ? [] : ['judged_failure'],
    };
  }
}
