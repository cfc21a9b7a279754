import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import type { CriticalState, ObservationInput, TrajectoryInput } from '../../core/index.ts';
import { summarizeEval } from '../../eval/metrics.ts';
import { writeReport } from '../../eval/report.ts';
import { METRICS } from '../../rl/metrics.ts';
import { currentVersions, RunStore } from '../../store/index.ts';

/** Viewport of the fixture pages; screenshots are downscaled to half of it, as `maxWidth` does. */
export const VIEWPORT = { width: 800, height: 600 };
export const SHOT_WIDTH = 400;

/** Element boxes of the fixture shop page, in page coordinates (the page is 1400 px tall). */
export const SHOP_BOXES = {
  search: { x: 40, y: 80, width: 300, height: 36 },
  go: { x: 360, y: 80, width: 80, height: 36 },
  cart: { x: 300, y: 700, width: 180, height: 44 },
  wishlist: { x: 300, y: 770, width: 180, height: 44 },
};

function shopHtml(banner: string): string {
  const abs = (b: { x: number; y: number; width: number; height: number }) =>
    `position:absolute;left:${b.x}px;top:${b.y}px;width:${b.width}px;height:${b.height}px`;
  return `<!doctype html><html><body style="margin:0;height:1400px;font:16px sans-serif;background:linear-gradient(#eef 0,#fff 1400px)">
<h1 style="position:absolute;left:40px;top:10px;margin:0">Trail Shop</h1>
<input style="${abs(SHOP_BOXES.search)}" placeholder="Search products">
<button style="${abs(SHOP_BOXES.go)};background:#333;color:#fff">Go</button>
<p style="position:absolute;left:40px;top:600px">Trail shoes X1 · $89 · ${banner}</p>
<button style="${abs(SHOP_BOXES.cart)};background:#16a34a;color:#fff">Add to cart</button>
<button style="${abs(SHOP_BOXES.wishlist)};background:#2563eb;color:#fff">Add to wishlist</button>
</body></html>`;
}

/** Renders the shop page in Chromium at a scroll offset and returns a downscaled JPEG (base64). */
async function shot(
  page: Page,
  scrollY: number,
  banner: string,
): Promise<{ data: string; width: number; height: number }> {
  await page.setViewportSize(VIEWPORT);
  await page.setContent(shopHtml(banner));
  await page.evaluate((y) => window.scrollTo(0, y), scrollY);
  const full = await page.screenshot({ type: 'jpeg', quality: 70 });
  const out = await sharp(full)
    .resize({ width: SHOT_WIDTH })
    .jpeg({ quality: 70 })
    .toBuffer({ resolveWithObject: true });
  return { data: out.data.toString('base64'), width: out.info.width, height: out.info.height };
}

const ELEMENTS = [
  {
    index: 0,
    tag: 'input',
    name: 'Search products',
    bbox: SHOP_BOXES.search,
    nodeKey: 'k-search',
    attributes: { placeholder: 'Search products' },
  },
  { index: 1, tag: 'button', name: 'Go', text: 'Go', bbox: SHOP_BOXES.go, nodeKey: 'k-go' },
  {
    index: 2,
    tag: 'button',
    name: 'Add to cart',
    text: 'Add to cart',
    bbox: SHOP_BOXES.cart,
    nodeKey: 'k-cart',
  },
  {
    index: 3,
    tag: 'button',
    name: 'Add to wishlist',
    text: 'Add to wishlist',
    bbox: SHOP_BOXES.wishlist,
    nodeKey: 'k-wish',
  },
];
const TEXT =
  '[0]<input placeholder=Search products>\n[1]<button>Go</button>\nTrail shoes X1 · $89\n[2]<button>Add to cart</button>\n[3]<button>Add to wishlist</button>';

