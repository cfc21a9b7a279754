import type { Verdict } from '../core/index.ts';
import type { Verifier, VerifyInput } from './verifier.ts';

/**
 * An offline, HEURISTIC verifier for tasks with a reference answer (WebVoyager's golden and
 * possible answers). It checks that the pieces of the reference appear in the agent's answer after
 * normalization; it cannot judge paraphrase or whether the agent really saw the facts, and
 * "possible" answers drift as live sites change. Use an LLM judge for reported numbers.
 */

/** Lower-case, strip accents and punctuation, drop thousands separators, collapse spaces. */
export function normalizeAnswer(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/[‘’“”"'`]/g, '')
    .replace(/(?<!\d)\.|\.(?!\d)/g, ' ')
    .replace(/[^\p{L}\p{N}.%$]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Splits a reference into the fragments to look for: top-level comma/semicolon separated parts,
 * with quoted titles kept whole and `<placeholder>` parts (e.g. `<Ingredients>`) and parenthetical
 * comments dropped.
 */
export function answerFragments(reference: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (const ch of reference) {
    if (quote) {
      cur += ch;
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === '“' || (ch === "'" && !/\w$/.test(cur))) {
      quote = ch === '“' ? '”' : ch;
      cur += ch;
    } else if (ch === ',' || ch === ';') {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts
    .map((p) => p.replace(/<[^>]*>/g, ' ').replace(/\([^)]*\)/g, ' '))
    .map(normalizeAnswer)
    .filter((p) => p.length > 0);
}

const stem = (t: string) => (t.length > 3 && t.endsWith('s') ? t.slice(0, -1) : t);

/** A fragment matches when it is a substring of the answer or all its (stemmed) words occur in it. */
export function fragmentMatches(fragment: string, normalizedAnswer: string): boolean {
  if (normalizedAnswer.includes(fragment)) return true;
  const words = new Set(normalizedAnswer.split(' ').map(stem));
  return fragment.split(' ').every((w) => words.has(stem(w)));
}

/** Verifies `verifier.kind === 'answer'` tasks by heuristic string match. */
export class AnswerMatchVerifier implements Verifier {
  readonly id = 'answer-match-heuristic';

  async verify(input: VerifyInput): Promise<Verdict> {
    const spec = input.task.verifier;
    const base = { verifierId: this.id };
    if (spec.kind !== 'answer') {
      return {
        ...base,
        success: false,
        score: 0,
        reason: `heuristic answer match: task has no reference answer (verifier ${spec.kind})`,
        failedConditions: ['no_reference'],
      };
    }
    const answer = input.finalAnswer?.trim() ?? '';
    if (!answer) {
      return {
        ...base,
        success: false,
        score: 0,
        reason: 'heuristic answer match: the agent gave no final answer',
        failedConditions: ['no_answer'],
      };
    }
    const fragments = answerFragments(spec.reference);
    if (!fragments.length) {
      return {
        ...base,
        success: false,
        score: 0,
        reason: 'heuristic answer match: the reference has nothing checkable (only placeholders)',
        failedConditions: ['reference_not_checkable'],
      };
    }
    const norm = normalizeAnswer(answer);
    const missing = fragments.filter((f) => !fragmentMatches(f, norm));
    const score = (fragments.length - missing.length) / fragments.length;
    const drift =
      spec.answerType === 'possible' ? ' (reference is a "possible" answer; live data may have changed)' : '';
    return {
      ...base,
      success: missing.length === 0,
      score,
      reason:
        `heuristic answer match: ${fragments.length - missing.length}/${fragments.length} reference fragment(s) found` +
        (missing.length ? `; missing: ${missing.map((m) => `"${m}"`).join(', ')}` : '') +
        drift,
      failedConditions: missing.map((m) => `missing:${m}`),
    };
  }
}
