import { describe, expect, it } from 'vitest';
import { Task } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import { summarizeEval } from './metrics.ts';
import { renderHtml, renderMarkdown } from './report.ts';

function traj(taskId: string, site: string, run: number, success: boolean, steps: number): Trajectory {
  const task = Task.parse({
    id: taskId,
    suite: 'world',
    site,
    objective: 'o',
    startUrl: 'http://x/',
    level: 'easy',
    verifier: { kind: 'judge' },
  });
  return {
    schemaVersion: 1,
    id: `${taskId}-${run}`,
    task,
    agentId: 'a',
    round: run,
    notes: [],
    finalAnswer: null,
    steps: Array.from({ length: steps }, () => ({}) as never),
    endReason: 'done',
    endDetail: '',
    verdict: { success, score: success ? 1 : 0, reason: '', verifierId: 'v', failedConditions: [] },
    usage: { promptTokens: 0, completionTokens: 0, costUsd: 0.01, calls: 1 },
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: '2026-01-01T00:00:02Z',
    tags: [],
  };
}

describe('summarizeEval', () => {
  it('averages pass@1 over runs with its spread, per site, and steps on solved tasks', () => {
    const ts = [
      traj('a', 'shop', 0, true, 4),
      traj('b', 'mail', 0, false, 9),
      traj('a', 'shop', 1, true, 6),
      traj('b', 'mail', 1, true, 3),
      traj('a', 'shop', 2, false, 30),
      traj('b', 'mail', 2, false, 30),
    ];
    const s = summarizeEval(ts, { agentId: 'a', suite: 'world' });
    expect(s.runs).toBe(3);
    expect(s.pass1.perRun).toEqual([0.5, 1, 0]);
    expect(s.pass1.mean).toBeCloseTo(0.5);
    expect(s.pass1.std).toBeCloseTo(0.5);
    expect(s.perSite.shop.mean).toBeCloseTo(2 / 3);
    expect(s.meanStepsSolved).toBeCloseTo((4 + 6 + 3) / 3);
    expect(s.stepsHistogram).toEqual({ '3': 1, '4': 1, '6': 1 });
    expect(s.costUsd).toBeCloseTo(0.06);
  });

  it('renders markdown and self-contained HTML with SVG plots', () => {
    const s = summarizeEval([traj('a', 'shop', 0, true, 4), traj('b', 'mail', 0, false, 5)], {
      agentId: 'heuristic',
      suite: 'world',
    });
    const d = {
      title: 'Demo',
      createdAt: 'now',
      stages: [{ stage: 'teacher', summary: s }],
      rlCurves: [
        {
          name: 'salvage-ds',
          points: [
            { step: 1, values: { 'charts/mean_reward': 0.1, 'losses/total': 2 } },
            { step: 2, values: { 'charts/mean_reward': 0.3, 'losses/total': 1.5 } },
          ],
        },
      ],
    };
    const md = renderMarkdown(d);
    expect(md).toContain('| teacher | heuristic | 50.0% ± 0.0');
    const html = renderHtml(d);
    expect(html).toContain('<svg');
    expect(html).toContain('Success (pass@1) per site and stage');
    expect(html).not.toMatch(/<script|src="http/);
    expect((html.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(3);
  });
});

describe('runs in the report', () => {
  it('lists each run with its world perturbation seed, and why a stage ran once', () => {
    const ts = [0, 1].flatMap((r) => [
      { ...traj('a', 'shop', r, r === 0, 3), perturbSeed: 100 + r },
      { ...traj('b', 'shop', r, true, 3), perturbSeed: 100 + r },
    ]);
    const summary = summarizeEval(ts, { agentId: 'a', suite: 'world' });
    expect(summary.perturbSeeds).toEqual([100, 101]);
    const once = {
      ...summarizeEval([traj('a', 'shop', 0, true, 3)], { agentId: 'h', suite: 'world' }),
      runsNote: 'ran once instead of 3 times: the world is unperturbed and the agent deterministic',
      requestedRuns: 3,
    };
    const md = renderMarkdown({
      title: 't',
      createdAt: 'now',
      stages: [
        { stage: 'student', summary },
        { stage: 'teacher', summary: once },
      ],
    });
    expect(md).toContain(
      '- student: world perturbation seed per run; run 0: 100.0% (seed 100), run 1: 50.0% (seed 101)',
    );
    expect(md).toContain(
      '- teacher: world unperturbed, every run saw the same pages; run 0: 100.0% (seed 0)',
    );
    expect(md).toContain('- teacher: ran once instead of 3 times');
  });
});
