import type { TaskDraft } from '../site.ts';
import {
  type Candidate,
  type Flat,
  flatten,
  type KeyProfile,
  type Leaf,
  type TemplateProfile,
} from './profile.ts';
import {
  contentTokens,
  dateMentions,
  type FuzzyVocab,
  isShorthand,
  numberMentions,
  parseDateValue,
  queryTokens,
  stem,
  tokenMatches,
} from './tokens.ts';

/**
 * Grounds one messy query in one template: each visible parameter gets the catalog value the
 * text supports best (with a confidence), then the template's candidates are matched against
 * those values, and the winner is worded as a task.
 */

export interface QueryView {
  text: string;
  tokens: string[];
  /** Query token -> the site vocabulary words it stands for (exact or a typo away). */
  matches: Map<string, string[]>;
  numbers: Array<{ value: number; pos: number }>;
  dates: Array<{ month: number; day: number; year: number | null; pos: number }>;
}

export function viewQuery(text: string, vocab: FuzzyVocab): QueryView {
  const tokens = [...new Set(queryTokens(text).map(stem))];
  const matches = new Map(tokens.map((t) => [t, vocab.lookup(t)]));
  return { text, tokens, matches, numbers: numberMentions(text), dates: dateMentions(text) };
}

export interface KeyGround {
  path: string;
  /** JSON of the grounded value, or null when the text does not mention this parameter. */
  value: string | null;
  conf: number;
  /** Query tokens that support the value (what this parameter explains of the text). */
  used?: string[];
  /** Evidence behind the value (idf-weighted matched words). */
  gain?: number;
  /** Whether some query word matched the value exactly (not only as a typo). */
  exact?: boolean;
}

export interface Grounding {
  profile: TemplateProfile;
  keys: KeyGround[];
  intent: number;
  score: number;
  /** The chosen parameters and their task draft, when the template can word them. */
  params: Record<string, unknown> | null;
  draft: TaskDraft<unknown> | null;
  /** Parameters taken from the catalog because the text did not say (for the task's meta). */
  assumed: string[];
}

/** Which vocabulary tokens each query token stands for (exact or a typo away). */
function matchedVocab(q: QueryView, vocab: { has(t: string): boolean }): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const qt of q.tokens)
    out.set(
      qt,
      (q.matches.get(qt) ?? []).filter((t) => vocab.has(t)),
    );
  return out;
}

/** A typo match counts less than an exact one ("eastside" is one letter from "westside"). */
const FUZZY_WEIGHT = 0.7;

function groundEntityOrText(k: KeyProfile, q: QueryView, claimed: Set<string> = new Set()): KeyGround {
  const hits = matchedVocab(q, k.postings);
  const n = k.values.length;
  const gained = new Array<number>(n).fill(0);
  const support = new Map<number, string[]>();
  const exact = new Set<number>();
  for (const [qt, toks] of hits) {
    if (claimed.has(qt)) continue;
    const best = new Map<number, number>();
    for (const t of toks) {
      const w = (k.idf.get(t) ?? 0) * (t === qt ? 1 : FUZZY_WEIGHT);
      for (const v of k.postings.get(t) ?? []) {
        best.set(v, Math.max(best.get(v) ?? 0, w));
        if (t === qt) exact.add(v);
      }
    }
    for (const [v, w] of best) {
      gained[v] += w;
      support.set(v, [...(support.get(v) ?? []), qt]);
    }
  }
  const empty = k.values.indexOf('""');
  if (k.kind === 'entity') {
    // Highest evidence wins; on a tie the value with fewer words ("Trail Runner 2" over "... GTX").
    const order = [...gained.keys()]
      .filter((i) => gained[i] > 0)
      .sort((a, b) => gained[b] - gained[a] || k.tokens[a].length - k.tokens[b].length);
    if (!order.length || gained[order[0]] < 2) {
      return empty >= 0
        ? { path: k.path, value: '""', conf: 0.6, used: [] }
        : { path: k.path, value: null, conf: 0 };
    }
    const gap = gained[order[0]] - (order.length > 1 ? gained[order[1]] : 0);
    return {
      path: k.path,
      value: k.values[order[0]],
      conf: gap > 0.3 ? 1 : 0.5,
      used: support.get(order[0]),
      gain: gained[order[0]],
      exact: exact.has(order[0]),
    };
  }
  // Text: the share of the value's own words the query contains.
  let best = { i: -1, cov: 0, w: 0 };
  const phrase = ` ${q.tokens.join(' ')} `;
  const said = ` ${contentTokens(q.text).map(stem).join(' ')} `;
  for (let i = 0; i < n; i++) {
    const total = k.tokens[i].reduce((a, t) => a + (k.idf.get(t) ?? 0), 0);
    if (total === 0) continue;
    // Written as one phrase in the query ("12:30 PM", not "4 ... 30 PM"): a small bonus.
    const whole =
      k.tokens[i].length > 1 &&
      (said.includes(` ${k.tokens[i].join(' ')} `) || phrase.includes(` ${k.tokens[i].join(' ')} `))
        ? 0.05
        : 0;
    const cov = gained[i] / total + whole;
    if (cov > best.cov + 1e-9 || (Math.abs(cov - best.cov) < 1e-9 && gained[i] > best.w))
      best = { i, cov, w: gained[i] };
  }
  if (best.i >= 0 && best.cov >= 0.6)
    return {
      path: k.path,
      value: k.values[best.i],
      conf: Math.min(1, best.cov),
      used: support.get(best.i),
      gain: best.w,
      exact: exact.has(best.i),
    };
  if (empty >= 0) return { path: k.path, value: '""', conf: 0.6, used: [] };
  return { path: k.path, value: null, conf: 0 };
}

