import {
  type Action,
  type ActionError,
  type Element,
  type EndReason,
  makeAgentOutput,
  Observation,
  type Step,
  type Task,
  type Trajectory,
} from '../core/index.ts';

/**
 * Small builders for hand-made trajectories: the miner's tests and its benchmark describe runs as
 * lists of (page, action) and let these fill in the schema's defaults. Built objects skip zod parsing
 * on purpose (the bench builds hundreds of thousands of states), so they set every field themselves.
 */

export interface ElementSpec {
  tag?: string;
  role?: string;
  name: string;
  href?: string;
  nodeKey?: string;
  parentIndex?: number | null;
  inViewport?: boolean;
  attributes?: Record<string, string>;
}

/** An element at `index`; nodeKey defaults to a key derived from role and name (stable across pages). */
export function element(index: number, spec: ElementSpec): Element {
  const tag = spec.tag ?? (spec.href ? 'a' : 'button');
  const role =
    spec.role ??
    (tag === 'a' ? 'link' : tag === 'input' ? 'textbox' : tag === 'select' ? 'combobox' : 'button');
  const attributes = { ...spec.attributes, ...(spec.href ? { href: spec.href } : {}) };
  return {
    index,
    tag,
    role,
    name: spec.name,
    text: spec.name,
    attributes,
    bbox: { x: 0, y: 40 * index, width: 100, height: 30 },
    nodeKey: spec.nodeKey ?? `${role}:${spec.name}:${spec.href ?? ''}`,
    inViewport: spec.inViewport ?? true,
    frame: '',
    inShadow: false,
    depth: spec.parentIndex != null ? 1 : 0,
    parentIndex: spec.parentIndex ?? null,
  };
}

/** A page observation; elements are indexed in order. */
export function page(
  url: string,
  elements: ElementSpec[],
  extra: Partial<
    Pick<Observation, 'memory' | 'lastActionError' | 'lastActionErrorKind' | 'title' | 'notes'>
  > = {},
): Observation {
  return {
    ...Observation.parse({ url }),
    elements: elements.map((e, i) => element(i, e)),
    ...extra,
  };
}

/**
 * A step taking `action` in `obs`; `error` marks the action as failed (a bare message is a record
 * from before error kinds existed).
 */
export function step(
  index: number,
  obs: Observation,
  action: Action,
  error: string | ActionError | null = null,
): Step {
  const failed = typeof error === 'string' ? { message: error } : error;
  return {
    index,
    observation: { ...obs, stepIndex: index },
    output: makeAgentOutput({ memory: obs.memory }, [action]),
    action,
    result: {
      error: failed?.message ?? null,
      ...(failed && 'kind' in failed ? { errorKind: failed.kind } : {}),
      isDone: action.type === 'done',
      success: action.type === 'done' ? action.success : null,
      extractedContent: action.type === 'done' ? action.text : null,
    },
    timing: { modelMs: 0, actMs: 0, observeMs: 0 },
  };
}

export function task(id: string, site = 'shop'): Task {
  return {
    schemaVersion: 1,
    id,
    suite: 'world',
    site,
    objective: `task ${id}`,
    startUrl: 'http://shop.test/',
    verifier: { kind: 'world', template: 't', params: {} },
  };
}

/**
 * A trajectory from (observation, action) pairs. `success` true/false sets a verdict, null leaves none;
 * endReason defaults to 'done' when the last action is done, else 'max_steps'.
 */
export function trajectory(
  id: string,
  t: Task,
  moves: Array<[Observation, Action] | [Observation, Action, string | ActionError]>,
  success: boolean | null,
  endReason?: EndReason,
): Trajectory {
  const steps = moves.map(([obs, action, error], i) => step(i, obs, action, error ?? null));
  const last = steps[steps.length - 1]?.action;
  return {
    schemaVersion: 1,
    id,
    task: t,
    agentId: 'test',
    round: 0,
    notes: [],
    steps,
    finalAnswer: last?.type === 'done' ? last.text : null,
    endReason: endReason ?? (last?.type === 'done' ? 'done' : 'max_steps'),
    endDetail: '',
    verdict:
      success === null
        ? null
        : { success, score: success ? 1 : 0, reason: '', verifierId: 'test', failedConditions: [] },
    usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 },
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:00:10.000Z',
    tags: [],
  };
}

/** Action shorthands. */
export const act = {
  click: (index: number): Action => ({ type: 'click', index }),
  input: (index: number, text: string): Action => ({ type: 'input', index, text, clear: true }),
  select: (index: number, text: string): Action => ({ type: 'select_dropdown', index, text }),
  scroll: (down = true): Action => ({ type: 'scroll', down, pages: 1 }),
  back: (): Action => ({ type: 'go_back' }),
  navigate: (url: string): Action => ({ type: 'navigate', url, new_tab: false }),
  done: (text = '', success = true): Action => ({ type: 'done', text, success }),
};
