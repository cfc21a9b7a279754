import { describe, expect, it } from 'vitest';
import {
  aggregateSeeds,
  miningBySource,
  pairedSolvedSteps,
  pairedTaskDiff,
  type SeedRun,
  taskOutcomes,
  teacherReflection,
} from './ablation-stats.ts';

const ep = (taskId: string, success: boolean, steps: number) => ({ taskId, success, steps });

describe('taskOutcomes', () => {
  it('averages success over runs and pools the steps of solved runs, per task', () => {
    const out = taskOutcomes(
      [ep('a', true, 4), ep('a', false, 9), ep('a', true, 6), ep('b', false, 3), ep('c', true, 2)],
      ['a', 'b'],
    );
    expect(out).toEqual({
      a: { success: 2 / 3, solved: 2, solvedSteps: 10 },
      b: { success: 0, solved: 0, solvedSteps: 0 },
    });
  });
});

function seedRun(seed: number, perTask: SeedRun['perTask'], steps: number | null): SeedRun {
  const vals = Object.values(perTask).map((t) => t.success);
  const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
  return {
    seed,
    label: `x-${seed}`,
    pass1: { mean, std: 0, min: mean, max: mean, perRun: [mean], tasks: vals.length },
    meanStepsSolved: steps,
    perTask,
    rollouts: 100 * (seed + 1),
    rlSeconds: seed + 1,
    trainSeconds: 2,
  };
}

describe('aggregateSeeds', () => {
  it('gives mean ± sd over seeds and per-task means over seeds', () => {
    const a = seedRun(
      0,
      { t1: { success: 1, solved: 1, solvedSteps: 4 }, t2: { success: 0, solved: 0, solvedSteps: 0 } },
      4,
    );
    const b = seedRun(
      1,
      { t1: { success: 1, solved: 1, solvedSteps: 6 }, t2: { success: 1, solved: 1, solvedSteps: 8 } },
      7,
    );
    const g = aggregateSeeds([a, b]);
    expect(g.pass1.mean).toBeCloseTo(0.75, 12);
    expect(g.pass1.std).toBeCloseTo(Math.SQRT1_2 / 2, 12);
    expect(g.pass1.perRun).toEqual([0.5, 1]);
    expect(g.perTask.t1).toEqual({ success: 1, solved: 2, solvedSteps: 10 });
    expect(g.perTask.t2.success).toBe(0.5);
    expect(g.meanStepsSolved).toBe(5.5);
    expect(g.rollouts).toBe(150);
    expect(g.rlSeconds).toBe(1.5);
  });
});

describe('pairedTaskDiff', () => {
  it('pairs by task over the tasks both rows evaluated', () => {
    const o = (s: number) => ({ success: s, solved: s > 0 ? 1 : 0, solvedSteps: 3 });
    const d = pairedTaskDiff(
      { a: o(1), b: o(1), c: o(0) },
      { a: o(0), b: o(1), z: o(1) },
      { seed: 1, resamples: 500 },
    );
    expect(d?.n).toBe(2);
    expect(d?.diff).toBe(0.5);
    expect(pairedTaskDiff({ a: o(1) }, { b: o(1) }, { seed: 1 })).toBeNull();
  });
});

describe('pairedSolvedSteps', () => {
  it('compares mean actions on the tasks both solve', () => {
    const r = pairedSolvedSteps(
      {
        a: { success: 1, solved: 2, solvedSteps: 10 },
        b: { success: 1, solved: 1, solvedSteps: 4 },
        c: { success: 0, solved: 0, solvedSteps: 0 },
      },
      {
        a: { success: 1, solved: 1, solvedSteps: 6 },
        b: { success: 0, solved: 0, solvedSteps: 0 },
        c: { success: 1, solved: 1, solvedSteps: 3 },
      },
    );
    expect(r).toEqual({ tasks: 1, a: 5, b: 6, relativeChange: 0.2 });
    expect(pairedSolvedSteps({}, {}).tasks).toBe(0);
  });
});

describe('teacherReflection', () => {
  it('pairs the collection with reflection and the one-round collection by task', () => {
    const withNotes = [
      { taskId: 'a', round: 0, success: true, notes: 0 },
      { taskId: 'b', round: 0, success: false, notes: 0 },
      { taskId: 'b', round: 1, success: true, notes: 1 },
      { taskId: 'c', round: 0, success: false, notes: 0 },
      { taskId: 'c', round: 1, success: false, notes: 1 },
      { taskId: 'd', round: 0, success: false, notes: 0 },
    ];
    const without = [
      { taskId: 'a', success: true },
      { taskId: 'b', success: false },
      { taskId: 'c', success: true },
      { taskId: 'd', success: false },
    ];
    const r = teacherReflection(withNotes, without);
    expect(r).toMatchObject({
      tasks: 4,
      solvedWith: 2,
      solvedWithout: 2,
      onlyWith: 1,
      onlyWithout: 1,
      both: 1,
    });
    expect(r.retried).toEqual({ tasks: 2, successWithNote: 1, successWithout: 1 });
  });
});

describe('miningBySource', () => {
  it('counts states per label and per source with the yield over success steps', () => {
    const st = (label: string, id: string) => ({ label, failure: { trajectoryId: id } });
    const m = miningBySource(
      [st('wrong-navigation', 't1'), st('premature-done', 's1'), st('wrong-navigation', 's2')],
      new Map([
        ['t1', 'teacher'],
        ['s1', 'student'],
        ['s2', 'student'],
      ]),
      { teacher: 4, student: 9 },
      100,
    );
    expect(m.yield).toBe(0.03);
    expect(m.perLabel).toEqual({ 'wrong-navigation': 2, 'premature-done': 1 });
    expect(m.perSource.teacher).toEqual({
      failedTrajectories: 4,
      criticalStates: 1,
      yield: 0.01,
      perLabel: { 'wrong-navigation': 1 },
    });
    expect(m.perSource.student.criticalStates).toBe(2);
    expect(m.perSource.student.yield).toBe(0.02);
  });
});
