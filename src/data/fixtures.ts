import sharp from 'sharp';
import {
  type Action,
  type CriticalState,
  type ReflectionRule,
  renderNote,
  type Trajectory,
  type TrajectoryInput,
  toBrowserUse,
} from '../core/index.ts';
import { RunStore } from '../store/index.ts';

/**
 * A small collection for data/ tests, built in code (no browser): verified successes after
 * reflection whose agent text quotes, paraphrases and mentions the injected note, a success with
 * no notes, and a failure. The note text is distinctive so a leak anywhere is detectable.
 */
export const NOTE_TEXT =
  'Before checking out, always open the zephyr quartz dropdown and choose marmalade delivery; the blue banner link is a decoy.';
export const NOTE_RULES: { avoid: ReflectionRule[]; prefer: ReflectionRule[] } = {
  avoid: [
    { kind: 'click', target: 'blue banner link', why: 'the banner is a decoy that empties the basket' },
  ],
  prefer: [{ kind: 'select', target: 'zephyr quartz dropdown', value: 'marmalade delivery' }],
};
export const NOTE = renderNote({ text: NOTE_TEXT, ...NOTE_RULES });
export const NOTE_C = 'Type the voucher code lavender okapi ninety seven exactly as printed on the receipt.';

/** Distinct tiny JPEGs, one per seed. */
export async function jpeg(seed: number): Promise<Buffer> {
  return sharp({
    create: {
      width: 16,
      height: 12,
      channels: 3,
      background: { r: (seed * 53) % 256, g: (seed * 97) % 256, b: (seed * 31) % 256 },
    },
  })
    .jpeg({ quality: 80 })
    .toBuffer();
}

interface StepSpec {
  action: Action;
  out: { thinking?: string; evaluation_previous_goal?: string; memory?: string; next_goal?: string };
  memory?: string;
  progress?: string;
  error?: string | null;
}

async function trajectory(
  id: string,
  taskId: string,
  round: number,
  success: boolean,
  notes: string[],
  specs: StepSpec[],
  seed: number,
): Promise<TrajectoryInput> {
  const steps = [];
  for (let i = 0; i < specs.length; i++) {
    const s = specs[i];
    const data = (await jpeg(seed * 10 + i)).toString('base64');
    steps.push({
      index: i,
      observation: {
        url: `http://127.0.0.1:8080/${taskId}/page${i}`,
        title: `Page ${i} of ${taskId}`,
        tabs: [
          { id: '0', url: `http://127.0.0.1:8080/${taskId}/page${i}`, title: `Page ${i}`, active: true },
        ],
        text: `[0]<a href="/home">Home</a>\n[1]<select name="shipping">Standard</select>\n[2]<input placeholder="Voucher">\n[3]<button>Continue ${i}</button>`,
        screenshot: { hash: 'from-browser', width: 16, height: 12, data },
        stepIndex: i,
        memory: s.memory ?? '',
        progress: s.progress ?? '',
        notes,
        lastActionError: i > 0 ? (specs[i - 1].error ?? null) : null,
      },
      output: { ...s.out, action: [toBrowserUse(s.action), { wait: { seconds: 1 } }] },
      action: s.action,
      result: {
        error: s.error ?? null,
        isDone: s.action.type === 'done',
        success: s.action.type === 'done' ? true : null,
      },
    });
  }
  return {
    id,
    task: {
      id: taskId,
      suite: 'world',
      site: 'shop',
      objective: `Complete checkout for order ${taskId} with the cheapest shipping.`,
      startUrl: `http://127.0.0.1:8080/${taskId}`,
      verifier: { kind: 'world', template: 'checkout', params: {} },
    },
    agentId: 'heuristic',
    round,
    notes,
    steps,
    endReason: 'done',
    verdict: {
      success,
      score: success ? 1 : 0.3,
      verifierId: 'world:checkout',
      reason: success ? 'ok' : 'wrong shipping',
    },
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:02:00.000Z',
    tags: ['teacher'],
  };
}

