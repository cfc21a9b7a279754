import type { TrajectoryInput } from '../core/index.ts';

/**
 * A small valid trajectory for tests of modules that read or write run stores. `screenshotData`
 * (base64) is put on every step's screenshot, as the browser hands it over before persistence.
 */
export function makeTrajectory(
  opts: {
    id?: string;
    taskId?: string;
    site?: string;
    agentId?: string;
    round?: number;
    success?: boolean | null;
    steps?: number;
    tags?: string[];
    notes?: string[];
    screenshotData?: string;
  } = {},
): TrajectoryInput {
  const id = opts.id ?? 'traj_test';
  const taskId = opts.taskId ?? 'task_1';
  const nSteps = opts.steps ?? 2;
  const success = opts.success === undefined ? true : opts.success;
  return {
    id,
    task: {
      id: taskId,
      suite: 'world',
      site: opts.site ?? 'shop',
      objective: 'Find the cheapest trail shoes and add them to the cart.',
      startUrl: 'http://127.0.0.1:1/shop',
      verifier: { kind: 'world', template: 'add-to-cart', params: { sku: 'ts-1' } },
    },
    agentId: opts.agentId ?? 'heuristic',
    round: opts.round ?? 0,
    notes: opts.notes ?? [],
    steps: Array.from({ length: nSteps }, (_, i) => ({
      index: i,
      observation: {
        url: `http://127.0.0.1:1/shop?page=${i}`,
        title: 'Shop',
        text: `[0]<a href="/cart">Cart</a>\n[1]<button>Add to cart ${i}</button>`,
        stepIndex: i,
        notes: opts.notes ?? [],
        screenshot: {
          hash: 'pending',
          width: 8,
          height: 8,
          ...(opts.screenshotData !== undefined ? { data: opts.screenshotData } : {}),
        },
      },
      output: {
        evaluation_previous_goal: 'Success',
        memory: `step ${i}`,
        next_goal: 'Click add to cart',
        action: [{ click: { index: 1 } }],
      },
      action: { type: 'click' as const, index: 1 },
      result: {},
    })),
    endReason: 'done',
    verdict: success === null ? null : { success, score: success ? 1 : 0, verifierId: 'world' },
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:01:00.000Z',
    tags: opts.tags ?? ['teacher'],
  };
}
