import type { HistoryEntry } from '../agent/agent.ts';
import { agentMessages, PROMPT_VERSION } from '../agent/prompt.ts';
import type { AgentTask, Observation } from '../core/index.ts';

/** Where the screenshot goes in a user message; each exporter turns it into its own placeholder. */
export const IMAGE_SLOT = '\u0000IMAGE\u0000';

/** The agent prompt layout the exports are rendered with (LlmAgent's), recorded in export.json. */
export const EXPORT_PROMPT_VERSION = PROMPT_VERSION;

/**
 * The system and user text of one step, rendered by the same builder LlmAgent acts with, so a
 * student trained on the exports sees at inference exactly the prompt it learned from. Callers
 * pass an observation and history that are already note-scrubbed; notes are never included.
 * The user text ends with IMAGE_SLOT when `withImage`.
 */
export function stepMessages(args: {
  task: AgentTask;
  observation: Observation;
  history: HistoryEntry[];
  withImage: boolean;
}): { system: string; user: string } {
  const [system, user] = agentMessages({
    task: args.task,
    observation: { ...args.observation, notes: [] },
    history: args.history,
    includeNotes: false,
    screenshotUrl: args.withImage ? IMAGE_SLOT : null,
  });
  const parts =
    typeof user.content === 'string' ? [{ type: 'text' as const, text: user.content }] : user.content;
  const text = parts
    .map((p) => (p.type === 'text' ? p.text : p.url === IMAGE_SLOT ? IMAGE_SLOT : ''))
    .join('\n');
  return { system: system.content as string, user: text };
}
