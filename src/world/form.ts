import type { SiteRequest } from './site.ts';

/** Reading request values the same way in every site: trimmed strings, first of repeated keys. */

/** A form field (POST body) as a trimmed string; '' when absent. */
export function formField(req: SiteRequest, key: string): string {
  const v = req.form[key];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).toString().trim();
}

/** Every value of a repeated form field (checkbox groups). */
export function formFields(req: SiteRequest, key: string): string[] {
  const v = req.form[key];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => String(x).trim()).filter((x) => x.length > 0);
}

/** A query parameter as a trimmed string; '' when absent. */
export function queryParam(req: SiteRequest, key: string): string {
  return (req.query.get(key) ?? '').trim();
}

/** A query parameter as a number, or undefined when absent or not a number. */
export function queryNumber(req: SiteRequest, key: string): number | undefined {
  const raw = queryParam(req, key);
  if (raw === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** Builds a query string from defined, non-empty values (for links that keep the current filters). */
export function queryString(
  params: Record<string, string | number | boolean | undefined | null | string[]>,
): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v)) for (const x of v) sp.append(k, x);
    else sp.set(k, v === true ? '1' : String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

/** 1-based page number from `?page=`, clamped to [1, total]. */
export function pageParam(req: SiteRequest, total: number): number {
  const n = Math.floor(queryNumber(req, 'page') ?? 1);
  return Math.min(Math.max(1, n), Math.max(1, total));
}
