import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { JUDGE_VERDICT_RECORD } from '../../judge/judge-under-test.ts';
import { makeTrajectory } from '../../store/fixtures.ts';
import { RunStore } from '../../store/index.ts';
import { WORLD_VERIFIER_ID } from '../../world/world.ts';
import { registerJudge } from './judge.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-judge-cmd-'));
  const store = RunStore.open(join(dir, 'run'));
  for (let i = 0; i < 6; i++) {
    const success = i % 2 === 0;
    const t = makeTrajectory({ id: `t${i}`, taskId: `w${i}`, success });
    store.saveTrajectory({
      ...t,
      finalAnswer: 'done',
      verdict: { success, score: success ? 1 : 0, verifierId: WORLD_VERIFIER_ID },
    });
  }
  store.close();
  // Only an LLM-judged live episode: nothing to calibrate on.
  const live = RunStore.open(join(dir, 'live'));
  live.saveTrajectory(makeTrajectory({ id: 'l1', success: true }));
  live.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function calibrate(args: string[]): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerJudge(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await program.parseAsync(['node', 'rmsweb', 'judge', 'calibrate', ...args]);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return out;
}

const records = (run: string) => {
  const s = RunStore.open(join(dir, run), { create: false, readonly: true });
  try {
    return s.listRecords(JUDGE_VERDICT_RECORD);
  } finally {
    s.close();
  }
};

describe('rmsweb judge calibrate', () => {
  it('refuses bad input before writing anything', async () => {
    // No key in the environment: the hosted-model case below must be refused for its missing key.
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('RMSWEB_JUDGE_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    vi.stubEnv('RMSWEB_JUDGE_BASE_URL', '');
    const out = join(dir, 'refused', 'cal.md');
    const cases: Array<[string[], RegExp]> = [
      [['--run', join(dir, 'run'), '--judge', 'gpt-4o', '--out', out], /unknown judge "gpt-4o"/],
      [['--run', join(dir, 'run'), '--judge', 'webjudge:openai:m@notaurl', '--out', out], /no API key/],
      [['--run', join(dir, 'run'), '--judge', 'rules', '--judge', 'rules', '--out', out], /given twice/],
      [['--run', join(dir, 'nope'), '--judge', 'rules', '--out', out], /not a run folder/],
      [
        ['--run', join(dir, 'live'), '--judge', 'rules', '--out', out],
        /no world episodes scored by the programmatic verifier/,
      ],
      [['--run', join(dir, 'run'), '--judge', 'rules', '--sample', '1', '--out', out], /--sample/],
    ];
    for (const [args, msg] of cases) {
      const e = await calibrate(args).catch((x: unknown) => x);
      expect(e, args.join(' ')).toBeInstanceOf(InputError);
      expect((e as Error).message).toMatch(msg);
    }
    expect(existsSync(join(dir, 'refused'))).toBe(false);
    expect(existsSync(join(dir, 'nope'))).toBe(false);
    expect(records('live')).toHaveLength(0);
    vi.unstubAllEnvs();
  });

  it('writes the Markdown table, JSON and SVG, stores verdicts, and a rerun reuses them', async () => {
    const out = join(dir, 'cal', 'calibration.md');
    const printed = await calibrate([
      '--run',
      join(dir, 'run'),
      '--judge',
      'rules',
      '--sample',
      '4',
      '--out',
      out,
    ]);
    expect(printed).toMatch(/4 episodes \(2 verified successes, 2 failures\)/);
    const md = readFileSync(out, 'utf8');
    // The fixture episodes end without done: rules calls each a failure, right on half of them.
    expect(md).toMatch(/\| rules \| 4 \/ 4 \| 50\.0% \[/);
    const json = JSON.parse(readFileSync(join(dir, 'cal', 'calibration.json'), 'utf8'));
    expect(json.sample.ids).toHaveLength(4);
    expect(readFileSync(join(dir, 'cal', 'calibration.svg'), 'utf8')).toMatch(/^<svg/);
    const first = records('run');
    expect(first).toHaveLength(4);
    await calibrate(['--run', join(dir, 'run'), '--judge', 'rules', '--sample', '4', '--out', out]);
    expect(records('run')).toEqual(first);
  });
});
