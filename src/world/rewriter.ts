import { hashString, Rng } from '../core/rng.ts';
import { levelFromReferenceLength, Task } from '../core/task.ts';
import {
  choose,
  explained,
  type Grounding,
  groundKeys,
  intentScore,
  unexplained,
  viewQuery,
} from './grounding/ground.ts';
import { profileTemplate, type TemplateProfile } from './grounding/profile.ts';
import { FuzzyVocab } from './grounding/tokens.ts';
import type { RawQuery, Site } from './site.ts';
import { splitOf } from './split.ts';
import { WORLD_ORIGIN } from './tasks.ts';
import { World } from './world.ts';

/**
 * The offline task rewriter: turns a messy user query ("cheapest 2br condo in austin??") into a
 * clean, executable world task by grounding it in the catalog. It picks the template whose
 * wording and parameters the text supports best, fuzzy-matches names, cities and products in the
 * text against each parameter's catalog values, and words the result with the template's own
 * phrasing. Text that cannot be grounded is rejected with a reason, never guessed.
 */

export type RewriteResult = { feasible: true; task: Task } | { feasible: false; reason: string };

interface SiteIndex {
  profiles: TemplateProfile[];
  /** Every word the site's templates and catalog values use, for typo-tolerant lookup. */
  vocab: FuzzyVocab;
  /** Rarity of a word across the site's templates (intent words that single one out weigh more). */
  idf: Map<string, number>;
}

const INDEXES = new WeakMap<World, Map<string, SiteIndex>>();

/** Minimum share of a template's characteristic words a query must use. */
const MIN_INTENT = 0.04;

function siteIndex(world: World, site: Site): SiteIndex {
  let perWorld = INDEXES.get(world);
  if (!perWorld) {
    perWorld = new Map();
    INDEXES.set(world, perWorld);
  }
  let idx = perWorld.get(site.id);
  if (!idx) {
    const profiles = site.templates.map((t) => profileTemplate(site, t, world.seed));
    const counts = new Map<string, number>();
    for (const p of profiles) for (const t of p.vocab.keys()) counts.set(t, (counts.get(t) ?? 0) + 1);
    const idf = new Map<string, number>();
    for (const [t, n] of counts) idf.set(t, Math.log(1 + profiles.length / n));
    const vocab = new FuzzyVocab();
    for (const p of profiles) {
      for (const t of p.vocab.keys()) vocab.add(t);
      for (const k of p.keys) for (const t of k.postings.keys()) vocab.add(t);
      for (const k of p.keys)
        for (const t of [...k.context.keys(), ...k.markers.true, ...k.markers.false]) vocab.add(t);
    }
    idx = { profiles, idf, vocab };
    perWorld.set(site.id, idx);
  }
  return idx;
}

/** How well a template explains the query: intent words, grounded parameters, words accounted for. */
function scoreGrounding(g: Omit<Grounding, 'score'>, covered: number): number {
  const fit = g.keys.length ? g.keys.reduce((a, k) => a + k.conf, 0) / g.keys.length : 0.5;
  return g.intent + 0.6 * fit + 0.8 * covered;
}

/** Grounds a query in every template of the given sites and returns them best first. */
export function groundQuery(text: string, world: World, siteIds: string[]): Grounding[] {
  const out: Grounding[] = [];
  for (const id of siteIds) {
    const site = world.sites.get(id);
    if (!site) continue;
    const idx = siteIndex(world, site);
    const q = viewQuery(text, idx.vocab);
    for (const profile of idx.profiles) {
      const keys = groundKeys(profile, q);
      const base = {
        profile,
        keys,
        intent: intentScore(profile, q, idx.idf),
        params: null,
        draft: null,
        assumed: [],
      };
      out.push({ ...base, score: scoreGrounding(base, explained(profile, q, keys)) });
    }
  }
  return out.sort((a, b) => b.score - a.score);
}

/**
 * Rewrites a raw query into a verifiable world task, or says why it cannot. Corpus queries carry
 * a grounding, which is ignored here: the rewriter works from the text alone.
 */
