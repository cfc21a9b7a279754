import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../core/rng.ts';

/** A sub-decision distribution: log-probs over entries, with the entries that are valid. */
export interface Dist {
  lp: Float32Array;
  valid: Uint8Array;
}

/** Runs `f` in a tidy scope and returns its result's values, disposing every tensor. */
export function readOnce(f: () => tf.Tensor): Float32Array {
  const t = tf.tidy(f);
  try {
    return t.dataSync() as Float32Array;
  } finally {
    t.dispose();
  }
}

/**
 * The argmax of a distribution's valid entries (no rng), or a draw from softmax(logp / temperature)
 * over them. One rng draw per call, so a seeded rng gives the same choices in the same order.
 */
export function pickIndex(d: Dist, rng: Rng | null, temperature: number): number {
  let best = -1;
  for (let i = 0; i < d.lp.length; i++) if (d.valid[i] && (best < 0 || d.lp[i] > d.lp[best])) best = i;
  if (!rng || best < 0) return best;
  const T = Math.max(temperature, 1e-6);
  let z = 0;
  const w = new Float64Array(d.lp.length);
  for (let i = 0; i < d.lp.length; i++) if (d.valid[i]) z += w[i] = Math.exp((d.lp[i] - d.lp[best]) / T);
  let u = rng.next() * z;
  for (let i = 0; i < w.length; i++) {
    if (!d.valid[i]) continue;
    u -= w[i];
    if (u <= 0) return i;
  }
  return best;
}
