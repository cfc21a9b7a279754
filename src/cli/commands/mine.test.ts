import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CriticalState, InputError } from '../../core/index.ts';
import {
  LOOKALIKE_FAILURE,
  LOOP_WANDERER,
  SCROLL_WANDERER,
  SUCCESS,
} from '../../mine/scenarios.test-helpers.ts';
import { startFakeOpenAIServer } from '../../models/testing/fake-openai-server.ts';
import { RunStore } from '../../store/index.ts';
import { registerMine, statsPathFor } from './mine.ts';

let dir: string;

async function run(args: string[]): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerMine(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'rmsweb', 'mine', ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-mine-'));
  const a = RunStore.open(join(dir, 'teacher'));
  a.saveTrajectory(SUCCESS);
  a.saveTrajectory(LOOKALIKE_FAILURE);
  a.close();
  const b = RunStore.open(join(dir, 'student'));
  b.saveTrajectory(SCROLL_WANDERER);
  b.saveTrajectory(LOOP_WANDERER);
  b.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rmsweb mine', () => {
  it('mines across several runs, writes validated JSONL, stats beside it, and records', async () => {
    const out = join(dir, 'out', 'critical.jsonl');
    const text = await run([
      '--run',
      join(dir, 'teacher'),
      '--run',
      join(dir, 'student'),
      '--judge',
      'rules',
      '--out',
      out,
      '--keep-duplicates',
    ]);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    const states = lines.map((l) => CriticalState.parse(JSON.parse(l)));
    expect(states.map((s) => s.label).sort()).toEqual([
      'lookalike-element',
      'repetition-loop',
      'scroll-stall',
    ]);
    const stats = JSON.parse(readFileSync(statsPathFor(out), 'utf8'));
    expect(stats).toMatchObject({ pairsConsidered: 3, criticalStates: 3, successSteps: 4, yield: 0.75 });
    expect(text).toContain('critical states 3');
    expect(text).toContain('yield 75.00%');
    const store = RunStore.open(join(dir, 'teacher'), { create: false, readonly: true });
    expect(
      store
        .listRecords('critical-state')
        .map((r) => r.key)
        .sort(),
    ).toEqual(states.map((s) => s.id).sort());
    expect(store.getRecord('mine-stats', 'critical.jsonl')).toMatchObject({ criticalStates: 3 });
    store.close();
  });

  it('prints stats as JSON with --json and merges duplicates by default', async () => {
    const out = join(dir, 'dedupe.jsonl');
    const text = await run([
      '--run',
      join(dir, 'teacher'),
      '--run',
      join(dir, 'student'),
      '--out',
      out,
      '--json',
      '--no-record',
    ]);
    const stats = JSON.parse(text);
    expect(stats).toMatchObject({
      criticalStates: 1,
      duplicatesMerged: 2,
      options: { tagger: 'rules', dedupe: true },
    });
  });

  it('tags with a model given as --judge openai:MODEL@URL (OpenAI-compatible server)', async () => {
    const server = await startFakeOpenAIServer({
      fallback: {
        type: 'text',
        text: JSON.stringify({ label: 'lookalike-element', reason: 'picked the GTX variant' }),
      },
    });
    try {
      const out = join(dir, 'llm.jsonl');
      const text = await run([
        '--run',
        join(dir, 'teacher'),
        '--judge',
        `openai:judge-model@${server.baseURL}`,
        '--out',
        out,
        '--no-record',
      ]);
      const [cs] = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => CriticalState.parse(JSON.parse(l)));
      expect(cs).toMatchObject({
        label: 'lookalike-element',
        labelSource: 'llm:judge-model',
        labelReason: 'picked the GTX variant',
      });
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].body.model).toBe('judge-model');
      expect(text).toContain('judge llm:judge-model: 1 calls');
    } finally {
      await server.close();
    }
  });

  it('rejects bad options and missing runs with input errors', async () => {
    const out = join(dir, 'x.jsonl');
    await expect(
      run(['--run', join(dir, 'teacher'), '--out', out, '--min-comparability', '2']),
    ).rejects.toSatisfy((e) => InputError.isInstance(e) && /min-comparability/.test((e as Error).message));
    await expect(run(['--run', join(dir, 'nope'), '--out', out])).rejects.toSatisfy((e) =>
      InputError.isInstance(e),
    );
    await expect(run(['--run', join(dir, 'teacher'), '--out', out, '--judge', 'gpt-4o'])).rejects.toSatisfy(
      (e) => InputError.isInstance(e) && /model spec/.test((e as Error).message),
    );
    await expect(
      run(['--run', join(dir, 'teacher'), '--out', out, '--recoverable-prior', '2']),
    ).rejects.toSatisfy((e) => InputError.isInstance(e) && /recoverable-prior/.test((e as Error).message));
    await expect(
      run(['--run', join(dir, 'teacher'), '--out', out, '--queue', 'redis://127.0.0.1:1']),
    ).rejects.toSatisfy((e) => InputError.isInstance(e) && /--verify/.test((e as Error).message));
    await expect(
      run(['--run', join(dir, 'teacher'), '--out', out, '--verify', '--queue', 'http://127.0.0.1:1']),
    ).rejects.toSatisfy((e) => InputError.isInstance(e) && /redis:\/\//.test((e as Error).message));
  });
});
