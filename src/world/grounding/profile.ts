import { Rng } from '../../core/rng.ts';
import { normalizeText, numbersIn } from '../match.ts';
import type { Site, TaskDraft, TaskTemplate } from '../site.ts';
import { contentTokens, dateSurfaces, parseDateValue, stem } from './tokens.ts';

/**
 * What the offline rewriter knows about a template: candidate parameter sets (its whole pool, or
 * drafts sampled from its generator), and for every parameter path its kind, its domain, how each
 * value is written (catalog records behind ids), and whether objectives mention it at all.
 */

export type Leaf = string | number | boolean | null;
export type Flat = Record<string, Leaf | Leaf[]>;
export type KeyKind = 'entity' | 'number' | 'date' | 'text' | 'bool' | 'list' | 'opaque';

/** Nested params as path -> leaf ("item.productId"); arrays of primitives stay one leaf. */
export function flatten(v: unknown, prefix = '', out: Flat = {}): Flat {
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) out[prefix] = v as Leaf[];
  else if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) flatten(x, prefix ? `${prefix}.${i}` : String(i), out);
  } else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  else out[prefix] = v as Leaf;
  return out;
}

export interface Candidate {
  params: Record<string, unknown>;
  flat: Flat;
  /** Present for sampled drafts; pool templates word candidates with draftFor. */
  draft?: TaskDraft<unknown>;
}

export interface KeyProfile {
  path: string;
  kind: KeyKind;
  visible: boolean;
  /** Distinct values, as JSON strings (the domain). */
  values: string[];
  /** Content tokens per value (entity: its catalog record; text: the value itself). */
  tokens: string[][];
  /** Token -> value indexes, and inverse document frequency over the domain. */
  postings: Map<string, number[]>;
  idf: Map<string, number>;
  /** Numbers and dates: words around the value in objectives. */
  context: Map<string, number>;
  /** Mean relative position of the value in objectives (orders same-kind keys). */
  position: number;
  /** Booleans: words that appear when the value is true (or false). */
  markers: { true: string[]; false: string[] };
  /** Entities: the catalog record behind each value. */
  records: Map<string, RecordRef> | null;
}

export interface TemplateProfile {
  site: Site;
  template: TaskTemplate;
  candidates: Candidate[];
  keys: KeyProfile[];
  /** Characteristic words of the template's objectives (document frequency over samples). */
  vocab: Map<string, number>;
}

const PRIMARY =
  /^(name|title|subject|fullName|about|label|street|address|model|company|item|first|last|product|city)$/;
const SKIP = /^(description|body|preview|history|url|href|image|notes?|text|instructions|steps|reviews?)$/i;

export type RecordRef = Record<string, unknown>;

/** Every array of plain objects in the site data (catalog collections), by path. */
function collections(data: unknown): RecordRef[][] {
  const out: RecordRef[][] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 4 || v === null || typeof v !== 'object' || v instanceof Map || v instanceof Set) return;
    if (Array.isArray(v)) {
      if (v.length && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)))
        out.push(v as RecordRef[]);
      return;
    }
    for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(data, 0);
  return out;
}

/** Strings of a record worth matching, primary ones (names, subjects) first. */
export function recordStrings(rec: RecordRef, depth = 0): { primary: string[]; all: string[] } {
  const primary: string[] = [];
  const all: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    if (SKIP.test(k)) continue;
    if (typeof v === 'string' && v.length >= 2 && v.length <= 100) {
      const s = k === 'id' || k.endsWith('Id') ? (v.includes('-') ? v.replace(/-/g, ' ') : '') : v;
      if (!s) continue;
      all.push(s);
      if (PRIMARY.test(k)) primary.push(s);
    } else if (depth < 2 && v && typeof v === 'object' && !Array.isArray(v)) {
      const sub = recordStrings(v as RecordRef, depth + 1);
      all.push(...sub.all);
      primary.push(...sub.primary.filter((_, i) => i < 2));
    } else if (Array.isArray(v) && v.length <= 6 && v.every((x) => typeof x === 'string' && x.length <= 40)) {
      all.push(...(v as string[]));
    }
  }
  return { primary: primary.length ? primary : all.slice(0, 4), all };
}

interface FieldMap {
  map: Map<string, RecordRef>;
}

