import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CriticalState } from '../../core/index.ts';
import { mineCriticalStates } from '../../mine/index.ts';
import { LOOKALIKE_FAILURE, SUCCESS } from '../../mine/scenarios.test-helpers.ts';
import { parseCriticalStates } from '../../rl/index.ts';
import { RunStore } from '../../store/index.ts';
import { registerExport } from './export.ts';

let dir: string;
let states: CriticalState[];

async function run(args: string[]): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerExport(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'rmsweb', 'export', ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

const verification = (label: 'confirmed' | 'not-causal') => ({
  label,
  reason:
    label === 'confirmed'
      ? 'the success action leads to success and the failure action to failure'
      : 'both succeed',
  replay: { reproduced: true, comparability: 1, threshold: 0.9, detail: '' },
  success: null,
  failure: null,
  policy: 'heuristic',
  notes: 1,
  perturbSeed: 0,
  episodes: 2,
  wallMs: 10,
  verifiedAt: '2026-01-01T00:00:00.000Z',
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-export-critical-'));
  const store = RunStore.open(join(dir, 'run'));
  store.saveTrajectory({ ...LOOKALIKE_FAILURE, notes: ['Do not click the GTX model.'] });
  store.saveTrajectory(SUCCESS);
  store.close();
  const mined = await mineCriticalStates([SUCCESS, LOOKALIKE_FAILURE]);
  const cs = mined.criticalStates[0];
  // Two copies of the state, one confirmed and one not, to exercise the filters.
  states = [
    { ...cs, verification: verification('confirmed') },
    { ...cs, id: `${cs.id}-b`, verification: verification('not-causal') },
  ];
  writeFileSync(join(dir, 'critical.jsonl'), `${states.map((s) => JSON.stringify(s)).join('\n')}\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rmsweb export critical --format whowhen', () => {
  it('writes the failed run as history with the decisive step, the responsible agent and the reason', async () => {
    const out = join(dir, 'ww.jsonl');
    const text = await run([
      'critical',
      '--run',
      join(dir, 'run'),
      '--critical',
      join(dir, 'critical.jsonl'),
      '--format',
      'whowhen',
      '--out',
      out,
    ]);
    expect(text).toMatch(/exported 2 of 2 critical states as whowhen records/);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const r = rows[0];
    expect(r.question).toBe(SUCCESS.task.objective);
    expect(r.mistake_agent).toBe('WebSurfer');
    // history[0] is the user's task; the failure's step 1 (the lookalike click) is history[2].
    expect(r.mistake_step).toBe('2');
    expect(r.history[0]).toMatchObject({ role: 'user' });
    expect(r.history[2].content).toMatch(/Action: click\(5\) on link "Trail Runner 2 GTX"/);
    expect(r.mistake_reason).toMatch(/chose click\(5\).*where a successful run .* chose click\(4\)/);
    expect(r.mistake_reason).toMatch(/Checked causally/);
    expect(r.rmsweb).toMatchObject({
      verification: 'confirmed',
      responsibleAction: 'click(5)',
      correctAction: 'click(4)',
    });
    // Notes never leave rmsweb.
    expect(readFileSync(out, 'utf8')).not.toMatch(/GTX model\./);
  });

  it('keeps only confirmed states with --confirmed-only', async () => {
    const out = join(dir, 'ww-confirmed.jsonl');
    const text = await run([
      'critical',
      '--run',
      join(dir, 'run'),
      '--critical',
      join(dir, 'critical.jsonl'),
      '--format',
      'whowhen',
      '--out',
      out,
      '--confirmed-only',
    ]);
    expect(text).toMatch(/exported 1 of 2 .*1 not confirmed/);
  });

  it('rejects an unknown format', async () => {
    await expect(
      run([
        'critical',
        '--run',
        dir,
        '--critical',
        join(dir, 'critical.jsonl'),
        '--format',
        'x',
        '--out',
        join(dir, 'x'),
      ]),
    ).rejects.toThrow(/unknown critical-state export format "x"/);
  });
});

describe('rl --confirmed-only data', () => {
  it('keeps only the states the causal check confirmed', () => {
    const text = readFileSync(join(dir, 'critical.jsonl'), 'utf8');
    expect(parseCriticalStates(text).map((e) => e.id)).toEqual([states[0].id, states[1].id]);
    expect(parseCriticalStates(text, 'f', { confirmedOnly: true }).map((e) => e.id)).toEqual([states[0].id]);
  });
});
