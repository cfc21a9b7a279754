import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../store/run-store.ts';
import type { EvalStageResult } from './eval-stage.ts';
import {
  lmEndings,
  lmEndingsTable,
  lmRowOf,
  lmRows,
  lmRowsTable,
  recordInvocation,
  stageTimes,
  writeLmStudent,
} from './lm-results.ts';
import { STAGE_RECORD } from './stage.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-lm-results-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TASKS = ['t0', 't1', 't2', 't3'];

/** An evaluation's stage result and its episodes (one run; `solved` lists the task indices solved). */
function evalOf(label: string, solved: number[]) {
  const e = {
    label,
    agent: label,
    summary: { runs: 1, pass1: { mean: solved.length / TASKS.length } },
    complete: true,
    setup: { taskIds: TASKS, runs: 1, maxSteps: 12 },
  } as unknown as EvalStageResult;
  const episodes = TASKS.map((taskId, i) => ({ taskId, success: solved.includes(i), steps: 5, round: 0 }));
  return { e, episodes };
}

/** A store stand-in that answers the evaluations' episodes by tag, as RunStore does. */
function storeOf(evals: Array<ReturnType<typeof evalOf>>) {
  return {
    listTrajectorySummaries: ({ tag }: { tag: string }) =>
      evals.find((x) => `eval:${x.e.label}` === tag)?.episodes ?? [],
  } as unknown as RunStore;
}