function obs(o: {
  i: number;
  scrollY: number;
  shot: { data: string; width: number; height: number } | null;
  notes?: string[];
  memory?: string;
}): ObservationInput {
  return {
    url: `http://127.0.0.1:9/shop/search?q=trail${o.i ? `&step=${o.i}` : ''}`,
    title: 'Trail Shop',
    elements: ELEMENTS.map((e) => ({
      ...e,
      inViewport: e.bbox.y + e.bbox.height > o.scrollY && e.bbox.y < o.scrollY + VIEWPORT.height,
    })),
    text: TEXT,
    screenshot: o.shot
      ? { hash: 'pending', width: o.shot.width, height: o.shot.height, data: o.shot.data }
      : null,
    scroll: {
      x: 0,
      y: o.scrollY,
      viewportWidth: VIEWPORT.width,
      viewportHeight: VIEWPORT.height,
      pageHeight: 1400,
    },
    stepIndex: o.i,
    memory: o.memory ?? '',
    notes: o.notes ?? [],
  };
}

const TASK_SHOES = {
  id: 'shop-cart-001',
  suite: 'world' as const,
  site: 'shop',
  objective: 'Add the Trail shoes X1 to the cart.',
  startUrl: 'http://127.0.0.1:9/shop',
  level: 'easy' as const,
  split: 'test' as const,
  verifier: { kind: 'world' as const, template: 'add-to-cart', params: { sku: 'x1' } },
};
const TASK_FLIGHT = {
  id: 'travel-flight-002',
  suite: 'world' as const,
  site: 'travel',
  objective: 'Find the cheapest flight to Lisbon.',
  startUrl: 'http://127.0.0.1:9/travel',
  level: 'medium' as const,
  split: 'test' as const,
  verifier: { kind: 'world' as const, template: 'cheapest-flight', params: {} },
};

export const NOTE = 'Last time you clicked "Add to wishlist" instead of "Add to cart". Click "Add to cart".';

/** What the fixture contains, for assertions. */
export interface FixtureRun {
  runDir: string;
  modelsDir: string;
  failId: string;
  okId: string;
  textId: string;
  criticalIds: [string, string];
}

/**
 * Builds a small but real run folder: screenshots rendered by Chromium (`page`) and downscaled
 * with sharp, a failed and a successful attempt of one task (the second with a reflection note),
 * an attempt without screenshots, a reflection, two critical states (one in critical.jsonl, one
 * as a store record whose failure screenshot is missing), RL metrics in the store and in model
 * folders, an eval summary, an eval report and an ablation table.
 */
