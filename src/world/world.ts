import type { Task } from '../core/task.ts';
import type { Verdict } from '../core/trajectory.ts';
import { Perturbation } from './perturb.ts';
import type { Condition, Site, TaskTemplate } from './site.ts';
import { SITE_FACTORIES } from './sites/index.ts';
import { DEFAULT_WORLD_SEED } from './split.ts';

export const WORLD_VERIFIER_ID = 'world-programmatic';

interface SessionEntry {
  states: Map<string, unknown>;
  consent: Set<string>;
  promoSeen: Set<string>;
  /** Page views per site in this session (the promo of a perturbed visit waits for its view). */
  views: Map<string, number>;
  perturb: Perturbation;
  touchedAt: number;
}

/**
 * The offline world without HTTP: its sites (built from one seed), per-session state and the
 * programmatic verifier. The server wraps it; tests and the episode runner may call it directly.
 */
export class World {
  readonly seed: number;
  readonly sites: Map<string, Site>;
  private readonly templates = new Map<string, { site: Site; template: TaskTemplate }>();
  private readonly sessions = new Map<string, SessionEntry>();

  constructor(seed: number = DEFAULT_WORLD_SEED) {
    this.seed = seed;
    this.sites = new Map();
    for (const factory of SITE_FACTORIES) {
      const site = factory(seed);
      if (this.sites.has(site.id)) throw new Error(`duplicate world site id ${site.id}`);
      this.sites.set(site.id, site);
      for (const t of site.templates) {
        if (this.templates.has(t.id)) throw new Error(`duplicate task template id ${t.id}`);
        this.templates.set(t.id, { site, template: t });
      }
    }
  }

  template(id: string): { site: Site; template: TaskTemplate } | undefined {
    return this.templates.get(id);
  }

  private session(id: string): SessionEntry {
    let s = this.sessions.get(id);
    if (!s) {
      s = {
        states: new Map(),
        consent: new Set(),
        promoSeen: new Set(),
        views: new Map(),
        perturb: Perturbation.NONE,
        touchedAt: Date.now(),
      };
      this.sessions.set(id, s);
    }
    s.touchedAt = Date.now();
    return s;
  }

  /** The state of one site in one session, created on first use. */
  state<S = unknown>(sessionId: string, siteId: string): S {
    const site = this.sites.get(siteId);
    if (!site) throw new Error(`unknown world site ${siteId}`);
    const s = this.session(sessionId);
    if (!s.states.has(siteId)) s.states.set(siteId, site.initialState());
    return s.states.get(siteId) as S;
  }

  /**
   * The overlay state a site renders from. Under a perturbation, a site without a cookie banner this
   * visit reads as consented, and a promo that is off (or not due yet) reads as seen.
   */
  uiState(sessionId: string, siteId: string): { consent: boolean; promoSeen: boolean } {
    const s = this.session(sessionId);
    if (!s.perturb.active) return { consent: s.consent.has(siteId), promoSeen: s.promoSeen.has(siteId) };
    const plan = s.perturb.overlays(siteId);
    const views = s.views.get(siteId) ?? 0;
    const promoDue = plan.promoFromView !== null && views >= plan.promoFromView;
    return {
      consent: s.consent.has(siteId) || !plan.cookieBanner,
      promoSeen: s.promoSeen.has(siteId) || !promoDue,
    };
  }

  /** Counts a page view of a site in a session (the server calls it for page loads, not fetches). */
  countView(sessionId: string, siteId: string): void {
    const s = this.session(sessionId);
    s.views.set(siteId, (s.views.get(siteId) ?? 0) + 1);
  }

  /** The perturbation a session's pages are rendered under (the identity unless set at reset). */
  perturbation(sessionId: string): Perturbation {
    return this.session(sessionId).perturb;
  }

  markUi(sessionId: string, siteId: string, what: 'consent' | 'promo'): void {
    const s = this.session(sessionId);
    (what === 'consent' ? s.consent : s.promoSeen).add(siteId);
  }

  /**
   * Forgets everything about a session: carts, orders, mail, dismissed banners. With a non-zero
   * `perturb` seed the session's pages are then rendered under that perturbation (see Perturbation).
   */
  resetSession(sessionId: string, opts: { perturb?: number } = {}): void {
    this.sessions.delete(sessionId);
    if (opts.perturb) this.session(sessionId).perturb = new Perturbation(opts.perturb);
  }

  /** Drops sessions idle for longer than maxIdleMs (long-running servers). */
  gc(maxIdleMs = 6 * 3600_000): void {
    const cutoff = Date.now() - maxIdleMs;
    for (const [id, s] of this.sessions) if (s.touchedAt < cutoff) this.sessions.delete(id);
  }

  /** Runs a world task's conditions against a session's final state and the agent's answer. */
  conditions(task: Task, sessionId: string, answer: string | null): Condition[] {
    if (task.verifier.kind !== 'world') throw new Error(`task ${task.id} is not a world task`);
    const entry = this.templates.get(task.verifier.template);
    if (!entry) throw new Error(`task ${task.id}: unknown template ${task.verifier.template}`);
    const state = this.state(sessionId, entry.site.id);
    return entry.template.verify(task.verifier.params, state, answer, entry.site.data);
  }

  /** The programmatic verdict: success when every condition holds; score = share of conditions met. */
  verify(task: Task, sessionId: string, answer: string | null): Verdict {
    const conds = this.conditions(task, sessionId, answer);
    const ok = conds.filter((c) => c.ok).length;
    const failed = conds.filter((c) => !c.ok);
    return {
      success: conds.length > 0 && failed.length === 0,
      score: conds.length ? ok / conds.length : 0,
      reason: failed.length
        ? `failed: ${failed.map((c) => (c.detail ? `${c.id} (${c.detail})` : c.id)).join('; ')}`
        : `all ${conds.length} conditions met`,
      verifierId: WORLD_VERIFIER_ID,
      failedConditions: failed.map((c) => c.id),
    };
  }
}
