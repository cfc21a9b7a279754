import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrateJudges } from '../../eval/calibrate-judges.ts';
import { renderCalibrationMarkdown } from '../../eval/judge-calibration.ts';
import { judgeUnderTest, parseJudgeSpec } from '../../judge/judge-under-test.ts';
import { makeTrajectory } from '../../store/fixtures.ts';
import { RunStore } from '../../store/run-store.ts';
import { WORLD_VERIFIER_ID } from '../../world/world.ts';
import { LlamaBackend } from '../serve-model/llama-backend.ts';
import { ModelServer } from '../serve-model/server.ts';
import { localModelPath, localModelSkipReason } from '../serve-model/testing/local-model.ts';

// The 270M judge calibrated for real: the GGUF scripts/get-local-model.sh installs, behind the
// server `rmsweb serve-model` runs, reached as `openai:gemma@URL` like any judge. The test asserts
// that every verdict is usable or counted as a judge error, never thrown or read as a failure;
// what the model judges is not asserted (a 270M model is weak). On 2 CPU cores prompt evaluation
// runs at ~400 tokens/s, so the episodes are short and each reply is capped at a sentence: the
// model echoes its prompt first, so its verdict comes from the follow-up that asks for it alone.
const skip = localModelSkipReason();
const MINUTES = 60_000;
const REPLY_TOKENS = 24;

/** Ten short world episodes, five the verifier passed and five it failed. */
function seed(store: RunStore): void {
  const items = ['Trail Runner 2', 'Camp Stove', 'Rain Shell', 'Day Pack', 'Head Lamp'];
  items.forEach((item, i) => {
    for (const success of [true, false]) {
      const t = makeTrajectory({
        id: `t${i}${success ? 's' : 'f'}`,
        taskId: `shop.cart.${i}`,
        success,
        steps: 1,
      });
      const answer = success ? `Added the ${item} to the cart.` : 'I could not find it.';
      store.saveTrajectory({
        ...t,
        task: { ...t.task, objective: `Add the ${item} to the cart.` },
        steps: [
          {
            ...(t.steps as any[])[0],
            action: { type: 'done', text: answer, success },
            result: { isDone: true, success, extractedContent: answer },
          },
        ],
        finalAnswer: answer,
        verdict: {
          success,
          score: success ? 1 : 0,
          reason: success ? 'cart holds the item' : 'cart.item not met',
          verifierId: WORLD_VERIFIER_ID,
          failedConditions: success ? [] : ['cart.item'],
        },
      });
    }
  });
}

// Under CI the model is installed first (.ci/run): its absence fails the suite instead of skipping.
if (skip !== null && process.env.CI)
  describe('the real local model under CI (judge calibration)', () => {
    it('is installed (bash scripts/get-local-model.sh)', () => {
      expect.fail(`CI must install the local model before npm test: ${skip}`);
    });
  });

describe.skipIf(skip !== null)('judge calibration with the real local model', () => {
  let backend: LlamaBackend;
  let server: ModelServer;
  let dir: string;
  beforeAll(async () => {
    backend = await LlamaBackend.open({ gguf: localModelPath(), contextSize: 2048, threads: 1 });
    server = await ModelServer.start({ backend, port: 0, maxStringLength: 40 });
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-judge-real-'));
  }, 5 * MINUTES);
  afterAll(async () => {
    await server?.close();
    await backend?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'calibrates the 270M judge on 10 episodes: every verdict usable or a counted judge error',
    async () => {
      const store = RunStore.open(dir);
      seed(store);
      const judges = [
        judgeUnderTest(parseJudgeSpec('rules')),
        judgeUnderTest(parseJudgeSpec(`openai:gemma@${server.url}`), {
          maxTokens: REPLY_TOKENS,
          timeoutMs: 3 * MINUTES,
          env: {},
        }),
      ];
      const r = await calibrateJudges({ store, run: dir, judges, sample: 10, seed: 0, resamples: 300 });
      expect(r.sample).toMatchObject({ successes: 5, failures: 5 });
      const gemma = r.rows.find((x) => x.row.startsWith('webvoyager:openai:gemma'))!;
      const c = gemma.stats.confusion;
      expect(c.tp + c.fp + c.fn + c.tn + c.errors).toBe(10);
      // Errors are named kinds, and an endpoint that was up never errs as "endpoint".
      expect(Object.keys(gemma.errorKinds).every((k) => ['unparseable', 'timeout'].includes(k))).toBe(true);
      expect(gemma.tokensPerVerdict).toBeGreaterThan(0);
      expect(r.rows.find((x) => x.row === 'rules')!.stats.agreement.value).toBe(1);
      expect(renderCalibrationMarkdown(r)).toContain('| webvoyager:openai:gemma@');
      console.log(
        `[judge calibration, 270M] ${c.tp} tp, ${c.fp} fp, ${c.fn} fn, ${c.tn} tn, ${c.errors} errors; ` +
          `${gemma.tokensPerVerdict?.toFixed(0)} tokens and ${gemma.secondsPerVerdict?.toFixed(1)} s per verdict`,
      );
      store.close();
    },
    12 * MINUTES,
  );
});
