import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describeZodIssues, InputError, stableId, type Task, Task as TaskSchema } from '../core/index.ts';
import type { ChatModel } from './chat-model.ts';
import { generateObject, ModelOutputError } from './generate-object.ts';

/**
 * Task synthesis: rewriting raw user queries into executable browsing objectives, dropping the
 * infeasible ones with a recorded reason. The LLM rewriter lives here; the offline rewriter (the
 * world's raw queries grounded in its catalog) is the world's `createOfflineRewriter`, which the
 * CLI picks for `--model offline` (the world sits below models, so neither imports the other).
 */

/** One raw query: a line of text, or a JSONL object. */
export const RawQuery = z.object({
  query: z.string().trim().min(1),
  site: z.string().trim().min(1).optional(),
  startUrl: z.string().trim().min(1).optional(),
});
export type RawQuery = z.infer<typeof RawQuery>;

/** A raw query with the line it came from. */
export interface SourcedQuery extends RawQuery {
  line: number;
}

/** A query kept as a task, or dropped with the reason (`feasible: false`). */
export type RewriteOutcome =
  | { feasible: true; query: SourcedQuery; task: Task }
  | { feasible: false; query: SourcedQuery; reason: string };

/** Turns raw queries into tasks. */
export interface TaskRewriter {
  readonly id: string;
  rewrite(
    queries: SourcedQuery[],
    opts?: { onProgress?: (done: number, total: number) => void },
  ): Promise<RewriteOutcome[]>;
}

/**
 * Reads queries: one per line as plain text, or JSONL objects `{query, site?, startUrl?}` (a line
 * starting with `{` is JSON). Blank lines are skipped; a bad line names the file and line.
 */
export function readQueries(file: string): SourcedQuery[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read queries: ${(e as Error).message}`, { file }, e);
  }
  const out: SourcedQuery[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let value: unknown = { query: line };
    if (line.startsWith('{')) {
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new InputError(`malformed JSON: ${(e as Error).message}`, { file, line: i + 1 }, e);
      }
    }
    const r = RawQuery.safeParse(value);
    if (!r.success) {
      throw new InputError(describeZodIssues(r.error.issues), {
        file,
        line: i + 1,
        field: r.error.issues[0]?.path.join('.'),
      });
    }
    out.push({ ...r.data, line: i + 1 });
  });
  if (!out.length) throw new InputError('no queries found', { file });
  return out;
}

/** The rewriter model's answer for one query. */
export const RewriteReply = z.object({
  feasible: z.boolean(),
  objective: z.string().default(''),
  site: z.string().default(''),
  startUrl: z.string().default(''),
  reason: z.string().default(''),
});
export type RewriteReply = z.infer<typeof RewriteReply>;

const SYSTEM = `You turn raw requests from users into tasks that a browser agent can carry out on a public website and that a reviewer can check afterwards.

First decide whether the request is feasible. It is NOT feasible when it:
- needs the user's own accounts, private data, or credentials;
- needs a real purchase, payment, booking or another irreversible action to be completed;
- asks for something no public website can answer, or for an action outside the browser;
- is too vague to know when it is done, even after a reasonable reading;
- is harmful or deceptive.

If it is feasible, write the objective:
- one or two sentences, self-contained, naming the website to use;
- keep every constraint the user gave (dates, prices, sizes, counts, locations, sort orders) exactly; never invent new ones;
- say what the agent must report or which end state it must reach (stop before any payment or submission of personal data);
- no step-by-step instructions.
Choose the start URL: the given one if any, else the home page of the most suitable site.

Reply with JSON: {"feasible": boolean, "objective": string, "site": string, "startUrl": string, "reason": string}. The reason says briefly why the request is infeasible, or what you had to interpret.`;

function isWebUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Site name for a URL: its host without `www.`. */
function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^www\./, '');
}

/** Builds the task for a feasible reply, or the reason it cannot become one. */
export function taskFromReply(q: SourcedQuery, reply: RewriteReply, rewriterId: string): RewriteOutcome {
  if (!reply.feasible)
    return {
      feasible: false,
      query: q,
      reason: reply.reason.trim() || 'judged infeasible (no reason given)',
    };
  const objective = reply.objective.trim();
  if (!objective) return { feasible: false, query: q, reason: 'the rewriter gave an empty objective' };
  // The user's own start URL wins over the model's guess.
  const startUrl = q.startUrl ?? reply.startUrl.trim();
  if (!isWebUrl(startUrl))
    return { feasible: false, query: q, reason: `no usable start URL (got "${startUrl}")` };
  const task = TaskSchema.parse({
    id: stableId('synth', q.query, q.site ?? '', q.startUrl ?? ''),
    suite: 'custom',
    site: q.site ?? (reply.site.trim() || hostOf(startUrl)),
    objective,
    startUrl,
    verifier: { kind: 'judge' },
    meta: {
      rawQuery: q.query,
      sourceLine: q.line,
      rewriter: rewriterId,
      ...(reply.reason.trim() ? { rewriteNote: reply.reason.trim() } : {}),
    },
  });
  return { feasible: true, query: q, task };
}

/** The LLM rewriter: one zod-validated JSON call per query (with one repair). */
export class LlmTaskRewriter implements TaskRewriter {
  readonly id: string;
  private readonly model: ChatModel;
  private readonly concurrency: number;

  constructor(opts: { model: ChatModel; concurrency?: number }) {
    this.model = opts.model;
    this.concurrency = opts.concurrency ?? 4;
    this.id = `llm:${opts.model.id}`;
  }

  /** Rewrites one query. A reply that fails its schema twice drops the query with that reason. */
  async rewriteOne(q: SourcedQuery): Promise<RewriteOutcome> {
    const given = [q.site ? `Site: ${q.site}` : '', q.startUrl ? `Start URL: ${q.startUrl}` : '']
      .filter(Boolean)
      .join('\n');
    try {
      const r = await generateObject(this.model, RewriteReply, {
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: `Request: ${q.query}${given ? `\n${given}` : ''}` },
        ],
        temperature: 0,
        maxTokens: 500,
        schemaName: 'task_rewrite',
      });
      return taskFromReply(q, r.object, this.id);
    } catch (e) {
      if (ModelOutputError.isInstance(e))
        return { feasible: false, query: q, reason: `rewriter reply unusable: ${e.message}` };
      throw e;
    }
  }

  async rewrite(
    queries: SourcedQuery[],
    opts: { onProgress?: (done: number, total: number) => void } = {},
  ): Promise<RewriteOutcome[]> {
    const out = new Array<RewriteOutcome>(queries.length);
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < queries.length) {
        const i = next++;
        out[i] = await this.rewriteOne(queries[i]);
        opts.onProgress?.(++done, queries.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, queries.length) }, worker));
    return out;
  }
}