describe('the lm student table', () => {
  it('reads row and training seed from an evaluation label', () => {
    expect(lmRowOf('lm-base')).toEqual({ id: 'base', k: 0 });
    expect(lmRowOf('lm-sft-seed2')).toEqual({ id: 'sft', k: 2 });
    expect(lmRowOf('lm-salvage-ds')).toEqual({ id: 'salvage-ds', k: 0 });
    expect(lmRowOf('lm-nosalvage')).toEqual({ id: 'nosalvage', k: 0 });
    expect(lmRowOf('lm-grpo-exact')).toEqual({ id: 'grpo-exact', k: 0 });
    expect(lmRowOf('teacher')).toBeNull();
  });

  it('aggregates seeds and pairs each row with Salvage-DS over the seeds both ran', () => {
    const evals = [
      evalOf('lm-base', []),
      evalOf('lm-sft', [0]),
      evalOf('lm-salvage-ds', [0, 1]),
      evalOf('lm-sft-seed1', [1]),
      evalOf('lm-salvage-ds-seed1', [0, 1, 2]),
      evalOf('lm-nosalvage', [0]),
    ];
    const rows = lmRows(
      storeOf(evals),
      evals.map((x) => x.e),
      { seed: 7, resamples: 500 },
    );
    expect(rows.map((r) => r.id)).toEqual(['base', 'sft', 'salvage-ds', 'nosalvage']);
    const by = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(by.sft!.aggregate.pass1.mean).toBeCloseTo(0.25);
    expect(by['salvage-ds']!.aggregate.pass1.mean).toBeCloseTo(0.625);
    expect(by['salvage-ds']!.aggregate.pass1.perRun).toEqual([0.5, 0.75]);
    // SFT vs Salvage-DS over both seeds: per task (0.5-1, 0.5-1, 0-0.5, 0-0) -> mean -0.375
    expect(by.sft!.delta!.diff).toBeCloseTo(-0.375);
    expect(by.sft!.deltaSeeds).toEqual([0, 1]);
    // the ablation row ran seed 0 only: it pairs with Salvage-DS's seed 0 (0.25 - 0.5)
    expect(by.nosalvage!.delta!.diff).toBeCloseTo(-0.25);
    expect(by.nosalvage!.deltaSeeds).toEqual([0]);
    // the base row pairs with every Salvage-DS seed
    expect(by.base!.delta!.diff).toBeCloseTo(-0.625);
    expect(by['salvage-ds']!.delta).toBeNull();
    expect(by.sft!.delta!.lo).toBeLessThanOrEqual(by.sft!.delta!.diff);
    expect(by.sft!.delta!.hi).toBeGreaterThanOrEqual(by.sft!.delta!.diff);

    const table = lmRowsTable(rows, 7);
    expect(table).toContain('| SFT | 7, 8 | 25.0% ± 0.0 | 25.0%, 25.0% | -37.5 pts [');
    expect(table).toContain(
      '| SFT + Salvage-DS (mined states) | 7, 8 | 62.5% ± 17.7 | 50.0%, 75.0% | reference |',
    );
    expect(table).toMatch(/\| base LM \(no fine-tuning\) \| - \| 0\.0% \| 0\.0% \| -62\.5 pts \[/);
  });

  it("tells each evaluation's episodes apart by how they ended", () => {
    const ep = (label: string, endReason: string, steps: number, score: number, nextGoal = '') => ({
      tags: [`eval:${label}`],
      round: 0,
      endReason,
      verdict: { success: false, score },
      steps: Array.from({ length: steps }, () => ({ output: { next_goal: nextGoal } })),
    });
    const episodes = [
      ep('lm-base', 'done', 1, 0, 'unusable reply (field action: invalid): The capital'),
      ep('lm-base', 'done', 1, 0, 'unusable reply (field action: invalid): 1. Archive'),
      ep('lm-sft', 'loop', 4, 0.5),
      ep('lm-sft', 'max_steps', 12, 0.25),
      ep('lm-sft', 'done', 6, 1),
      ep('lm-sft', 'error', 2, 0),
      ep('lm-sft', 'loop', 3, 0, 'x'),
      // a later round than the evaluation ran, and an evaluation of no row: both left out
      { ...ep('lm-sft', 'loop', 3, 0), round: 1 },
      ep('teacher', 'done', 3, 1),
    ];
    const store = {
      listTrajectories: ({ tag }: { tag: string }) => episodes.filter((e) => e.tags.includes(tag)),
    } as unknown as RunStore;
    const evals = ['lm-base', 'lm-sft', 'teacher', 'lm-salvage-ds'].map((l) => evalOf(l, []).e);
    const endings = lmEndings(store, evals);
    // lm-salvage-ds has no episodes yet: no line rather than a line of zeros
    expect(endings.map((e) => e.label)).toEqual(['lm-base', 'lm-sft']);
    expect(endings[0]).toMatchObject({ episodes: 2, unusable: 2, declaredDone: 0, meanSteps: 1 });
    expect(endings[1]).toMatchObject({
      episodes: 5,
      declaredDone: 1,
      unusable: 0,
      loop: 2,
      maxSteps: 1,
      other: 1,
      meanSteps: 5.4,
    });
    expect(endings[1]!.meanScore).toBeCloseTo(0.35);
    expect(lmEndingsTable(endings)).toContain('| lm-sft | 5 | 1 | 0 | 2 | 1 | 1 | 5.4 | 0.35 |');
  });

  it('names the invocation that finished each stage, and stages finished before any was recorded', () => {
    const store = RunStore.open(join(dir, 'run'));
    try {
      store.putRecord(STAGE_RECORD, 'collect', { finishedAt: '2026-01-01T00:05:00.000Z' });
      const inv = [
        {
          startedAt: '2026-01-01T01:00:00.000Z',
          command: 'rmsweb demo --preset lm',
          commit: 'a'.repeat(40),
          dirty: false,
        },
        {
          startedAt: '2026-01-02T00:00:00.000Z',
          command: 'rmsweb demo --preset lm --lm-seeds 3',
          commit: 'b'.repeat(40),
          dirty: true,
        },
      ];
      recordInvocation(store, inv[0]!);
      expect(recordInvocation(store, inv[1]!)).toEqual(inv);
      store.putRecord(STAGE_RECORD, 'lm-sft', { finishedAt: '2026-01-01T02:00:00.000Z' });
      store.putRecord(STAGE_RECORD, 'lm-sft-seed1', { finishedAt: '2026-01-02T03:00:00.000Z' });
      const t = stageTimes(store, { collect: 120, 'lm-sft': 3000, 'lm-sft-seed1': 3100 }, inv);
      expect(t.map((x) => [x.stage, x.attributed, x.commit?.[0] ?? null])).toEqual([
        ['collect', false, null],
        ['lm-sft', true, 'a'],
        ['lm-sft-seed1', true, 'b'],
      ]);

      const root = join(dir, 'run');
      const files = writeLmStudent(
        root,
        {
          title: 't',
          lead: 'lead.',
          lines: ['- a line'],
          rows: [],
          endings: [
            {
              label: 'lm-sft',
              episodes: 4,
              declaredDone: 1,
              unusable: 0,
              loop: 2,
              maxSteps: 1,
              other: 0,
              meanSteps: 7.25,
              meanScore: 0.375,
            },
          ],
          stages: t,
          invocations: inv,
          seed: 0,
          worldSeed: 0,
          preset: { lm: { model: join(dir, 'models', 'm.gguf') } },
          tasks: 4,
          model: join(dir, 'models', 'm.gguf'),
        },
        join(dir, 'results'),
      );
      const md = readFileSync(files.markdown, 'utf8');
      expect(md).toContain('| collect | 120 | 2.0 | unrecorded |');
      expect(md).toContain('| lm-sft-seed1 | 3100 | 51.7 | bbbbbbb |');
      expect(md).toContain('| **sum** | 6220 | 103.7 | | |');
      expect(md).toContain('(with uncommitted changes)');
      expect(md).toContain('## How the episodes ended');
      expect(md).toContain('| lm-sft | 4 | 1 | 0 | 2 | 1 | 0 | 7.3 | 0.38 |');
      expect(md).toContain('finished before the folder recorded its invocations');
      // the results copy names the machine's folders by role
      const json = readFileSync(files.results!.json, 'utf8');
      expect(json).not.toContain(dir);
      expect(json).toContain('<the base model>');
      expect(JSON.parse(json).wallSeconds).toBe(6220);
    } finally {
      store.close();
    }
  });
});
