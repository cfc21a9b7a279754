import { describe, expect, it } from 'vitest';
import { Task } from '../core/task.ts';
import { runPerturbSeed } from '../world/perturb.ts';
import { evalJobs, planEvalRuns } from './run-eval.ts';

const tasks = ['a', 'b'].map((id) =>
  Task.parse({
    id,
    suite: 'world',
    site: 'shop',
    objective: 'o',
    startUrl: 'http://x/',
    level: 'easy',
    verifier: { kind: 'judge' },
  }),
);

describe('planEvalRuns', () => {
  it('gives every world run its own perturbation seed, from the evaluation seed and the run', () => {
    const p = planEvalRuns({ suite: 'world', runs: 3, evalSeed: 4, deterministicAgent: true });
    expect(p.runs).toBe(3);
    expect(p.note).toBeNull();
    expect(p.perturbSeeds).toEqual([0, 1, 2].map((r) => runPerturbSeed(4, r)));
    expect(new Set(p.perturbSeeds).size).toBe(3);
    expect(planEvalRuns({ suite: 'world', runs: 3, evalSeed: 5 }).perturbSeeds).not.toEqual(p.perturbSeeds);
  });

  it('runs once, and says why, when an unperturbed world meets a deterministic agent', () => {
    const p = planEvalRuns({ suite: 'world', runs: 3, perturb: false, deterministicAgent: true });
    expect(p).toMatchObject({ runs: 1, requestedRuns: 3, perturbSeeds: [0] });
    expect(p.note).toMatch(/ran once instead of 3 times/);
  });

  it('keeps every run when they can differ: a sampling agent, or a live suite', () => {
    const sampling = planEvalRuns({ suite: 'world', runs: 3, perturb: false, deterministicAgent: false });
    expect(sampling).toMatchObject({ runs: 3, perturbSeeds: [0, 0, 0], note: null });
    const live = planEvalRuns({ suite: 'webvoyager', runs: 3, perturb: false, deterministicAgent: true });
    expect(live).toMatchObject({ runs: 3, perturbSeeds: [], note: null });
  });
});

describe('evalJobs', () => {
  it('hands each run its perturbation seed under the same resumable keys', () => {
    const jobs = evalJobs('lbl', tasks, 2, [7, 9]);
    expect(jobs.map((j) => [j.key, j.round, j.perturb])).toEqual([
      ['eval:lbl:a#0', 0, 7],
      ['eval:lbl:b#0', 0, 7],
      ['eval:lbl:a#1', 1, 9],
      ['eval:lbl:b#1', 1, 9],
    ]);
    expect(evalJobs('lbl', tasks, 1).every((j) => j.perturb === undefined)).toBe(true);
  });
});
