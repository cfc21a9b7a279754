import { ACTION_DOCS, ACTION_TYPES, formatAction } from '../core/action.ts';
import type { Observation } from '../core/observation.ts';
import type { AgentTask } from '../core/task.ts';
import type { ChatContentPart, ChatMessage } from '../models/chat-model.ts';
import type { HistoryEntry } from './agent.ts';

/** Version of the prompt layout; recorded with exports so trainers and agents agree. */
export const PROMPT_VERSION = 1;

/** The system prompt: who the agent is, the reply format and the action space (from the registry). */
export function systemPrompt(): string {
  const actions = ACTION_TYPES.map(
    (t) =>
      `- ${t}: ${ACTION_DOCS[t].description} Example: {"${t}": ${JSON.stringify(ACTION_DOCS[t].example)}}`,
  ).join('\n');
  return `You operate a web browser to carry out a user's task. At every step you receive the task, what you did so far, your memory, the current page as a numbered list of the elements you can interact with, and a screenshot.

How to read the page: each interactive element is one line "[index]<tag attributes>text />". Only elements with an index can be used, and indices change from step to step, so use the ones of the current page. Lines marked "(offscreen)" are outside the viewport: scroll, or act on them directly if the action allows. When an action failed, the error is shown under "Last action error".

Reply with a single JSON object and nothing else:
{"evaluation_previous_goal": "did the last action achieve its goal? one sentence",
 "memory": "what to remember for the rest of the task: progress, values found, what is left",
 "next_goal": "the immediate next goal, one sentence",
 "action": [{"<action name>": {<parameters>}}]}
Give exactly one action. The actions:
${actions}

Guidelines: read the task's constraints (names, sizes, dates, quantities, exact filters) and satisfy all of them; close cookie banners or pop-ups that block the page; use search, sorting and filters when the task asks for the cheapest, best rated or a specific item; check that an item matches exactly before acting on it (similar names are common); when the task asks a question, answer it in done's text; call done with success true only when the task is complete.`;
}

function historyText(history: HistoryEntry[]): string {
  if (!history.length) return 'No actions yet.';
  return history
    .map((h) => {
      const res = h.result.error ? `failed: ${h.result.error}` : 'ok';
      const ev = h.output.evaluation_previous_goal
        ? ` evaluation: ${h.output.evaluation_previous_goal};`
        : '';
      const goal = h.output.next_goal ? ` goal: ${h.output.next_goal};` : '';
      return `Step ${h.stepIndex + 1}:${ev}${goal} action: ${formatAction(h.action)} -> ${res}`;
    })
    .join('\n');
}

export interface AgentMessageOptions {
  task: AgentTask;
  observation: Observation;
  history: HistoryEntry[];
  /** Include the notes section (true when acting; false when building training data). */
  includeNotes: boolean;
  /** Screenshot as a data URL, or null to send none. */
  screenshotUrl: string | null;
}

/**
 * Builds the user message of one step. Training exports call this with includeNotes false, so the
 * text a student learns from never contains reflection notes.
 */
export function userContent(o: AgentMessageOptions): ChatContentPart[] {
  const obs = o.observation;
  const tabs =
    obs.tabs.length > 1
      ? `\nTabs: ${obs.tabs.map((t) => `[${t.id}]${t.active ? '*' : ''} ${t.title}`).join(' | ')}`
      : '';
  const notes =
    o.includeNotes && obs.notes.length
      ? `\n<notes from earlier attempts>\n${obs.notes.map((n) => `- ${n}`).join('\n')}\n</notes from earlier attempts>\n`
      : '';
  const err = obs.lastActionError ? `\nLast action error: ${obs.lastActionError}` : '';
  const text = `<task>\n${o.task.objective}\n</task>
${notes}<history>\n${historyText(o.history)}\n</history>
<memory>\n${obs.memory || '(empty)'}\n</memory>
<progress>${obs.progress || `step ${obs.stepIndex + 1}`}</progress>
<page>
URL: ${obs.url}
Title: ${obs.title}${tabs}${err}
${obs.text}
</page>`;
  const parts: ChatContentPart[] = [{ type: 'text', text }];
  if (o.screenshotUrl) parts.push({ type: 'image', url: o.screenshotUrl });
  return parts;
}

/** System + user messages of one step. */
export function agentMessages(o: AgentMessageOptions): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt() },
    { role: 'user', content: userContent(o) },
  ];
}