function groundBool(k: KeyProfile, q: QueryView): KeyGround {
  const has = (ws: string[]) => ws.some((w) => q.tokens.some((t) => tokenMatches(t, w)));
  if (k.markers.true.length && has(k.markers.true))
    return { path: k.path, value: 'true', conf: 0.8, exact: true };
  if (k.markers.false.length && has(k.markers.false))
    return { path: k.path, value: 'false', conf: 0.8, exact: true };
  if (k.markers.true.length && !k.markers.false.length) return { path: k.path, value: 'false', conf: 0.4 };
  return { path: k.path, value: null, conf: 0 };
}

/** Numbers: each mention goes to the key whose domain holds it and whose context words fit best. */
function groundNumbers(keys: KeyProfile[], q: QueryView): KeyGround[] {
  const out = new Map<string, KeyGround>();
  const used = new Set<number>();
  const lower = q.text.toLowerCase();
  const near = (pos: number) => {
    const before = contentTokens(lower.slice(Math.max(0, pos - 24), pos)).slice(-1);
    const after = contentTokens(
      lower
        .slice(pos)
        .replace(/^(no|zero|none)\b/, '')
        .replace(/^[\d.,$%k\s]+/, '')
        .slice(0, 24),
    ).slice(0, 1);
    return [...before, ...after].map(stem);
  };
  const pairs: Array<{ k: KeyProfile; m: number; score: number }> = [];
  for (const k of keys) {
    const domain = new Set(k.values.map((v) => Number(JSON.parse(v))));
    q.numbers.forEach((n, m) => {
      if (!domain.has(n.value)) return;
      const ctx = near(n.pos).reduce(
        (a, w) =>
          a + (k.context.has(w) ? 1 : [...k.context.keys()].some((c) => tokenMatches(w, c)) ? 0.8 : 0),
        0,
      );
      pairs.push({ k, m, score: 1 + ctx });
    });
  }
  pairs.sort((a, b) => b.score - a.score || a.k.position - b.k.position);
  for (const p of pairs) {
    if (out.has(p.k.path) || used.has(p.m)) continue;
    const v = q.numbers[p.m].value;
    out.set(p.k.path, {
      path: p.k.path,
      value: JSON.stringify(v),
      conf: p.score > 1 ? 1 : 0.7,
      used: q.tokens.filter((t) => Number(t) === v),
      exact: true,
    });
    used.add(p.m);
  }
  return keys.map((k) => out.get(k.path) ?? { path: k.path, value: null, conf: 0 });
}

/** Dates: mentions in order go to date keys in the order objectives state them. */
function groundDates(keys: KeyProfile[], q: QueryView): KeyGround[] {
  const ordered = [...keys].sort((a, b) => a.position - b.position);
  const out = new Map<string, KeyGround>();
  let next = 0;
  for (const k of ordered) {
    for (let m = next; m < q.dates.length; m++) {
      const d = q.dates[m];
      const hit = k.values.find((v) => {
        const p = parseDateValue(JSON.parse(v));
        return p && p.month === d.month && p.day === d.day && (d.year === null || d.year === p.year);
      });
      if (hit) {
        out.set(k.path, {
          path: k.path,
          value: hit,
          conf: 1,
          used: q.tokens.filter((t) => t === String(d.day)),
          exact: true,
        });
        next = m + 1;
        break;
      }
    }
  }
  return keys.map((k) => out.get(k.path) ?? { path: k.path, value: null, conf: 0 });
}

/**
 * Grounds every visible parameter of a template. Text values go first; the words of a value that
 * matched completely ("Riverside Branch") are not reused as evidence for an entity (a person who
 * lives on Riverside Dr), unless the entity has no other evidence.
 */
