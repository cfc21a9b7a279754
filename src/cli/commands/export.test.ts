import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readJsonl } from '../../data/export-sft.ts';
import { buildCollection, criticalFrom } from '../../data/fixtures.ts';
import { RunStore } from '../../store/index.ts';
import { registerExport } from './export.ts';

const execFileP = promisify(execFile);
const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'rmsweb.js');
let root: string;
let run: string;

async function rmsweb(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await execFileP(process.execPath, [BIN, ...args], { timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** Runs the command in-process and returns what it printed on stdout. */
async function inProcess(...args: string[]): Promise<string> {
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const program = new Command('rmsweb').exitOverride();
    registerExport(program);
    await program.parseAsync(['node', 'rmsweb', ...args]);
    return spy.mock.calls.map((c) => String(c[0])).join('');
  } finally {
    spy.mockRestore();
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rmsweb-cli-export-'));
  run = join(root, 'run');
  await buildCollection(run);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('rmsweb export', () => {
  it('export sft writes the format and prints a JSON summary', async () => {
    const out = join(root, 'sft');
    const summary = JSON.parse(
      await inProcess('export', 'sft', '--run', run, '--format', 'llamafactory', '--out', out, '--json'),
    );
    expect(summary).toMatchObject({
      format: 'llamafactory',
      examples: 6,
      trajectories: 3,
      droppedNoteLeak: 1,
    });
    expect(existsSync(join(out, 'dataset_info.json'))).toBe(true);
  });

  it('export rl writes parquet; a corrupt line exits 2 naming the line', async () => {
    const store = RunStore.open(run, { readonly: true });
    const cs = criticalFrom(store, 'tA_r1', 'tA_r0', 1);
    store.close();
    const good = join(root, 'critical.jsonl');
    writeFileSync(good, `${JSON.stringify(cs)}\n`);
    const ok = await inProcess(
      'export',
      'rl',
      '--run',
      run,
      '--critical',
      good,
      '--format',
      'verl',
      '--out',
      join(root, 'rl.parquet'),
    );
    expect(ok).toContain('exported 1 critical states as verl rows');
    const bad = join(root, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(cs)}\n${JSON.stringify(cs)}\nnot json\n`);
    const r = await rmsweb(
      'export',
      'rl',
      '--run',
      run,
      '--critical',
      bad,
      '--format',
      'verl',
      '--out',
      join(root, 'bad.parquet'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl, line 3: not valid JSON/);
    await expect(
      inProcess('export', 'sft', '--run', run, '--format', 'alpaca', '--out', join(root, 'x')),
    ).rejects.toThrow(/unknown SFT format "alpaca"/);
  });

  it('export rl --format lm --prompt-tokens writes plain-prompt rows; the budget is refused elsewhere', async () => {
    const store = RunStore.open(run, { readonly: true });
    const cs = criticalFrom(store, 'tA_r1', 'tA_r0', 1);
    store.close();
    const file = join(root, 'critical-lm.jsonl');
    writeFileSync(file, `${JSON.stringify(cs)}\n`);
    const out = join(root, 'lm', 'rl.jsonl');
    const args = ['export', 'rl', '--run', run, '--critical', file, '--out', out, '--json'];
    const s = JSON.parse(await inProcess(...args, '--format', 'lm', '--prompt-tokens', '300'));
    expect(s).toMatchObject({ format: 'lm', rows: 1 });
    const [row] = readJsonl(out) as any[];
    expect(row.extra_info).toMatchObject({ layout: 'lm', promptTokens: 300 });
    await expect(inProcess(...args, '--format', 'jsonl', '--prompt-tokens', '300')).rejects.toThrow(
      /--prompt-tokens applies to --format lm only/,
    );
  });
});
