import { Rng } from '../core/rng.ts';
import type { Trajectory } from '../core/trajectory.ts';
import { WORLD_VERIFIER_ID } from '../world/world.ts';

/** An episode a judge can be calibrated on: its id and the verifier's verdict. */
export interface VerifiedEpisode {
  id: string;
  success: boolean;
}

/** A calibration sample: the episodes in a canonical order, and how it was drawn. */
export interface EpisodeSample {
  ids: string[];
  successes: number;
  failures: number;
  /** Verified successes and failures the store held. */
  available: { successes: number; failures: number };
  /** Set when one side had too few episodes for an even split. */
  note?: string;
}

/** World episodes the programmatic verifier scored: the only ones with a known true outcome. */
export function verifiedWorldEpisodes(trajectories: readonly Trajectory[]): VerifiedEpisode[] {
  return trajectories
    .filter((t) => t.task.suite === 'world' && t.verdict?.verifierId === WORLD_VERIFIER_ID)
    .map((t) => ({ id: t.id, success: t.verdict!.success }));
}

/**
 * Draws up to `n` episodes, half verified successes and half failures (the odd one a failure),
 * seeded: each side is put in id order, shuffled by an Rng of `seed`, and its head taken, so the
 * same store and seed give the same sample, and a larger n extends a smaller one's sides. When a
 * side runs short the other fills the sample, and the note says so.
 */
export function sampleEpisodes(episodes: readonly VerifiedEpisode[], n: number, seed: number): EpisodeSample {
  const byId = (a: VerifiedEpisode, b: VerifiedEpisode) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const ok = episodes.filter((e) => e.success).sort(byId);
  const bad = episodes.filter((e) => !e.success).sort(byId);
  const rng = new Rng(`judge-sample:${seed}`);
  const okOrder = rng.fork('success').shuffle(ok);
  const badOrder = rng.fork('failure').shuffle(bad);
  let wantOk = Math.floor(n / 2);
  let wantBad = n - wantOk;
  if (okOrder.length < wantOk) {
    wantBad = Math.min(badOrder.length, n - okOrder.length);
    wantOk = okOrder.length;
  } else if (badOrder.length < wantBad) {
    wantOk = Math.min(okOrder.length, n - badOrder.length);
    wantBad = badOrder.length;
  }
  const picked = [...okOrder.slice(0, wantOk), ...badOrder.slice(0, wantBad)].sort(byId);
  const short =
    wantOk + wantBad < n ? `the store holds only ${wantOk + wantBad} verified world episodes` : '';
  const uneven =
    Math.abs(wantOk - wantBad) > 1
      ? `not balanced: ${wantOk} successes and ${wantBad} failures (the store holds ${ok.length} and ${bad.length})`
      : '';
  const note = [short, uneven].filter(Boolean).join('; ');
  return {
    ids: picked.map((e) => e.id),
    successes: wantOk,
    failures: wantBad,
    available: { successes: ok.length, failures: bad.length },
    ...(note ? { note } : {}),
  };
}
