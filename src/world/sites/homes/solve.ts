import type { SolverDriver } from '../../site.ts';
import { dismissOverlays } from '../../solver-steps.ts';
import { CITIES, type Listing } from './data.ts';
import { priceLabel } from './pages-search.ts';
import { SORTS } from './search.ts';

/** Reference-solver steps shared by the listings templates. */

export interface FilterChoice {
  city?: string;
  hood?: string;
  beds?: string;
  type?: string;
  feature?: string;
  /** Max price (one of PRICE_STEPS). */
  max?: number;
  sort?: string;
}

/** Actions `applyFilters` takes for a choice (one per select, plus Apply). */
export function filterCost(f: FilterChoice): number {
  return (
    [f.city, f.max, f.beds, f.type, f.feature, f.sort && f.sort !== 'newest' ? f.sort : undefined].filter(
      Boolean,
    ).length + 1
  );
}

/** Sets the search filters on /search and applies them. */
export async function applyFilters(d: SolverDriver, f: FilterChoice): Promise<void> {
  if (f.city) {
    const c = CITIES.find((x) => x.name === f.city)!;
    await d.select({ name: 'Location', tag: 'select' }, `${c.name}, ${c.state}`);
  }
  if (f.max) await d.select({ name: 'Max price', tag: 'select' }, priceLabel(f.max));
  if (f.beds) await d.select({ name: 'Bedrooms', tag: 'select' }, f.beds);
  if (f.type) await d.select({ name: 'Home type', tag: 'select' }, f.type);
  if (f.feature) await d.select({ name: 'Must have', tag: 'select' }, f.feature);
  if (f.sort && f.sort !== 'newest')
    await d.select({ name: 'Sort by', tag: 'select' }, SORTS.find((s) => s.value === f.sort)!.label);
  await d.click({ name: 'Apply filters', tag: 'button' });
}

/** Accepts the cookie banner (when showing). */
export async function acceptCookies(d: SolverDriver): Promise<void> {
  await dismissOverlays(d);
}

const listingLink = (id: string) => (e: { tag: string; attributes: Record<string, string> }) =>
  e.tag === 'a' && (e.attributes.href ?? '').split('?')[0].endsWith(`/home/${id}`);

/** Finds a listing by its street with the keyword box and opens it (three actions). */
export async function openListing(d: SolverDriver, l: Listing): Promise<void> {
  await d.input({ name: 'Address, street or ZIP', tag: 'input' }, l.street);
  await d.click({ name: 'Apply filters', tag: 'button' });
  await d.click(listingLink(l.id));
}

export async function openResult(d: SolverDriver, id: string): Promise<void> {
  await d.click(listingLink(id));
}