/** Writes the fixture collection into `dir` and returns the trajectories as saved. */
export async function buildCollection(
  dir: string,
): Promise<{ successIds: string[]; failureId: string; leakyStepTrajectory: string }> {
  const store = RunStore.open(dir);
  const fail = await trajectory(
    'tA_r0',
    'A',
    0,
    false,
    [],
    [
      {
        action: { type: 'click', index: 0 },
        out: { evaluation_previous_goal: 'Start.', memory: 'Opened the shop.', next_goal: 'Go home.' },
      },
      {
        action: { type: 'done', text: 'Checked out.', success: true },
        out: { memory: 'Done, I think.', next_goal: 'Finish.' },
      },
    ],
    1,
  );
  const okA = await trajectory(
    'tA_r1',
    'A',
    1,
    true,
    [NOTE],
    [
      {
        action: { type: 'select_dropdown', index: 1, text: 'Express' },
        out: {
          thinking:
            'The page shows a shipping select. Open the zephyr. Quartz dropdown is where shipping lives. My note matters here.',
          evaluation_previous_goal: 'Unknown - first step.',
          memory: 'As the note said, always open the zephyr quartz dropdown first. The cart holds 2 items.',
          next_goal: 'Open the quartz zephyr dropdown and pick marmalade.',
        },
        memory: '',
      },
      {
        action: { type: 'click', index: 3 },
        out: {
          evaluation_previous_goal: 'Success - shipping chosen.',
          memory: 'Shipping set to Express. The cart holds 2 items.',
          next_goal: 'Continue to payment.',
        },
        memory: 'As the note said, always open the zephyr quartz dropdown first. The cart holds 2 items.',
        progress: 'Avoid the decoy banner link like last time. Shipping chosen.',
      },
      {
        action: { type: 'done', text: 'Order A placed with Express shipping.', success: true },
        out: {
          evaluation_previous_goal: 'Success - on the confirmation page.',
          memory: 'Order placed.',
          next_goal: 'Report completion.',
        },
        memory: 'Shipping set to Express. The cart holds 2 items.',
      },
    ],
    2,
  );
  const okB = await trajectory(
    'tB_r0',
    'B',
    0,
    true,
    [],
    [
      {
        action: { type: 'input', index: 2, text: 'SPRING10', clear: true },
        out: {
          evaluation_previous_goal: 'Unknown - first step.',
          memory: 'Voucher SPRING10 applies to order B.',
          next_goal: 'Enter the voucher.',
        },
      },
      {
        action: { type: 'done', text: 'Order B placed.', success: true },
        out: {
          evaluation_previous_goal: 'Success - voucher accepted.',
          memory: 'Voucher SPRING10 applies to order B. Total is $40.',
          next_goal: 'Finish.',
        },
        memory: 'Voucher SPRING10 applies to order B.',
      },
    ],
    3,
  );
  const okC = await trajectory(
    'tC_r1',
    'C',
    1,
    true,
    [NOTE_C],
    [
      {
        action: { type: 'click', index: 2 },
        out: {
          evaluation_previous_goal: 'Unknown - first step.',
          memory: 'Type the voucher code lavender okapi ninety seven exactly.',
          next_goal: 'Focus the voucher box.',
        },
      },
      {
        // Copies the note into an action argument: the rule cannot rewrite actions, so this step is dropped.
        action: { type: 'input', index: 2, text: 'voucher code lavender okapi ninety seven', clear: true },
        out: {
          evaluation_previous_goal: 'Success - box focused.',
          memory: 'Box focused.',
          next_goal: 'Type the code.',
        },
      },
    ],
    4,
  );
  for (const t of [fail, okA, okB, okC]) store.saveTrajectory(t);
  store.saveReflection({
    id: 'ref_A0',
    taskId: 'A',
    round: 0,
    fromTrajectoryId: 'tA_r0',
    text: NOTE_TEXT,
    ...NOTE_RULES,
    source: 'rules',
    createdAt: '2025-01-01T00:03:00.000Z',
  });
  store.close();
  return { successIds: ['tA_r1', 'tB_r0', 'tC_r1'], failureId: 'tA_r0', leakyStepTrajectory: 'tC_r1' };
}

/** The expert's label the relabelled rollout of {@link buildRelabeledRollout} holds at its step 1. */
export const EXPERT_ACTION = { type: 'click' as const, index: 3 };

/**
 * A run of one relabelled rollout (`rollout --relabel`, DAgger) into `dir`: the collection's
 * failure `tA_r0` as `roll_A0`, the expert's {@link EXPERT_ACTION} recorded at step 1 (where the
 * agent answered `done`), step 0 unlabelled. Returns the saved trajectory.
 */
export function buildRelabeledRollout(dir: string, collectionDir: string): Trajectory {
  const src = RunStore.open(collectionDir, { readonly: true });
  const failed = src.getTrajectory('tA_r0');
  src.close();
  if (!failed) throw new Error(`${collectionDir} lacks the fixture's tA_r0`);
  const rollout: Trajectory = {
    ...failed,
    id: 'roll_A0',
    tags: ['rollout', 'relabel:heuristic'],
    steps: failed.steps.map((st, i) => (i === 1 ? { ...st, expertAction: EXPERT_ACTION } : st)),
  };
  const store = RunStore.open(dir);
  store.saveTrajectory(rollout);
  store.close();
  return rollout;
}

/** A critical state pairing step `stepIndex` of a stored success with the failure's step. */
export function criticalFrom(
  store: RunStore,
  successId: string,
  failureId: string,
  stepIndex: number,
  id = `cs_${successId}_${stepIndex}`,
): CriticalState {
  const s = store.getTrajectory(successId)!;
  const f = store.getTrajectory(failureId)!;
  const fi = Math.min(stepIndex, f.steps.length - 1);
  return {
    schemaVersion: 1,
    id,
    task: s.task,
    success: {
      trajectoryId: s.id,
      stepIndex,
      observation: s.steps[stepIndex].observation,
      action: s.steps[stepIndex].action,
      history: s.steps.slice(0, stepIndex).map((x) => x.action),
    },
    failure: {
      trajectoryId: f.id,
      stepIndex: fi,
      observation: f.steps[fi].observation,
      action: f.steps[fi].action,
      history: [],
    },
    comparability: { url: 1, elements: 0.9, memory: 0.5, progress: 0.5, total: 0.8 },
    label: 'lookalike-element',
    labelSource: 'rules',
    labelReason: 'different element with a similar label',
  };
}
