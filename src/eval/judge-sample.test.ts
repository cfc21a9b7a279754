import { describe, expect, it } from 'vitest';
import { sampleEpisodes, type VerifiedEpisode } from './judge-sample.ts';

const episodes = (ok: number, bad: number): VerifiedEpisode[] => [
  ...Array.from({ length: ok }, (_, i) => ({ id: `s${String(i).padStart(3, '0')}`, success: true })),
  ...Array.from({ length: bad }, (_, i) => ({ id: `f${String(i).padStart(3, '0')}`, success: false })),
];

describe('the calibration sampler', () => {
  it('draws half successes and half failures', () => {
    const s = sampleEpisodes(episodes(30, 70), 20, 0);
    expect(s.ids).toHaveLength(20);
    expect(s.ids.filter((id) => id.startsWith('s'))).toHaveLength(10);
    expect(s.ids.filter((id) => id.startsWith('f'))).toHaveLength(10);
    expect([s.successes, s.failures]).toEqual([10, 10]);
    expect(s.note).toBeUndefined();
    const odd = sampleEpisodes(episodes(30, 70), 7, 0);
    expect([odd.successes, odd.failures]).toEqual([3, 4]);
  });

  it('is seeded: the same seed repeats the sample whatever the input order; another seed differs', () => {
    const eps = episodes(30, 70);
    const a = sampleEpisodes(eps, 20, 5);
    expect(sampleEpisodes([...eps].reverse(), 20, 5)).toEqual(a);
    const b = sampleEpisodes(eps, 20, 6);
    expect(b.ids).not.toEqual(a.ids);
    // A larger sample extends each side of a smaller one.
    const bigger = sampleEpisodes(eps, 40, 5);
    expect(a.ids.every((id) => bigger.ids.includes(id))).toBe(true);
  });

  it('fills from the other side when one runs short, and says so', () => {
    const s = sampleEpisodes(episodes(3, 50), 20, 0);
    expect([s.successes, s.failures]).toEqual([3, 17]);
    expect(s.note).toMatch(/not balanced: 3 successes and 17 failures/);
    const all = sampleEpisodes(episodes(2, 3), 20, 0);
    expect(all.ids).toHaveLength(5);
    expect(all.note).toMatch(/only 5 verified world episodes/);
  });
});
