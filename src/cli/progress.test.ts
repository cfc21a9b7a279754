import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress } from './progress.ts';

describe('createProgress without a terminal', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  function lines(run: (write: (ms: number) => void) => void): string[] {
    vi.useFakeTimers({ now: 0 });
    const out: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
      out.push(String(s));
      return true;
    });
    run((ms) => vi.setSystemTime(ms));
    return out;
  }

  it("measures the rate from its first update, so a resumed trainer's earlier steps do not shorten the eta", () => {
    const out = lines((at) => {
      const bar = createProgress('lora sft', 100, { everyPct: 10 });
      // Model loading: the first report comes after 60 s, at step 21 (20 steps done in an earlier run).
      at(60_000);
      bar.update(21);
      // 10 fresh steps in 100 s: 10 s a step, 69 steps left.
      at(160_000);
      bar.update(31);
    });
    expect(out).toEqual([
      'lora sft: 21/100 (20%) elapsed 60s eta ? \n',
      'lora sft: 31/100 (30%) elapsed 160s eta 690s \n',
    ]);
  });

  it('prints a line each time the done share crosses a step of everyPct, and at the end', () => {
    const out = lines((at) => {
      const bar = createProgress('eval', 4, { everyPct: 50 });
      for (let i = 1; i <= 4; i++) {
        at(i * 1000);
        bar.update(i, { ok: i });
      }
    });
    expect(out).toEqual([
      'eval: 1/4 (0%) elapsed 1s eta ? ok 1\n',
      'eval: 2/4 (50%) elapsed 2s eta 2s ok 2\n',
      'eval: 4/4 (100%) elapsed 4s eta 0s ok 4\n',
    ]);
  });
});
