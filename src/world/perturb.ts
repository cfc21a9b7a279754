import { Rng } from '../core/rng.ts';

/** How a site's overlays behave in one visit: whether the cookie banner shows, and the promo's timing. */
export interface OverlayPlan {
  /** Whether the cookie banner is shown at all (some visitors never get one). */
  cookieBanner: boolean;
  /** The page view (1-based, per site) from which the promo modal shows; null: no promo this visit. */
  promoFromView: number | null;
}

/** Page-size factors a perturbed listing draws from (the unperturbed size is factor 1). */
const PAGE_SIZE_FACTORS = [0.75, 1, 1.5] as const;

/** How far (in ranks) a perturbed default ordering may move an item. */
const JITTER_RANKS = 3;

/**
 * A per-session perturbation of the offline world: what a real site changes from one visit to the
 * next. It reorders listings under their default ("recommended", "best match") sort by a bounded
 * jitter (so lookalikes and decoys move around the target), changes the page size, and decides
 * which overlays appear and from which page view. It never touches site data, session state or the
 * verifier, so a task's answer stays the same. Seed 0 is the identity: today's pages exactly.
 *
 * Every choice is a pure function of (seed, label), so the same page looks the same throughout one
 * episode, as it would within one visit to a real site.
 */
export class Perturbation {
  /** The identity perturbation (seed 0). */
  static readonly NONE = new Perturbation(0);

  readonly seed: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new Error(`perturbation seed must be an integer in [0, 2^32), got ${seed}`);
    this.seed = seed;
  }

  /** Whether this perturbation changes anything (seed 0 does not). */
  get active(): boolean {
    return this.seed !== 0;
  }

  /** A generator for one named choice, stable for (seed, label). */
  rng(label: string): Rng {
    return new Rng(`perturb:${this.seed}:${label}`);
  }

  /**
   * A listing's default order with a bounded jitter: each item keeps its rank plus a random offset
   * below JITTER_RANKS, so neighbours swap (a lookalike may now come before the target) but the best
   * match stays near the top. Items are returned unchanged when inactive.
   */
  jitter<T>(items: readonly T[], label: string): T[] {
    if (!this.active || items.length < 2) return items.slice();
    const rng = this.rng(`jitter:${label}`);
    return items
      .map((item, rank) => ({ item, key: rank + rng.next() * JITTER_RANKS }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.item);
  }

  /** A listing's page size: the site's own size, or a smaller or larger one this visit. */
  pageSize(base: number, label: string): number {
    if (!this.active) return base;
    return Math.max(3, Math.round(base * this.rng(`page-size:${label}`).pick(PAGE_SIZE_FACTORS)));
  }

  /** Whether the cookie banner shows and from which page view the promo modal shows, for a site. */
  overlays(siteId: string): OverlayPlan {
    if (!this.active) return { cookieBanner: true, promoFromView: 1 };
    const rng = this.rng(`overlays:${siteId}`);
    const cookieBanner = rng.bool(0.7);
    const r = rng.next();
    const promoFromView = r < 0.25 ? null : r < 0.65 ? 1 : r < 0.85 ? 2 : 3;
    return { cookieBanner, promoFromView };
  }
}

/**
 * The perturbation seed of run `run` of an evaluation seeded with `evalSeed`: 0 when perturbation is
 * off, otherwise a non-zero 32-bit value that differs between runs and between evaluation seeds.
 */
export function runPerturbSeed(evalSeed: number, run: number, enabled = true): number {
  if (!enabled) return 0;
  const v = new Rng(`eval-perturb:${evalSeed}:${run}`).int(1, 0x7fffffff);
  return v;
}