export function groundKeys(p: TemplateProfile, q: QueryView): KeyGround[] {
  const visible = p.keys.filter((k) => k.visible && k.kind !== 'opaque');
  const byPath = new Map<string, KeyGround>();
  for (const g of groundNumbers(
    visible.filter((k) => k.kind === 'number'),
    q,
  ))
    byPath.set(g.path, g);
  for (const g of groundDates(
    visible.filter((k) => k.kind === 'date'),
    q,
  ))
    byPath.set(g.path, g);
  for (const k of visible) {
    if (k.kind === 'text' || k.kind === 'list' || k.kind === 'entity')
      byPath.set(k.path, groundEntityOrText(k, q));
    if (k.kind === 'bool') byPath.set(k.path, groundBool(k, q));
  }
  resolveOverlaps(visible, q, byPath);
  return visible.map((k) => byPath.get(k.path)!);
}

const worth = (g: KeyGround) => (g.value === null ? 0 : g.conf) + 0.01 * (g.gain ?? 0);

/**
 * Two parameters may claim the same words: "Riverside" is a branch name and a street a person
 * lives on; "Young" is a last name and a previous name. Each shared word goes to whichever side
 * leaves both parameters best identified (an entity left ambiguous counts for little).
 */
function resolveOverlaps(visible: KeyProfile[], q: QueryView, byPath: Map<string, KeyGround>): void {
  // Numbers and dates are read exactly: an entity does without the words they use.
  const exactUse = new Set(
    visible
      .filter((k) => k.kind === 'number' || k.kind === 'date')
      .flatMap((k) => byPath.get(k.path)?.used ?? []),
  );
  for (const a of visible) {
    if (a.kind !== 'entity' || !exactUse.size) continue;
    const ga = byPath.get(a.path)!;
    if (!(ga.used ?? []).some((t) => exactUse.has(t))) continue;
    const without = groundEntityOrText(a, q, exactUse);
    if (without.value !== null) byPath.set(a.path, without);
  }
  const matchable = visible.filter((k) => k.kind === 'entity' || k.kind === 'text' || k.kind === 'list');
  for (const a of matchable) {
    if (a.kind !== 'entity') continue;
    for (const b of matchable) {
      if (a === b) continue;
      const ga = byPath.get(a.path)!;
      const gb = byPath.get(b.path)!;
      const overlap = (ga.used ?? []).filter((t) => (gb.used ?? []).includes(t));
      if (!overlap.length) continue;
      const claimed = new Set(overlap);
      const aWithout = groundEntityOrText(a, q, claimed);
      const bWithout = groundEntityOrText(b, q, claimed);
      const keepA = worth(ga) + worth(bWithout);
      const keepB = worth(aWithout) + worth(gb);
      if (keepA >= keepB) byPath.set(b.path, bWithout);
      else byPath.set(a.path, aWithout);
    }
  }
}

/** Share of the query's words that the template's wording or grounded values account for. */
export function explained(p: TemplateProfile, q: QueryView, keys: KeyGround[]): number {
  if (!q.tokens.length) return 0;
  const used = new Set(keys.flatMap((k) => k.used ?? []));
  const hits = matchedVocab(q, p.vocab);
  for (const [qt, toks] of hits) if (toks.length) used.add(qt);
  return q.tokens.filter((t) => used.has(t)).length / q.tokens.length;
}

/** Intent: the share of the template's characteristic words the query uses, weighted by rarity. */
export function intentScore(p: TemplateProfile, q: QueryView, idf: Map<string, number>): number {
  const hits = matchedVocab(q, p.vocab);
  const matched = new Set([...hits.values()].flat());
  let got = 0;
  let total = 0;
  for (const [t, df] of p.vocab) {
    const w = df * (idf.get(t) ?? 1);
    total += w;
    if (matched.has(t)) got += w;
  }
  return total ? got / total : 0;
}

/** Puts dotted paths back into nested objects and arrays. */
export function unflatten(flat: Flat): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [path, v] of Object.entries(flat)) {
    const parts = path.split('.');
    let cur: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, i) => {
      const key = /^\d+$/.test(part) && Array.isArray(cur) ? Number(part) : part;
      if (i === parts.length - 1) (cur as Record<string | number, unknown>)[key] = v;
      else {
        const nextIsIndex = /^\d+$/.test(parts[i + 1]);
        (cur as Record<string | number, unknown>)[key] ??= nextIsIndex ? [] : {};
        cur = (cur as Record<string | number, unknown>)[key] as Record<string, unknown>;
      }
    });
  }
  return root;
}

const same = (a: Leaf | Leaf[] | undefined, json: string) => a !== undefined && JSON.stringify(a) === json;

