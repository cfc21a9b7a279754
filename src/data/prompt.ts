import {
  ACTION_DOCS,
  ACTION_PARAMS,
  ACTION_TYPES,
  type Action,
  type ActionResult,
  type ActionType,
  type Observation,
  toBrowserUse,
} from '../core/index.ts';

/** Where the screenshot goes in a user message; each exporter turns it into its own placeholder. */
export const IMAGE_SLOT = '\u0000IMAGE\u0000';

interface ZodDefLike {
  type: string;
  format?: string;
  innerType?: { def: ZodDefLike };
  defaultValue?: unknown;
}

function describeParam(name: string, schema: unknown): string {
  let node = schema as { def: ZodDefLike; format?: string };
  let def = node.def;
  const mods: string[] = [];
  while ((def.type === 'default' || def.type === 'optional' || def.type === 'nullable') && def.innerType) {
    if (def.type === 'default') {
      const v =
        typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
      mods.push(`default ${JSON.stringify(v)}`);
    } else if (!mods.includes('optional')) {
      mods.push('optional');
    }
    node = def.innerType as typeof node;
    def = node.def;
  }
  const type = def.type === 'number' && node.format?.includes('int') ? 'integer' : def.type;
  return `${name} (${[type, ...mods].join(', ')})`;
}

/** One line per action: wire name, parameters, description and an example, from core's registry. */
export function actionSpaceText(): string {
  return ACTION_TYPES.map((name: ActionType) => {
    const shape = (ACTION_PARAMS[name] as unknown as { shape: Record<string, unknown> }).shape;
    const params = Object.entries(shape).map(([k, s]) => describeParam(k, s));
    const doc = ACTION_DOCS[name];
    return `- ${name}: ${doc.description} Parameters: ${params.length ? params.join('; ') : 'none'}. Example: ${JSON.stringify({ [name]: doc.example })}`;
  }).join('\n');
}

/**
 * The system prompt of every supervised example: the browsing agent's job, what it is shown,
 * the output schema (Browser Use's AgentOutput) and the action space.
 */
export function systemPrompt(): string {
  return [
    'You are a web browsing agent. You operate a real web browser, one action per step, to accomplish the task given in <task>.',
    '',
    'At every step you receive:',
    '- <task>: the objective to accomplish.',
    '- <agent_history>: your previous steps, each with your evaluation, memory, next goal, the action taken and its result.',
    '- <agent_state>: your current memory and the step number.',
    '- <browser_state>: the current URL, title, open tabs, scroll position, the last action error if any, and the interactive elements of the page, one per line as [index]<tag attributes>text. Only elements with an [index] can be acted on; indented lines are nested inside the element above them.',
    '- A screenshot of the current viewport.',
    '',
    'Respond with exactly one JSON object and nothing else:',
    '{"evaluation_previous_goal": "did the previous action achieve its goal, and why", "memory": "what to remember to finish the task", "next_goal": "the immediate next goal", "action": [{"<action name>": {<parameters>}}]}',
    '',
    'Actions:',
    actionSpaceText(),
    '',
    'Use done when the task is complete (success true, with the answer or summary in text) or cannot be completed (success false).',
  ].join('\n');
}

/** One earlier step as the history shows it; all text fields already note-scrubbed. */
export interface HistoryItem {
  evaluation: string;
  memory: string;
  nextGoal: string;
  action: Action;
  result: ActionResult;
}

function resultText(r: ActionResult): string {
  if (r.error) return `Error: ${r.error}`;
  if (r.isDone)
    return `Done${r.success === null ? '' : ` (success: ${r.success})`}${r.extractedContent ? `: ${r.extractedContent}` : ''}`;
  return r.extractedContent ? `OK: ${r.extractedContent}` : 'OK';
}

/** Renders the agent history block; only the last `maxItems` steps are shown. */
export function historyText(items: HistoryItem[], maxItems: number): string {
  if (items.length === 0) return '(no previous steps)';
  const start = Math.max(0, items.length - maxItems);
  const lines: string[] = [];
  if (start > 0) lines.push(`(${start} earlier steps omitted)`);
  for (let i = start; i < items.length; i++) {
    const it = items[i];
    lines.push(
      `<step_${i + 1}>`,
      `Evaluation of previous step: ${it.evaluation}`,
      `Memory: ${it.memory}`,
      `Next goal: ${it.nextGoal}`,
      `Action: ${JSON.stringify(toBrowserUse(it.action))}`,
      `Result: ${resultText(it.result)}`,
      `</step_${i + 1}>`,
    );
  }
  return lines.join('\n');
}

/**
 * The user message of one step. The observation's page fields are rendered as they are; `memory`
 * and `progress` must already be note-scrubbed by the caller, and `notes` is never read.
 * The message ends with IMAGE_SLOT when the step has a screenshot.
 */
export function userText(args: {
  objective: string;
  history: string;
  observation: Pick<
    Observation,
    'url' | 'title' | 'tabs' | 'text' | 'scroll' | 'lastActionError' | 'stepIndex'
  >;
  memory: string;
  progress: string;
  withImage: boolean;
}): string {
  const o = args.observation;
  const tabs = o.tabs.length
    ? o.tabs.map((t) => `[${t.id}] ${t.title} - ${t.url}${t.active ? ' (active)' : ''}`).join('\n')
    : `[0] ${o.title} - ${o.url} (active)`;
  const s = o.scroll;
  const parts = [
    '<task>',
    args.objective,
    '</task>',
    '<agent_history>',
    args.history,
    '</agent_history>',
    '<agent_state>',
    `Memory: ${args.memory}`,
    ...(args.progress ? [`Progress: ${args.progress}`] : []),
    `Step: ${o.stepIndex + 1}`,
    '</agent_state>',
    '<browser_state>',
    `Current URL: ${o.url}`,
    `Title: ${o.title}`,
    'Tabs:',
    tabs,
    `Scroll: ${s.pagesAbove.toFixed(1)} pages above, ${s.pagesBelow.toFixed(1)} pages below`,
    ...(o.lastActionError ? [`Last action error: ${o.lastActionError}`] : []),
    'Interactive elements:',
    o.text || '(none)',
    '</browser_state>',
  ];
  return parts.join('\n') + (args.withImage ? `\n${IMAGE_SLOT}` : '');
}
