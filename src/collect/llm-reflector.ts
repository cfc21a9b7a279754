import { z } from 'zod';
import { formatAction } from '../core/action.ts';
import { newId } from '../core/ids.ts';
import { type Reflection, ReflectionRule } from '../core/reflection.ts';
import type { ChatModel } from '../models/chat-model.ts';
import { generateObject } from '../models/generate-object.ts';
import { maxTokensForSchema } from '../models/schema-budget.ts';
import type { ReflectInput, Reflector } from './reflector.ts';

// Every part of the reply is bounded, so a grammar-enforcing server keeps the whole reply under
// REPLY_MAX_TOKENS: a reply can fail only by what the model writes, never by being cut off.
// Four sentences fit in 400 characters; a rule names an element or a value, not a paragraph (the
// note's text says why).
const ReplyRule = z.object({
  kind: ReflectionRule.shape.kind,
  target: z.string().max(60).optional(),
  value: z.string().max(60).optional(),
});
const ReflectionReply = z.object({
  text: z.string().min(1).max(400),
  avoid: z.array(ReplyRule).max(3).default([]),
  prefer: z.array(ReplyRule).max(3).default([]),
});
const REPLY_JSON_SCHEMA = z.toJSONSchema(ReflectionReply, { io: 'input' }) as Record<string, unknown>;
/** The reflector's max_tokens: the longest reply its schema allows (see maxTokensForSchema). */
export const REFLECTION_MAX_TOKENS = maxTokensForSchema(REPLY_JSON_SCHEMA, 'the reflection reply');

const SYSTEM = `You review a failed attempt of a web browsing agent and write a short note for its next attempt at the same task.
The note must say, in at most four sentences, what went wrong (the step and the cause) and what a recovery looks like: what to do instead, which element or value to choose, what to check before finishing.
Also give structured rules: "avoid" for behaviour to stop (e.g. {"kind":"click","target":"Trail Runner 2 GTX"}) and "prefer" for behaviour to adopt (e.g. {"kind":"sort","value":"price low to high"}).
Rule kinds: click, input, select, navigate, scroll, done, sort, filter, page, dismiss, wait, any. Reply with JSON {"text": ..., "avoid": [...], "prefer": [...]}.`;

/** A reflector backed by a chat model: reads the failed steps and the judge's reason. */
export class LlmReflector implements Reflector {
  readonly id: string;
  constructor(private readonly model: ChatModel) {
    this.id = `${model.provider}:${model.id}`;
  }

  async reflect({ trajectory, previous }: ReflectInput): Promise<Reflection> {
    const steps = trajectory.steps
      .map((s) => {
        const err = s.result.error ? ` (failed: ${s.result.error})` : '';
        return `${s.index + 1}. on ${s.observation.url}: ${formatAction(s.action)}${err} — goal: ${s.output.next_goal}`;
      })
      .join('\n');
    const prev = previous.length
      ? `\nNotes given before this attempt:\n${previous.map((p) => `- ${p.text}`).join('\n')}`
      : '';
    const user = `Task: ${trajectory.task.objective}
Outcome: ${trajectory.endReason} (${trajectory.endDetail}); final answer: ${trajectory.finalAnswer ?? '(none)'}
Judge: ${trajectory.verdict?.reason ?? 'no verdict'}${prev}
Steps:
${steps}`;
    const r = await generateObject(this.model, ReflectionReply, {
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: user },
      ],
      schemaName: 'reflection',
      jsonSchema: REPLY_JSON_SCHEMA,
      temperature: 0,
      maxTokens: REFLECTION_MAX_TOKENS,
    });
    return {
      schemaVersion: 1,
      id: newId('refl'),
      taskId: trajectory.task.id,
      round: trajectory.round,
      fromTrajectoryId: trajectory.id,
      text: r.object.text,
      avoid: r.object.avoid,
      prefer: r.object.prefer,
      source: this.id,
      createdAt: new Date().toISOString(),
    };
  }
}
