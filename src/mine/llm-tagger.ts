import { z } from 'zod';
import { FailureLabel, formatAction, type Observation, type Step, type Usage } from '../core/index.ts';
import {
  addUsage,
  type ChatMessage,
  type ChatModel,
  emptyUsage,
  generateObject,
  ModelOutputError,
} from '../models/index.ts';
import type { Divergence } from './divergence.ts';
import { describeAction, rulesTagger } from './rules-tagger.ts';
import { LABEL_ORDER, TAXONOMY, type Tagger, type TagResult } from './taxonomy.ts';

/** What the LLM tagger must answer. */
export const LlmTag = z.object({
  label: FailureLabel,
  reason: z.string().min(1).max(600),
});

/** Lines of a page's element view shown per side; pages with more are cut with a note. */
const MAX_VIEW_LINES = 60;
/** Earlier actions shown per side. */
const MAX_HISTORY = 8;
/** Later actions of the failing run shown, so loops and stalls are visible. */
const MAX_FAILURE_LOOKAHEAD = 5;

export const TAGGER_SYSTEM_PROMPT = [
  'You analyse web-agent trajectories. Two runs of the same task reached comparable states; one run',
  'went on to succeed and the other failed. At this state they chose different actions. Classify why',
  'the failing run went wrong with exactly one label from this taxonomy:',
  '',
  ...LABEL_ORDER.map((l) => `- ${l}: ${TAXONOMY[l].meaning} Typical evidence: ${TAXONOMY[l].rule}`),
  '',
  'Prefer a specific label over "other" when the evidence supports it. Reply with JSON only:',
  '{"label": "<one label>", "reason": "<one or two sentences naming the elements or values involved>"}',
].join('\n');

function pageView(obs: Observation): string {
  const lines = obs.text
    ? obs.text.split('\n')
    : obs.elements.map(
        (e) =>
          `${'\t'.repeat(e.depth)}[${e.index}]<${e.tag}${e.role ? ` role=${e.role}` : ''}>${e.name || e.text}`,
      );
  const shown = lines.slice(0, MAX_VIEW_LINES);
  if (lines.length > shown.length) shown.push(`... (${lines.length - shown.length} more elements)`);
  return shown.join('\n');
}

/** ` (kind covered)`: the error's kind for the tagger model, when the record has one. */
function kindNote(kind: string | undefined): string {
  return kind ? ` (kind ${kind})` : '';
}

function sideText(title: string, steps: Step[], k: number, lookahead: number): string {
  const s = steps[k];
  const history = steps
    .slice(Math.max(0, k - MAX_HISTORY), k)
    .map((h) => `  ${h.index}: ${describeAction(h)}`);
  const after = steps.slice(k + 1, k + 1 + lookahead).map((h) => `  ${h.index}: ${describeAction(h)}`);
  return [
    `## ${title}`,
    `URL: ${s.observation.url}`,
    s.observation.lastActionError
      ? `Error from the previous action${kindNote(s.observation.lastActionErrorKind)}: ${s.observation.lastActionError}`
      : '',
    s.observation.memory ? `Agent memory: ${s.observation.memory}` : '',
    history.length ? `Earlier actions:\n${history.join('\n')}` : 'Earlier actions: none',
    `Page elements:\n${pageView(s.observation)}`,
    `Action chosen at step ${s.index}: ${describeAction(s)}${s.result.error ? ` (failed${kindNote(s.result.errorKind)}: ${s.result.error})` : ''}`,
    after.length ? `Then:\n${after.join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** The messages sent for one divergence: taxonomy in the system prompt, both sides in the user turn. */
export function buildTaggerMessages(d: Divergence): ChatMessage[] {
  const s = d.success.trajectory;
  const f = d.failure.trajectory;
  const user = [
    `Task: ${s.task.objective}`,
    `Comparability of the two states: ${d.comparability.total.toFixed(2)}`,
    sideText('Successful run', s.steps, d.i, 0),
    sideText(
      `Failing run (ended: ${f.endReason}${f.verdict ? `, verdict: ${f.verdict.reason || 'failed'}` : ''})`,
      f.steps,
      d.j,
      MAX_FAILURE_LOOKAHEAD,
    ),
    `Successful action: ${formatAction(s.steps[d.i].action)}; failing action: ${formatAction(f.steps[d.j].action)}.`,
  ].join('\n\n');
  return [
    { role: 'system', content: TAGGER_SYSTEM_PROMPT },
    { role: 'user', content: user },
  ];
}

export interface LlmTaggerOptions {
  /** Sampling temperature; default 0 (labels should not depend on luck). */
  temperature?: number;
  /** Reply budget; default 300 tokens. */
  maxTokens?: number;
  /** Used when the model's reply fails its schema twice; default the rules tagger. */
  fallback?: Tagger;
}

/**
 * Tags divergences with a chat model (any OpenAI-compatible endpoint) through `generateObject`. A reply
 * that fails its schema twice falls back to the rules tagger, with that source recorded on the label;
 * API errors propagate.
 */
export class LlmTagger implements Tagger {
  readonly id: string;
  /** Tokens and cost spent so far. */
  usage: Usage = emptyUsage();
  /** Divergences the fallback tagger had to label. */
  fallbacks = 0;
  private readonly fallback: Tagger;

  constructor(
    private readonly model: ChatModel,
    private readonly opts: LlmTaggerOptions = {},
  ) {
    this.id = `llm:${model.id}`;
    this.fallback = opts.fallback ?? rulesTagger;
  }

  async tag(d: Divergence): Promise<TagResult> {
    try {
      const r = await generateObject(this.model, LlmTag, {
        messages: buildTaggerMessages(d),
        temperature: this.opts.temperature ?? 0,
        maxTokens: this.opts.maxTokens ?? 300,
        schemaName: 'failure_label',
      });
      this.usage = addUsage(this.usage, r.usage);
      return { label: r.object.label, reason: r.object.reason };
    } catch (e) {
      if (!ModelOutputError.isInstance(e)) throw e;
      this.usage = addUsage(this.usage, e.usage);
      this.fallbacks++;
      const t = await this.fallback.tag(d);
      return {
        ...t,
        source: this.fallback.id,
        reason: `${t.reason} (model reply unusable: ${e.message.slice(0, 120)})`,
      };
    }
  }
}
