import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JUDGE_VERDICT_RECORD, type JudgeVerdictRecord, judgeVerdictKey } from '../judge/judge-under-test.ts';
import { makeTrajectory } from '../store/fixtures.ts';
import { RunStore } from '../store/run-store.ts';
import { WORLD_VERIFIER_ID } from '../world/world.ts';
import { startViewer, type ViewerServer } from './server.ts';

let root: string;
let viewer: ViewerServer;

const verdict = (judge: string, id: string, outcome: JudgeVerdictRecord['outcome'], reason: string) =>
  ({
    judge,
    trajectoryId: id,
    taskId: `task_${id}`,
    site: 'shop',
    outcome,
    ...(outcome === 'error' ? { errorKind: 'unparseable' as const } : {}),
    score: null,
    reason,
    usage: { promptTokens: 120, completionTokens: 30, costUsd: 0, calls: 1 },
    ms: 2500,
    at: '2026-01-01T00:00:00.000Z',
  }) satisfies JudgeVerdictRecord;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rmsweb-judge-view-'));
  const store = RunStore.open(root);
  for (const [id, success] of [
    ['traj_a', false],
    ['traj_b', true],
  ] as const) {
    const t = makeTrajectory({ id, taskId: `task_${id}`, success });
    store.saveTrajectory({
      ...t,
      verdict: {
        success,
        score: success ? 1 : 0,
        reason: success ? 'all 2 conditions met' : 'cart.item: expected <Trail X1>, got nothing',
        verifierId: WORLD_VERIFIER_ID,
        failedConditions: success ? [] : ['cart.item'],
      },
    });
  }
  const j = 'webvoyager:openai:gemma@http://127.0.0.1:8089/v1';
  store.putRecord(
    JUDGE_VERDICT_RECORD,
    judgeVerdictKey(j, 'traj_a'),
    verdict(j, 'traj_a', 'success', 'It <b>looks</b> done.'),
  );
  store.putRecord(
    JUDGE_VERDICT_RECORD,
    judgeVerdictKey('rules', 'traj_a'),
    verdict('rules', 'traj_a', 'failure', 'rules: agent gave up'),
  );
  store.putRecord(
    JUDGE_VERDICT_RECORD,
    judgeVerdictKey(j, 'traj_b'),
    verdict(j, 'traj_b', 'error', 'no verdict found'),
  );
  store.close();
  viewer = await startViewer({ runDir: root });
});
afterAll(async () => {
  await viewer?.close();
  rmSync(root, { recursive: true, force: true });
});

const get = async (path: string) => {
  const r = await fetch(`${viewer.url.replace(/\/$/, '')}${path}`);
  return { status: r.status, body: await r.text() };
};

describe('the judge pages of the viewer', () => {
  it("shows a disagreement beside the verifier's reasons, with the episode one link away", async () => {
    const { status, body } = await get('/judge/traj_a');
    expect(status).toBe(200);
    expect(body).toContain('href="/trajectory/traj_a"');
    expect(body).toContain('cart.item: expected &lt;Trail X1&gt;, got nothing');
    // The judge's reasoning is model text: escaped, never markup.
    expect(body).toContain('It &lt;b&gt;looks&lt;/b&gt; done.');
    expect(body).not.toContain('<b>looks</b>');
    expect(body).toMatch(/data-testid="judge" data-agrees="false"[\s\S]*webvoyager:openai:gemma/);
    expect(body).toMatch(/data-testid="judge" data-agrees="true"[\s\S]*rules/);
    expect((await get('/judge/traj_missing')).status).toBe(404);
  });

  it('links the step view of a judged episode to its judges', async () => {
    expect((await get('/trajectory/traj_a')).body).toContain('href="/judge/traj_a">2 judge verdict(s)');
  });

  it('lists every judge against the verifier and links each disagreement', async () => {
    const { status, body } = await get('/judges');
    expect(status).toBe(200);
    expect(body).toContain('Disagreements (1)');
    expect(body).toMatch(/<a[^>]*href="\/judges"[^>]*>Judges<\/a>/);
    expect(body).toContain('href="/judge/traj_a"');
    expect(body).not.toContain('href="/judge/traj_b"');
    // gemma: 2 verdicts on verified episodes, 1 scored, 0% agreement, 1 judge error.
    expect(body).toMatch(
      /gemma@http:\/\/127\.0\.0\.1:8089\/v1<\/span><\/td><td>2<\/td><td>1<\/td><td>0\.0%<\/td><td>1<\/td>/,
    );
  });
});