/**
 * Picks the candidate that agrees with the grounded values (ties: the first), and words it. When
 * no candidate agrees with everything the text said, a template that can word arbitrary
 * parameters (draftFor) gets the closest candidate with the grounded values put in.
 */
export function choose(
  p: TemplateProfile,
  grounds: KeyGround[],
): { params: Record<string, unknown>; draft: TaskDraft<unknown>; assumed: string[] } | null {
  const said = grounds.filter((g) => g.value !== null);
  const want = said.reduce((a, g) => a + g.conf, 0);
  let best: { c: Candidate; agree: number } | null = null;
  for (const c of p.candidates) {
    let agree = 0;
    for (const g of said) if (same(c.flat[g.path], g.value!)) agree += g.conf;
    if (!best || agree > best.agree + 1e-9) best = { c, agree };
    if (best.agree >= want - 1e-9) break;
  }
  if (!best) return null;
  const assumed = grounds.filter((g) => g.value === null).map((g) => g.path);
  const data = p.site.data;
  if (best.agree >= want - 1e-9) {
    const draft = best.c.draft ?? p.template.draftFor?.(best.c.params, data) ?? null;
    return draft ? { params: best.c.params, draft, assumed } : null;
  }
  if (!p.template.draftFor) return substitute(p, best.c, said, assumed);
  const flat: Flat = { ...best.c.flat };
  for (const g of said) flat[g.path] = JSON.parse(g.value!);
  const params = unflatten(flat);
  const draft = p.template.draftFor(params, data);
  return draft ? { params: draft.params as Record<string, unknown>, draft, assumed } : null;
}

function replaceAll(s: string, from: string, to: string): string {
  return from ? s.split(from).join(to) : s;
}

/**
 * For templates that cannot word arbitrary parameters: reword the closest sampled task by putting
 * the grounded catalog item in place of the sampled one (its name in the objective, its id in the
 * parameters and start path). Only safe when no hidden parameter (an answer) depends on the item.
 */
function substitute(
  p: TemplateProfile,
  c: Candidate,
  said: KeyGround[],
  assumed: string[],
): { params: Record<string, unknown>; draft: TaskDraft<unknown>; assumed: string[] } | null {
  if (!c.draft || p.keys.some((k) => !k.visible && k.kind !== 'opaque')) return null;
  let { objective, startPath, splitKey } = c.draft;
  const flat: Flat = { ...c.flat };
  for (const g of said) {
    const k = p.keys.find((x) => x.path === g.path)!;
    const from = c.flat[g.path];
    const to = JSON.parse(g.value!) as Leaf;
    if (JSON.stringify(from) === g.value) continue;
    if (k.kind === 'entity' && k.records) {
      const a = k.records.get(String(from));
      const b = k.records.get(String(to));
      if (!a || !b) return null;
      let changed = false;
      for (const [f, v] of Object.entries(a)) {
        if (typeof v !== 'string' || typeof b[f] !== 'string' || v.length < 3 || !objective.includes(v))
          continue;
        objective = replaceAll(objective, v, b[f] as string);
        changed = true;
      }
      if (!changed) return null;
    } else if (
      (k.kind === 'text' || k.kind === 'number') &&
      from !== null &&
      from !== '' &&
      objective.split(String(from)).length === 2
    ) {
      objective = objective.replace(String(from), String(to));
    } else return null;
    startPath = replaceAll(startPath, encodeURIComponent(String(from)), encodeURIComponent(String(to)));
    startPath = replaceAll(startPath, String(from), String(to));
    splitKey = replaceAll(splitKey, String(from), String(to));
    flat[g.path] = to;
  }
  const params = unflatten(flat);
  return { params, draft: { ...c.draft, params, objective, startPath, splitKey }, assumed };
}

/** Whether a candidate's parameters equal the flattened grounding (used by tests and reports). */
export function flatEqual(a: unknown, b: unknown): boolean {
  const fa = flatten(a);
  const fb = flatten(b);
  const keys = new Set([...Object.keys(fa), ...Object.keys(fb)]);
  return [...keys].every((k) => JSON.stringify(fa[k]) === JSON.stringify(fb[k]));
}

/** Query words that neither the site's vocabulary nor the template's grounded values account for. */
export function unexplained(q: QueryView, keys: KeyGround[]): string[] {
  const used = new Set(keys.flatMap((k) => k.used ?? []));
  return q.tokens.filter(
    (t) =>
      !used.has(t) &&
      !/\d/.test(t) &&
      t.length > 2 &&
      !(q.matches.get(t) ?? []).length &&
      !FILLER.has(t) &&
      !isShorthand(t),
  );
}

const FILLER = new Set(
  'same number need want pls plz thx thanks thing stuff good nice look looking some asap quick quickly real really ok okay hey hi hello also mine yes yeah'.split(
    ' ',
  ),
);