const FIELD_MAPS = new WeakMap<object, FieldMap[]>();

/**
 * Every catalog field that can name an entity, built once per site: top-level fields whose values
 * identify their record (ids, emails), and fields of nested objects (a message's sender), which
 * may repeat since the nested object itself is the entity.
 */
function fieldMaps(data: unknown): FieldMap[] {
  if (data === null || typeof data !== 'object') return [];
  const cached = FIELD_MAPS.get(data);
  if (cached) return cached;
  const out: FieldMap[] = [];
  for (const coll of collections(data)) {
    const sample = coll.slice(0, 5);
    const fields = new Set(
      sample.flatMap((r) =>
        Object.entries(r)
          .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
          .map(([k]) => k),
      ),
    );
    const nested = new Set(
      sample.flatMap((r) =>
        Object.entries(r)
          .filter(([, v]) => v && typeof v === 'object' && !Array.isArray(v))
          .map(([k]) => k),
      ),
    );
    const add = (get: (r: RecordRef) => unknown, recOf: (r: RecordRef) => RecordRef, unique: boolean) => {
      const map = new Map<string, RecordRef>();
      let present = 0;
      for (const r of coll) {
        const v = get(r);
        if (typeof v !== 'string' && typeof v !== 'number') continue;
        present++;
        if (!map.has(String(v))) map.set(String(v), recOf(r));
      }
      if (map.size && (!unique || map.size >= present * 0.95)) out.push({ map });
    };
    for (const f of fields)
      add(
        (r) => r[f],
        (r) => r,
        true,
      );
    for (const n of nested) {
      const sub = coll.find((r) => r[n] && typeof r[n] === 'object')?.[n] as RecordRef | undefined;
      for (const f of Object.keys(sub ?? {}))
        add(
          (r) => (r[n] as RecordRef | undefined)?.[f],
          (r) => r[n] as RecordRef,
          false,
        );
    }
  }
  FIELD_MAPS.set(data, out);
  return out;
}

/** Finds the catalog field whose values cover the sampled values of a key (ids, emails, codes). */
function entityRecords(values: string[], maps: FieldMap[]): Map<string, RecordRef> | null {
  const real = values.filter((v) => v !== '');
  if (!real.length) return null;
  let best: { map: Map<string, RecordRef>; hits: number } | null = null;
  for (const { map } of maps) {
    const hits = real.filter((v) => map.has(v)).length;
    if (hits / real.length >= 0.9 && (!best || hits > best.hits)) best = { map, hits };
  }
  return best?.map ?? null;
}

function tokensOf(s: string): string[] {
  return [...new Set(contentTokens(s).map(stem))];
}

const DATE_OR_PHONE = /^(\d{1,2}\/\d{1,2}\/\d{4}|\d{4}-\d{2}-\d{2}(T.*)?|\(?\d{3}\)?[ .-]?\d{3}-\d{4})$/;

/** Record words; the short numbers inside dates and phone numbers ("09", "26") only add noise. */
function recordTokens(strings: string[]): string[] {
  return [
    ...new Set(
      strings.flatMap((x) =>
        DATE_OR_PHONE.test(x.trim()) ? tokensOf(x).filter((t) => !/^\d{1,2}$/.test(t)) : tokensOf(x),
      ),
    ),
  ];
}

function indexTokens(tokens: string[][]): { postings: Map<string, number[]>; idf: Map<string, number> } {
  const postings = new Map<string, number[]>();
  tokens.forEach((ts, i) => {
    for (const t of ts) postings.set(t, [...(postings.get(t) ?? []), i]);
  });
  const idf = new Map<string, number>();
  for (const [t, ps] of postings) idf.set(t, Math.log(1 + tokens.length / ps.length));
  return { postings, idf };
}

const norm = (s: string) => ` ${normalizeText(s)} `;

/** Samples drafts from a template's generator (templates without a pool). */
function sampleDrafts(t: TaskTemplate, data: unknown, seed: number, perSplit: number): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const split of ['train', 'test'] as const) {
    const rng = new Rng(`${seed}:rewriter:${t.id}:${split}`);
    let dupes = 0;
    for (let i = 0; i < perSplit && dupes < 80; i++) {
      const d = t.generate({ rng, split, data, index: i });
      if (!d) break;
      const key = JSON.stringify(d.params);
      if (seen.has(key)) {
        dupes++;
        continue;
      }
      dupes = 0;
      seen.add(key);
      const params = d.params as Record<string, unknown>;
      out.push({ params, flat: flatten(params), draft: d });
    }
  }
  return out;
}

