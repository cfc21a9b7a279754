import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ABLATION_RL } from './ablate.ts';
import { ROW_IDS, ROW_TITLES } from './ablation-table.ts';
import { PipelineContext } from './context.ts';
import { presetByName } from './presets.ts';
import { stageResultSchema } from './stage-results.ts';
import { verifyCriticalStage } from './verify-stage.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-verify-stage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the confirmed-states row of the ablation', () => {
  it('is a Salvage-DS row on confirmed states, with a registered verification stage', () => {
    expect(ROW_IDS).toContain('salvage-ds-confirmed');
    expect(ROW_TITLES['salvage-ds-confirmed']).toBe('Salvage-DS on confirmed states');
    expect(ABLATION_RL.find((v) => v.name === 'salvage-ds-confirmed')).toMatchObject({
      algo: 'salvage-ds',
      reward: 'polarized',
      salvage: true,
      data: 'confirmed',
    });
    const schema = stageResultSchema('verify-critical');
    const ok = {
      file: 'x/critical.jsonl',
      states: 3,
      confirmed: 2,
      notCausal: 1,
      replayFailed: 0,
      episodes: 6,
      wallSeconds: 12.5,
    };
    expect(schema.safeParse(ok).success).toBe(true);
    expect(schema.safeParse({ ...ok, confirmed: undefined }).success).toBe(false);
    expect(schema.safeParse({ ...ok, episodes: -1 }).success).toBe(false);
  });

  it('verifies nothing and opens no browser when no state was mined, so the row is skipped', async () => {
    const ctx = new PipelineContext(
      {
        command: 'ablate',
        out: join(dir, 'abl'),
        preset: presetByName('tiny'),
        seed: 0,
        worldSeed: 1,
        quiet: true,
      },
      new AbortController().signal,
    );
    const critical = join(dir, 'mined', 'critical.jsonl');
    const out = join(dir, 'abl', 'verified', 'critical.jsonl');
    try {
      const r = await ctx.stages.run('verify-critical', (scope) =>
        verifyCriticalStage(ctx, scope, { runs: [join(dir, 'no-collection')], critical, out, seed: 0 }),
      );
      expect(r).toMatchObject({
        states: 0,
        confirmed: 0,
        notCausal: 0,
        replayFailed: 0,
        episodes: 0,
        file: out,
      });
      expect(existsSync(out)).toBe(true);
      expect(readFileSync(out, 'utf8')).toBe('');
    } finally {
      await ctx.close();
    }
  });
});
