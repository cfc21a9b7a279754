import { z } from 'zod';
import type { Action } from '../core/action.ts';
import type { Observation } from '../core/observation.ts';

/**
 * The wire format of `rmsweb env serve`, the OpenEnv protocol as openenv-core 0.3.0 speaks it
 * (`openenv/core/env_server/http_server.py` and `env_client.py`): a WebSocket session at `/ws`
 * carrying `{type: reset|step|state|close, data}` messages, answered by `{type: observation, data:
 * {observation, reward, done}}`, `{type: state, data}` or `{type: error, data: {message, code}}`;
 * plus stateless HTTP `POST /reset`, `POST /step`, `GET /state`, `GET /health`, `GET /schema`.
 * Every field name here is the wire's (snake_case), declared once and validated on arrival.
 */

/** openenv-core's `WSErrorCode` values, plus the one for an action a finished episode cannot take. */
export const ERROR_CODES = [
  'INVALID_JSON',
  'UNKNOWN_TYPE',
  'VALIDATION_ERROR',
  'EXECUTION_ERROR',
  'CAPACITY_REACHED',
  'SESSION_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** A message that broke the protocol (bad JSON, unknown type, invalid fields): answered, never fatal. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Options of a reset (the `data` of a WebSocket reset, the body of `POST /reset`). */
export const ResetOptions = z
  .object({
    /** A world task id (`rmsweb world tasks`), e.g. `shop.cheapest.train.003`. */
    task_id: z.string().min(1).optional(),
    /** With `index`: the index-th task of that split (wraps around). */
    split: z.enum(['train', 'test']).optional(),
    index: z.number().int().nonnegative().optional(),
    /** World seed (which sites, data and tasks); default the server's. */
    world_seed: z.number().int().nonnegative().optional(),
    /** Perturbation seed of this visit (listing order, overlays, decoys; never the answer); default 0. */
    perturbation_seed: z.number().int().nonnegative().optional(),
    /** Start at this mined critical state (needs `--critical FILE`): the success side's prefix is replayed. */
    critical_state_id: z.string().min(1).optional(),
    /** Attach a JPEG screenshot (base64) to every observation of this episode. */
    screenshot: z.boolean().default(false),
    /** Attach the heuristic teacher's action on each page as `expert_action` (for distillation and tests). */
    expert: z.boolean().default(false),
    /** Step budget of the episode (default the server's, 30). */
    max_steps: z.number().int().positive().max(500).optional(),
    /** OpenEnv's own reset fields: accepted; `seed` is the perturbation seed when that is not given. */
    seed: z.number().int().nonnegative().optional(),
    episode_id: z.string().max(255).optional(),
  })
  .strict()
  .refine((o) => (o.split === undefined) === (o.index === undefined), {
    message: 'split and index go together',
    path: ['split'],
  })
  .refine(
    (o) =>
      [o.task_id !== undefined, o.split !== undefined, o.critical_state_id !== undefined].filter(Boolean)
        .length <= 1,
    { message: 'give one of task_id, split + index, or critical_state_id', path: ['task_id'] },
  );
export type ResetOptions = z.infer<typeof ResetOptions>;

const index = z.number().int().nonnegative().describe('the element index in the current observation');

/**
 * The actions: the registry's (core/action.ts) in one tab, by element index, as a policy trained
 * online uses them (navigation stays inside the world: the browser's allowlist holds). `input` also
 * answers to `fill`, `select` to `select_dropdown`.
 */
export const WireAction = z.discriminatedUnion('type', [
  z.object({ type: z.literal('click'), index }).strict(),
  z
    .object({
      type: z.enum(['input', 'fill']),
      index,
      text: z.string(),
      clear: z.boolean().default(true),
    })
    .strict(),
  z.object({ type: z.enum(['select', 'select_dropdown']), index, option: z.string() }).strict(),
  z
    .object({
      type: z.literal('scroll'),
      direction: z.enum(['up', 'down']).default('down'),
      pages: z.number().min(0.1).max(10).default(1),
    })
    .strict(),
  z.object({ type: z.literal('go_back') }).strict(),
  z.object({ type: z.literal('send_keys'), keys: z.string().min(1) }).strict(),
  z.object({ type: z.literal('wait'), seconds: z.number().min(0).max(30).default(1) }).strict(),
  z.object({ type: z.literal('navigate'), url: z.string().min(1) }).strict(),
  z.object({ type: z.literal('done'), answer: z.string().default('') }).strict(),
]);
export type WireAction = z.infer<typeof WireAction>;

/** The step message's action, without OpenEnv's generic `metadata` field (its base Action has one). */
export function parseWireAction(data: unknown): WireAction {
  const raw = data && typeof data === 'object' && !Array.isArray(data) ? { ...(data as object) } : data;
  if (raw && typeof raw === 'object') delete (raw as Record<string, unknown>).metadata;
  const r = WireAction.safeParse(raw);
  if (!r.success)
    throw new ProtocolError('VALIDATION_ERROR', `invalid action: ${r.error.issues[0]?.message}`, {
      errors: r.error.issues.map((i) => ({ loc: i.path.map(String), msg: i.message })),
    });
  return r.data;
}

/** The registry action a wire action stands for. */
export function toAction(a: WireAction): Action {
  switch (a.type) {
    case 'click':
      return { type: 'click', index: a.index };
    case 'input':
    case 'fill':
      return { type: 'input', index: a.index, text: a.text, clear: a.clear };
    case 'select':
    case 'select_dropdown':
      return { type: 'select_dropdown', index: a.index, text: a.option };
    case 'scroll':
      return { type: 'scroll', down: a.direction === 'down', pages: a.pages };
    case 'go_back':
      return { type: 'go_back' };
    case 'send_keys':
      return { type: 'send_keys', keys: a.keys };
    case 'wait':
      return { type: 'wait', seconds: a.seconds };
    case 'navigate':
      return { type: 'navigate', url: a.url, new_tab: false };
    case 'done':
      return { type: 'done', text: a.answer, success: true };
  }
}

/** A registry action on the wire, or null for one the wire has no name for (the tab actions). */
export function fromAction(a: Action): WireAction | null {
  switch (a.type) {
    case 'click':
      return { type: 'click', index: a.index };
    case 'input':
      return { type: 'input', index: a.index, text: a.text, clear: a.clear };
    case 'select_dropdown':
      return { type: 'select', index: a.index, option: a.text };
    case 'scroll':
      return { type: 'scroll', direction: a.down ? 'down' : 'up', pages: a.pages };
    case 'go_back':
      return { type: 'go_back' };
    case 'send_keys':
      return { type: 'send_keys', keys: a.keys };
    case 'wait':
      return { type: 'wait', seconds: a.seconds };
    case 'navigate':
      return a.new_tab ? null : { type: 'navigate', url: a.url };
    case 'done':
      return { type: 'done', answer: a.text };
    default:
      return null;
  }
}

/** An infrastructure failure: the episode could not be run, which is not the agent's failure. */
export interface InfraError {
  kind: 'browser' | 'navigation' | 'world' | 'internal';
  message: string;
}

/** How a critical-state reset's replay went. */
export interface ReplayReport {
  critical_state_id: string;
  matched: boolean;
  comparability: number;
  threshold: number;
  /** Recorded steps replayed (the state's position in the success run). */
  steps: number;
  detail: string;
}

/** The `info` object inside each observation (OpenEnv's step result has no separate info field). */
export interface StepInfo {
  episode_id: string | null;
  task_id: string | null;
  /** Present once the episode ended: why, and the verifier's verdict (absent after an infra error). */
  end_reason?: string;
  verdict?: { success: boolean; score: number; reason: string; verifier: string };
  infra_error?: InfraError;
  replay?: ReplayReport;
}

/** What the agent sees, on the wire. */
export interface WireObservation {
  goal: string;
  url: string;
  title: string;
  /** The text view the model reads: one `[index]<tag attrs>text` line per element, page text between. */
  text: string;
  elements: Array<{ index: number; tag: string; role: string; name: string; text: string }>;
  last_action_error: string | null;
  step: number;
  max_steps: number;
  screenshot: string | null;
  expert_action: WireAction | null;
  info: StepInfo;
}

/** The wire observation of a page (or an empty one when the episode ended without a page). */
export function wireObservation(
  obs: Observation | null,
  ctx: {
    goal: string;
    step: number;
    maxSteps: number;
    screenshot: string | null;
    expert: WireAction | null;
    info: StepInfo;
  },
): WireObservation {
  return {
    goal: ctx.goal,
    url: obs?.url ?? '',
    title: obs?.title ?? '',
    text: obs?.text ?? '',
    elements: (obs?.elements ?? []).map((e) => ({
      index: e.index,
      tag: e.tag,
      role: e.role,
      name: e.name,
      text: e.text,
    })),
    last_action_error: obs?.lastActionError ?? null,
    step: ctx.step,
    max_steps: ctx.maxSteps,
    screenshot: ctx.screenshot,
    expert_action: ctx.expert,
    info: ctx.info,
  };
}

/** OpenEnv's step result: reward null until the episode ends, and after an infrastructure error. */
export interface StepResult {
  observation: WireObservation;
  reward: number | null;
  done: boolean;
}

/** The session state (`{type: state}` and `GET /state`): OpenEnv's `episode_id`, `step_count`, and ours. */
export interface SessionState {
  episode_id: string | null;
  step_count: number;
  task_id: string | null;
  done: boolean;
  critical_state_id: string | null;
}

/** An incoming WebSocket message (the envelope; `data` is validated per type). */
export const WsMessage = z.object({
  type: z.string(),
  data: z.unknown().optional(),
});

/** JSON schemas for `GET /schema`. */
export function schemas(): { action: unknown; observation: unknown; state: unknown } {
  return {
    action: z.toJSONSchema(WireAction, { io: 'input' }),
    observation: {
      type: 'object',
      properties: {
        goal: { type: 'string' },
        url: { type: 'string' },
        title: { type: 'string' },
        text: { type: 'string' },
        elements: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              index: { type: 'integer' },
              tag: { type: 'string' },
              role: { type: 'string' },
              name: { type: 'string' },
              text: { type: 'string' },
            },
          },
        },
        last_action_error: { type: ['string', 'null'] },
        step: { type: 'integer' },
        max_steps: { type: 'integer' },
        screenshot: { type: ['string', 'null'], description: 'base64 JPEG, when the reset asked' },
        expert_action: { description: "the heuristic teacher's action, when the reset asked" },
        info: { type: 'object' },
      },
    },
    state: {
      type: 'object',
      properties: {
        episode_id: { type: ['string', 'null'] },
        step_count: { type: 'integer' },
        task_id: { type: ['string', 'null'] },
        done: { type: 'boolean' },
        critical_state_id: { type: ['string', 'null'] },
      },
    },
  };
}