export function rewriteRawQueryOffline(
  query: RawQuery | { site?: string; text: string },
  world: World,
): RewriteResult {
  const text = query.text?.trim() ?? '';
  if (text.length < 3) return { feasible: false, reason: 'the query is empty' };
  if (query.site && !world.sites.has(query.site))
    return { feasible: false, reason: `unknown site "${query.site}"` };
  const siteIds = query.site ? [query.site] : [...world.sites.keys()];
  const ranked = groundQuery(text, world, siteIds);
  const reasons: string[] = [];
  for (const g of ranked.slice(0, 3)) {
    // A value counts as said when some word matched it exactly; typo-only matches ("sing" ~ "King") do not.
    const said = g.keys.filter((k) => k.value !== null && k.conf >= 0.5 && (k.exact ?? false));
    if (g.intent < MIN_INTENT) {
      reasons.push(`${g.profile.template.id}: the request does not read like this task`);
      continue;
    }
    if (g.keys.length && !said.length) {
      reasons.push(`${g.profile.template.id}: nothing in the text matches the catalog`);
      continue;
    }
    // Words the catalog does not know, while a parameter is left unsaid: the user asked for
    // something this site does not have ("a condo on mars"), so do not fill the gap with a guess.
    const idx = siteIndex(world, g.profile.site);
    const unknown = unexplained(viewQuery(text, idx.vocab), g.keys);
    const unsaid = g.keys.filter((k) => k.value === null);
    if (unknown.length && unsaid.length) {
      reasons.push(
        `"${unknown.join(' ')}" matches nothing in the ${g.profile.site.id} catalog (no ${unsaid.map((k) => k.path).join(', ')} given)`,
      );
      continue;
    }
    const picked = choose(g.profile, g.keys);
    if (!picked) {
      reasons.push(`${g.profile.template.id}: no task in the catalog has these values`);
      continue;
    }
    const site = g.profile.site.id;
    const d = picked.draft;
    const task = Task.parse({
      schemaVersion: 1,
      id: `synth.${g.profile.template.id}.${hashString(`${site}:${text}`).toString(36)}`,
      suite: 'world',
      site,
      objective: d.objective,
      startUrl: `${WORLD_ORIGIN}/${site}${d.startPath.startsWith('/') ? '' : '/'}${d.startPath}`,
      level: levelFromReferenceLength(d.referenceLength),
      split: splitOf(d.splitKey),
      referenceLength: d.referenceLength,
      category: g.profile.template.id.split('.').slice(1).join('.'),
      verifier: { kind: 'world', template: g.profile.template.id, params: picked.params },
      meta: {
        rawQuery: text,
        confidence: Number(g.score.toFixed(3)),
        assumed: picked.assumed,
        splitKey: d.splitKey,
      },
    });
    return { feasible: true, task };
  }
  const best = ranked[0];
  if (!best || best.intent < MIN_INTENT)
    return { feasible: false, reason: 'the request does not match any kind of task the world supports' };
  return { feasible: false, reason: reasons[0] ?? 'no template of the world fits this request' };
}

/** The raw-query corpus of every site of the world (seeded by the world's seed). */
export function worldRawQueries(world: World): RawQuery[] {
  return [...world.sites.values()].flatMap((s) => s.rawQueries(new Rng(`${world.seed}:raw-queries:${s.id}`)));
}

/** A query as `rmsweb tasks synth` reads it (kept structural: world sits below models). */
export interface SynthQuery {
  query: string;
  site?: string;
  startUrl?: string;
  line: number;
}

export type SynthOutcome =
  | { feasible: true; query: SynthQuery; task: Task }
  | { feasible: false; query: SynthQuery; reason: string };

/** The site a start URL points into (`http://127.0.0.1:7311/homes/search` -> `homes`), if it is a world site. */
function siteOfUrl(url: string | undefined, world: World): string | undefined {
  if (!url) return undefined;
  try {
    const first = new URL(url).pathname.split('/')[1];
    return world.sites.has(first) ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The offline rewriter behind `rmsweb tasks synth --model offline`: grounds each query in the
 * world's catalog. Given no queries, it rewrites the world's own raw-query corpus.
 */
export function createOfflineRewriter(opts: { world?: World; seed?: number } = {}): {
  readonly id: string;
  rewrite(
    queries: SynthQuery[],
    o?: { onProgress?: (done: number, total: number) => void },
  ): Promise<SynthOutcome[]>;
} {
  let world = opts.world ?? null;
  const getWorld = async (): Promise<World> => {
    world ??= new World(opts.seed);
    return world;
  };
  return {
    id: 'offline-world',
    async rewrite(queries, o = {}) {
      const w = await getWorld();
      const input: SynthQuery[] = queries.length
        ? queries
        : worldRawQueries(w).map((q, i) => ({ query: q.text, site: q.site, line: i + 1 }));
      const out: SynthOutcome[] = [];
      for (const q of input) {
        const site = q.site ?? siteOfUrl(q.startUrl, w);
        const r = rewriteRawQueryOffline({ text: q.query, ...(site ? { site } : {}) }, w);
        out.push(
          r.feasible
            ? { feasible: true, query: q, task: r.task }
            : { feasible: false, query: q, reason: r.reason },
        );
        o.onProgress?.(out.length, input.length);
      }
      return out;
    },
  };
}