export async function buildFixtureRun(root: string, page: Page): Promise<FixtureRun> {
  const runDir = join(root, 'run');
  const modelsDir = join(root, 'models');
  const top = await shot(page, 0, 'results');
  const low = await shot(page, 500, 'in stock');
  const done = await shot(page, 500, 'added to cart ✓');
  const store = RunStore.open(runDir);
  const now = '2026-01-02T03:04:05.000Z';
  store.writeManifest({
    name: 'viewer-fixture',
    command: 'rmsweb collect --out runs/viewer-fixture',
    config: { rounds: 5 },
    seed: 7,
    createdAt: now,
    updatedAt: now,
    versions: currentVersions(),
  });

  const output = (memory: string, next: string, action: Record<string, Record<string, unknown>>) => ({
    evaluation_previous_goal: 'Success - the page shows the search results',
    memory,
    next_goal: next,
    action: [action],
  });
  const base = {
    task: TASK_SHOES,
    agentId: 'heuristic',
    endReason: 'done' as const,
    startedAt: now,
    endedAt: '2026-01-02T03:05:05.000Z',
  };
  const fail: TrajectoryInput = {
    ...base,
    id: 'traj-fail',
    round: 0,
    tags: ['teacher', 'collect'],
    steps: [
      {
        index: 0,
        observation: obs({ i: 0, scrollY: 0, shot: top }),
        output: output('searching', 'Type the product name', { input: { index: 0, text: 'trail shoes' } }),
        action: { type: 'input', index: 0, text: 'trail shoes' },
        result: {},
      },
      {
        index: 1,
        observation: obs({ i: 1, scrollY: 500, shot: low, memory: 'found X1' }),
        output: output('found X1', 'Add it', { click: { index: 3 } }),
        action: { type: 'click', index: 3 },
        result: { error: 'element 3 was covered by a cookie banner', errorKind: 'covered' },
      },
      {
        index: 2,
        observation: obs({ i: 2, scrollY: 500, shot: done }),
        output: output('added?', 'Finish', { done: { text: 'added', success: true } }),
        action: { type: 'done', text: 'added', success: true },
        result: { isDone: true, success: true, extractedContent: 'added' },
      },
    ],
    verdict: {
      success: false,
      score: 0,
      reason: 'the cart is empty',
      verifierId: 'world',
      failedConditions: ['cart contains x1'],
    },
  };
  const ok: TrajectoryInput = {
    ...base,
    id: 'traj-ok',
    round: 1,
    tags: ['teacher', 'collect'],
    notes: [NOTE],
    steps: [
      {
        index: 0,
        observation: obs({ i: 0, scrollY: 0, shot: top, notes: [NOTE] }),
        output: output('searching', 'Type the product name', { input: { index: 0, text: 'trail shoes' } }),
        action: { type: 'input', index: 0, text: 'trail shoes' },
        result: {},
      },
      {
        index: 1,
        observation: obs({ i: 1, scrollY: 500, shot: low, notes: [NOTE], memory: 'found X1' }),
        output: output('found X1', 'Add it to the cart', { click: { index: 2 } }),
        action: { type: 'click', index: 2 },
        result: {},
      },
      {
        index: 2,
        observation: obs({ i: 2, scrollY: 500, shot: done, notes: [NOTE] }),
        output: output('added', 'Finish', { done: { text: 'added', success: true } }),
        action: { type: 'done', text: 'added', success: true },
        result: { isDone: true, success: true, extractedContent: 'added' },
      },
    ],
    verdict: { success: true, score: 1, reason: 'x1 in cart', verifierId: 'world' },
  };
  const text: TrajectoryInput = {
    ...base,
    id: 'traj-text',
    task: TASK_FLIGHT,
    round: 0,
    tags: ['teacher', 'collect'],
    endReason: 'max_steps',
    steps: [0, 1].map((i) => ({
      index: i,
      observation: obs({ i, scrollY: 0, shot: null }),
      output: output('', 'Search flights', { click: { index: 1 } }),
      action: { type: 'click' as const, index: 1 },
      result: {},
    })),
    verdict: null,
  };
  for (const t of [fail, ok, text]) store.saveTrajectory(t);
  store.saveReflection({
    id: 'refl-1',
    taskId: TASK_SHOES.id,
    round: 0,
    fromTrajectoryId: 'traj-fail',
    text: NOTE,
    source: 'rules',
    createdAt: now,
  });

  // Critical states reuse the saved observations, whose screenshots now carry their image hashes.
  const saved = { fail: store.getTrajectory('traj-fail')!, ok: store.getTrajectory('traj-ok')! };
  const cs = (id: string, failureObs = saved.fail.steps[1].observation): CriticalState => ({
    schemaVersion: 1,
    id,
    task: saved.ok.task,
    success: {
      trajectoryId: 'traj-ok',
      stepIndex: 1,
      observation: saved.ok.steps[1].observation,
      action: { type: 'click', index: 2 },
      history: [saved.ok.steps[0].action],
    },
    failure: {
      trajectoryId: 'traj-fail',
      stepIndex: 1,
      observation: failureObs,
      action: { type: 'click', index: 3 },
      history: [saved.fail.steps[0].action],
    },
    comparability: { url: 1, elements: 0.92, memory: 0.6, progress: 1, total: 0.88 },
    label: 'lookalike-element',
    labelSource: 'rules',
    labelReason: 'both buttons say "Add to ..."; the failure clicked the wishlist lookalike',
  });
  writeFileSync(join(runDir, 'critical.jsonl'), `${JSON.stringify(cs('cs-1'))}\n`);
  const missing = {
    ...saved.fail.steps[1].observation,
    screenshot: { hash: 'f'.repeat(64), mime: 'image/jpeg' as const, width: 400, height: 300 },
  };
  store.putRecord('critical-state', 'cs-2', { ...cs('cs-2', missing), label: 'missed-constraint' });

  const metric = (s: number) => ({
    [METRICS.meanReward]: -0.5 + s / 20,
    [METRICS.contrastGatePass]: 0.3 + s / 50,
    [METRICS.competenceGatePass]: 0.2 + s / 40,
    [METRICS.salvageShare]: 0.7 - s / 40,
    [METRICS.klRef]: s / 1000,
    [METRICS.policyLoss]: 1 / s,
    [METRICS.salvageCe]: 2 / s,
    [METRICS.kl]: s / 2000,
    [METRICS.total]: 3 / s,
    [METRICS.rolloutsTotal]: 64 * s,
  });
  for (let s = 1; s <= 20; s++) store.appendMetric('rl/salvage-ds/models/sd', s, metric(s));
  mkdirSync(join(modelsDir, 'grpo'), { recursive: true });
  mkdirSync(join(modelsDir, 'sft'), { recursive: true });
  const grpo = Array.from({ length: 20 }, (_, i) => ({
    step: i + 1,
    ...metric(i + 1),
    [METRICS.meanReward]: -0.6 + i / 30,
    [METRICS.salvageShare]: 0,
  }));
  writeFileSync(
    join(modelsDir, 'grpo', 'rl-metrics.json'),
    JSON.stringify({
      algo: 'grpo',
      reward: 'exact',
      examples: 2,
      rolloutsSampled: 1280,
      wallMs: 4200,
      metrics: grpo,
    }),
  );
  writeFileSync(
    join(modelsDir, 'sft', 'metrics.json'),
    JSON.stringify({
      data: {},
      options: {},
      epochs: [1, 2, 3].map((e) => ({
        epoch: e,
        trainLoss: 2 / e,
        valLoss: 2.2 / e,
        trainStepAccuracy: 0.3 * e,
        valStepAccuracy: null,
      })),
    }),
  );

  const all = [saved.fail, saved.ok, store.getTrajectory('traj-text')!];
  const summary = summarizeEval(all, { agentId: 'heuristic', suite: 'world' });
  store.putRecord('eval-summary', 'teacher', { ...summary, wallSeconds: 12.5 });
  const rate = (m: number) => ({
    mean: m,
    std: 0.02,
    min: m - 0.02,
    max: m + 0.02,
    perRun: [m - 0.02, m, m + 0.02],
    tasks: 30,
  });
  const ablation = [
    { row: 'SFT', pass1: rate(0.41), meanStepsSolved: 7.2, rollouts: 0, trainSeconds: 30 },
    {
      row: '+ Salvage-DS (mined)',
      pass1: rate(0.49),
      meanStepsSolved: 6.8,
      rollouts: 1280,
      trainSeconds: 12,
    },
    { row: 'DAPO (mined)', pass1: rate(0.44), meanStepsSolved: 7.0, rollouts: 2400, trainSeconds: 20 },
  ];
  writeReport(join(runDir, 'reports', 'teacher'), {
    title: 'Evaluation of heuristic on world',
    createdAt: now,
    stages: [{ stage: 'teacher', summary }],
  });
  mkdirSync(join(runDir, 'ablation'), { recursive: true });
  writeFileSync(
    join(runDir, 'ablation', 'ablation.json'),
    JSON.stringify({ preset: 'quick', rows: ablation }),
  );
  writeFileSync(join(runDir, 'ablation', 'ablation.md'), '| row | pass@1 |\n|---|---|\n| SFT | 41.0% |\n');
  store.close();
  return {
    runDir,
    modelsDir,
    failId: 'traj-fail',
    okId: 'traj-ok',
    textId: 'traj-text',
    criticalIds: ['cs-2', 'cs-1'],
  };
}