function kindOf(values: Array<Leaf | Leaf[]>, records: Map<string, RecordRef> | null): KeyKind {
  const v = values.find((x) => x !== null && x !== '');
  if (v === undefined) return 'text';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (parseDateValue(v)) return 'date';
  if (records) return 'entity';
  return 'text';
}

/** Builds the profile of one template (deterministic for a world seed). */
export function profileTemplate(site: Site, t: TaskTemplate, seed: number): TemplateProfile {
  const pool = t.pool?.(site.data);
  const candidates: Candidate[] = pool
    ? pool.map((p) => ({ params: p as Record<string, unknown>, flat: flatten(p) }))
    : sampleDrafts(t, site.data, seed, 250);
  // Objectives to learn from: pool templates word a spread of their pool.
  const wordedAll =
    candidates.length <= 240
      ? candidates
      : new Rng(`${seed}:rewriter:${t.id}:spread`).shuffle(candidates).slice(0, 240);
  const worded: Array<{ c: Candidate; objective: string }> = [];
  for (const c of wordedAll) {
    const d = c.draft ?? t.draftFor?.(c.params, site.data);
    if (d) worded.push({ c, objective: d.objective });
  }
  const maps = fieldMaps(site.data);
  const paths = [...new Set(candidates.flatMap((c) => Object.keys(c.flat)))];
  const keys: KeyProfile[] = paths.map((path) => {
    const raw = candidates.map((c) => c.flat[path]).filter((v) => v !== undefined) as Array<Leaf | Leaf[]>;
    let values = [...new Set(raw.map((v) => JSON.stringify(v)))];
    const strings = values
      .map((v) => JSON.parse(v))
      .filter((v) => typeof v === 'string' || typeof v === 'number')
      .map(String);
    const records =
      typeof raw.find((x) => x !== '' && x !== null) === 'string' ? entityRecords(strings, maps) : null;
    const kind = kindOf(raw, records);
    // A sampled template saw only part of the catalog: any record of the same collection may be meant.
    if (kind === 'entity' && !pool)
      values = [...new Set([...values, ...[...records!.keys()].map((v) => JSON.stringify(v))])];
    const tokens = values.map((vs) => {
      const v = JSON.parse(vs);
      if (kind === 'entity') {
        const rec = records!.get(String(v));
        return rec ? recordTokens(recordStrings(rec).all) : tokensOf(String(v));
      }
      if (kind === 'list') return tokensOf((v as Leaf[]).join(' '));
      if (kind === 'text') return tokensOf(String(v));
      return [];
    });
    const { postings, idf } = indexTokens(tokens);
    const surfaces = (v: Leaf | Leaf[]): string[] => {
      if (kind === 'entity') {
        const rec = records!.get(String(v));
        return rec ? recordStrings(rec).primary : [];
      }
      if (kind === 'date') return dateSurfaces(parseDateValue(v)!);
      if (kind === 'list') return (v as Leaf[]).map(String);
      return v === '' || v === null ? [] : [String(v)];
    };
    let shown = 0;
    let counted = 0;
    let posSum = 0;
    const context = new Map<string, number>();
    const markers = { true: [] as string[], false: [] as string[] };
    for (const { c, objective } of worded) {
      const v = c.flat[path];
      if (v === undefined || kind === 'bool' || kind === 'opaque') continue;
      const o = norm(objective);
      let at = -1;
      if (kind === 'number') {
        if (v === 0) continue;
        if (!numbersIn(objective).some((n) => Math.abs(n - Number(v)) < 1e-9)) {
          counted++;
          continue;
        }
        const m = new RegExp(`(^|[^\\d.])${String(v).replace('.', '\\.')}(?![\\d])`).exec(
          objective.replace(/(\d),(?=\d{3})/g, '$1'),
        );
        at = m ? m.index / objective.length : 0.5;
        if (m) {
          const s = objective.replace(/(\d),(?=\d{3})/g, '$1');
          const before = contentTokens(s.slice(Math.max(0, m.index - 24), m.index)).slice(-1);
          const after = contentTokens(s.slice(m.index + m[0].length, m.index + m[0].length + 24)).slice(0, 1);
          for (const w of [...before, ...after].map(stem)) context.set(w, (context.get(w) ?? 0) + 1);
        }
        shown++;
        counted++;
        posSum += at;
        continue;
      }
      if (kind === 'entity') {
        // Visible when the objective singles the record out (a hotel named only by its city is an answer, not an input).
        const i = values.indexOf(JSON.stringify(v));
        if (i < 0 || v === '') continue;
        counted++;
        const words = new Set(contentTokens(objective).map(stem));
        const score = (j: number) =>
          tokens[j].reduce((a, t) => a + (words.has(t) ? (idf.get(t) ?? 0) : 0), 0);
        const mine = score(i);
        const beats = (j: number) =>
          j !== i &&
          (score(j) > mine + 1e-9 ||
            (Math.abs(score(j) - mine) < 1e-9 && tokens[j].length <= tokens[i].length));
        if (mine > 0 && !tokens.some((_, j) => beats(j))) {
          shown++;
          const hit = surfaces(v)
            .map((x) => o.indexOf(norm(x)))
            .find((x) => x >= 0);
          posSum += hit !== undefined ? hit / o.length : 0.5;
        }
        continue;
      }
      const surf = surfaces(v).filter((s) => normalizeText(s).length >= 1);
      if (!surf.length) continue;
      counted++;
      const hit = surf.map((s) => o.indexOf(norm(s))).find((i) => i >= 0);
      if (hit !== undefined) {
        shown++;
        posSum += hit / o.length;
      } else if (kind === 'text' || kind === 'list') {
        // "12 months" is stated as "12-month": every word of the value is there.
        const words = new Set(contentTokens(objective).map(stem));
        if (surf.every((x) => tokensOf(x).every((t) => words.has(t)))) {
          shown++;
          posSum += 0.5;
        }
      }
    }
    if (kind === 'bool') {
      const withV = (b: boolean) =>
        worded.filter((w) => w.c.flat[path] === b).map((w) => new Set(contentTokens(w.objective).map(stem)));
      const [ts, fs] = [withV(true), withV(false)];
      const df = (sets: Set<string>[], tok: string) =>
        sets.length ? sets.filter((s) => s.has(tok)).length / sets.length : 0;
      const vocab = new Set([...ts, ...fs].flatMap((s) => [...s]));
      for (const tok of vocab) {
        if (df(ts, tok) >= 0.5 && df(fs, tok) <= 0.1) markers.true.push(tok);
        if (df(fs, tok) >= 0.5 && df(ts, tok) <= 0.1) markers.false.push(tok);
      }
    }
    const visible =
      kind === 'bool'
        ? markers.true.length + markers.false.length > 0
        : counted > 0 && shown / counted >= 0.5;
    return {
      path,
      kind,
      visible,
      values,
      tokens,
      postings,
      idf,
      context,
      position: shown ? posSum / shown : 1,
      markers,
      records,
    };
  });
  // Characteristic words: frequent in the objectives once the sample's own text values ("Work",
  // a reply line) are taken out, so a label name does not read as the intent of the template.
  const textKeys = keys.filter((k) => k.visible && (k.kind === 'text' || k.kind === 'list'));
  const vocab = new Map<string, number>();
  for (const w of worded) {
    const own = new Set(
      textKeys.flatMap((k) => (w.c.flat[k.path] === undefined ? [] : tokensOf(String(w.c.flat[k.path])))),
    );
    for (const tok of new Set(contentTokens(w.objective).map(stem)))
      if (!own.has(tok)) vocab.set(tok, (vocab.get(tok) ?? 0) + 1 / worded.length);
  }
  for (const [tok, df] of vocab) if (df < 0.15) vocab.delete(tok);
  // The description names the intent in other words ("mark as read", "archive"): a small boost.
  for (const tok of new Set(contentTokens(t.description).map(stem)))
    vocab.set(tok, Math.min(1, (vocab.get(tok) ?? 0) + 0.2));
  return { site, template: t, candidates, keys, vocab };
}
