import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../core/index.ts';
import {
  BENCHMARK_SUITES,
  benchmarkSearchPath,
  findBenchmarksDir,
  loadSuite,
  SUITE_FILES,
} from './benchmarks.ts';

// The real files, found as the CLI finds them: $RMSWEB_BENCHMARKS, then ../shared/benchmarks
// relative to the working directory and to this repository's root (never a machine's own path).
const realDir = benchmarkSearchPath().find((d) =>
  BENCHMARK_SUITES.every((s) => existsSync(join(d, SUITE_FILES[s]))),
);
const skipReason = `benchmark files not found in ${benchmarkSearchPath().join(', ')}`;

describe.skipIf(!realDir)(`loadSuite on the real files${realDir ? '' : ` - skipped: ${skipReason}`}`, () => {
  const dir = realDir!;
  it('loads WebVoyager with reference answers', () => {
    const tasks = loadSuite('webvoyager', { dir });
    expect(tasks).toHaveLength(643);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(643);
    expect(new Set(tasks.map((t) => t.site)).size).toBe(15);
    const t = tasks.find((x) => x.id === 'webvoyager:Allrecipes--0')!;
    expect(t.startUrl).toBe('https://www.allrecipes.com/');
    expect(t.verifier).toEqual({
      kind: 'answer',
      reference: "'Vegetarian Four Cheese Lasagna', 4.6-star, 181 reviews, Servings 8",
      answerType: 'possible',
    });
    expect(
      tasks.filter((x) => x.verifier.kind === 'answer' && x.verifier.answerType === 'golden'),
    ).toHaveLength(143);
  });
  it('loads the Fara revision, dropping references of reworded tasks', () => {
    const tasks = loadSuite('webvoyager-fara', { dir });
    expect(tasks).toHaveLength(595);
    const reworded = tasks.filter((t) => t.meta?.reworded === true);
    expect(reworded).toHaveLength(86);
    expect(reworded.every((t) => t.verifier.kind === 'judge')).toBe(true);
  });
  it('loads Online-Mind2Web with levels and reference lengths', () => {
    const tasks = loadSuite('online-mind2web', { dir });
    expect(tasks).toHaveLength(300);
    const levels = { easy: 0, medium: 0, hard: 0 };
    for (const t of tasks) levels[t.level!]++;
    expect(levels).toEqual({ easy: 83, medium: 143, hard: 74 });
    expect(tasks[0]).toMatchObject({
      site: 'gamestop.com',
      referenceLength: 8,
      level: 'medium',
      verifier: { kind: 'judge' },
    });
  });
  it('loads WebTailBench with rubrics and categories', () => {
    const tasks = loadSuite('webtailbench', { dir });
    expect(tasks).toHaveLength(609);
    expect(new Set(tasks.map((t) => t.category)).size).toBe(11);
    const t = tasks.find((x) => x.id === 'webtailbench:united_13')!;
    expect(t.site).toBe('united');
    expect(t.objective.endsWith('\r')).toBe(false);
    if (t.verifier.kind !== 'rubric') throw new Error('expected a rubric');
    expect(t.verifier.items[0].maxPoints).toBe(4);
    expect(t.verifier.items.some((i) => i.condition?.startsWith('Only applies'))).toBe(true);
    const points = tasks.flatMap((x) => (x.verifier.kind === 'rubric' ? x.verifier.items : []));
    expect(points).toHaveLength(2629);
  });
});

describe('benchmark loading errors', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rmsweb-bench-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('says where it looked when no directory holds the file', () => {
    const env = { RMSWEB_BENCHMARKS: join(tmp, 'nowhere') };
    const err = (() => {
      try {
        findBenchmarksDir('webvoyager', { env, cwd: join(tmp, 'cwd'), packageRoot: join(tmp, 'pkg') });
      } catch (e) {
        return e as InputError;
      }
    })();
    expect(InputError.isInstance(err)).toBe(true);
    expect(err!.message).toContain(join(tmp, 'nowhere'));
    expect(err!.message).toContain(join(tmp, 'shared', 'benchmarks'));
    expect(err!.message).toContain(join(tmp, 'pkg', 'benchmarks'));
    expect(err!.message).toMatch(/--benchmarks-dir/);
  });

  it('names the file and line of a malformed row', () => {
    const dir = join(tmp, 'bad');
    mkdirSync(join(dir, 'webvoyager'), { recursive: true });
    writeFileSync(
      join(dir, SUITE_FILES.webvoyager),
      '{"web_name":"A","id":"A--0","ques":"q","web":"https://a/"}\n{"web_name":"A","id":"A--1","ques":"q"}\n',
    );
    expect(() => loadSuite('webvoyager', { dir })).toThrow(/WebVoyager_data\.jsonl, line 2, field web/);
    writeFileSync(
      join(dir, SUITE_FILES.webvoyager),
      '{"web_name":"A","id":"A--0","ques":"q","web":"https://a/"}\n{oops\n',
    );
    expect(() => loadSuite('webvoyager', { dir })).toThrow(/line 2: malformed JSON/);
  });

  it('finds the files through RMSWEB_BENCHMARKS and loads tasks without references as judge tasks', () => {
    const dir = join(tmp, 'env');
    mkdirSync(join(dir, 'webvoyager'), { recursive: true });
    writeFileSync(
      join(dir, SUITE_FILES.webvoyager),
      '{"web_name":"A","id":"A--0","ques":" q ","web":"https://a/"}\n',
    );
    const tasks = loadSuite('webvoyager', { env: { RMSWEB_BENCHMARKS: dir }, cwd: tmp });
    expect(tasks).toEqual([
      expect.objectContaining({ id: 'webvoyager:A--0', objective: 'q', verifier: { kind: 'judge' } }),
    ]);
  });
});
