import { addressLine, HOME_TYPES, type HomesData, type Listing } from './data.ts';

/** The listing search: filters with exact ("2") and minimum ("2+") bedroom counts, and sorts. */

export const BED_OPTIONS = [
  { value: '', label: 'Any' },
  { value: '0', label: 'Studio' },
  { value: '1', label: '1' },
  { value: '1+', label: '1+' },
  { value: '2', label: '2' },
  { value: '2+', label: '2+' },
  { value: '3', label: '3' },
  { value: '3+', label: '3+' },
  { value: '4', label: '4' },
  { value: '4+', label: '4+' },
  { value: '5+', label: '5+' },
];
export const BATH_OPTIONS = ['', '1+', '1.5+', '2+', '3+'];
export const PRICE_STEPS = [
  100_000, 150_000, 200_000, 250_000, 300_000, 350_000, 400_000, 450_000, 500_000, 600_000, 700_000, 800_000,
  1_000_000, 1_500_000, 2_000_000,
];
export const SORTS = [
  { value: 'newest', label: 'Newest' },
  { value: 'price-asc', label: 'Price (low to high)' },
  { value: 'price-desc', label: 'Price (high to low)' },
  { value: 'sqft', label: 'Square feet (largest first)' },
  { value: 'beds', label: 'Bedrooms (most first)' },
];

export interface SearchParams {
  city: string;
  hood: string;
  q: string;
  minPrice: number | null;
  maxPrice: number | null;
  beds: string;
  baths: string;
  type: string;
  feature: string;
  sort: string;
}

function num(v: string | null): number | null {
  if (!v) return null;
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : null;
}

export function parseSearch(q: URLSearchParams): SearchParams {
  const beds = q.get('beds') ?? '';
  const baths = q.get('baths') ?? '';
  const type = q.get('type') ?? '';
  const sort = q.get('sort') ?? 'newest';
  return {
    city: q.get('city') ?? '',
    hood: q.get('hood') ?? '',
    q: (q.get('q') ?? '').trim(),
    minPrice: num(q.get('min')),
    maxPrice: num(q.get('max')),
    beds: BED_OPTIONS.some((b) => b.value === beds) ? beds : '',
    baths: BATH_OPTIONS.includes(baths) ? baths : '',
    type: (HOME_TYPES as readonly string[]).includes(type) ? type : '',
    feature: q.get('feature') ?? '',
    sort: SORTS.some((s) => s.value === sort) ? sort : 'newest',
  };
}

/** Query string of a search (for pagination and filter links). */
export function searchQuery(p: SearchParams, page?: number): string {
  const sp = new URLSearchParams();
  const put = (k: string, v: string | number | null) => {
    if (v !== null && v !== '') sp.set(k, String(v));
  };
  put('city', p.city);
  put('hood', p.hood);
  put('q', p.q);
  put('min', p.minPrice);
  put('max', p.maxPrice);
  put('beds', p.beds);
  put('baths', p.baths);
  put('type', p.type);
  put('feature', p.feature);
  if (p.sort !== 'newest') put('sort', p.sort);
  if (page && page > 1) put('page', page);
  const s = sp.toString();
  return s ? `?${s}` : '';
}

/** Whether a listing passes the bedroom filter: "2" is exactly two, "2+" two or more. */
export function bedsMatch(beds: number, filter: string): boolean {
  if (!filter) return true;
  if (filter.endsWith('+')) return beds >= Number(filter.slice(0, -1));
  return beds === Number(filter);
}

function keywordHay(l: Listing): string {
  return `${addressLine(l)} ${l.city} ${l.state} ${l.zip} ${l.neighborhood}`.toLowerCase();
}

const SORTERS: Record<string, (a: Listing, b: Listing) => number> = {
  newest: (a, b) => (a.listed === b.listed ? a.id.localeCompare(b.id) : a.listed < b.listed ? 1 : -1),
  'price-asc': (a, b) => a.price - b.price || a.id.localeCompare(b.id),
  'price-desc': (a, b) => b.price - a.price || a.id.localeCompare(b.id),
  sqft: (a, b) => b.sqft - a.sqft || a.id.localeCompare(b.id),
  beds: (a, b) => b.beds - a.beds || a.price - b.price,
};

/** Runs a search over the listings. */
export function runSearch(data: HomesData, p: SearchParams): Listing[] {
  const words = p.q.toLowerCase().replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  return data.listings
    .filter((l) => !p.city || l.city === p.city)
    .filter((l) => !p.hood || l.neighborhood === p.hood)
    .filter((l) => p.minPrice === null || l.price >= p.minPrice)
    .filter((l) => p.maxPrice === null || l.price <= p.maxPrice)
    .filter((l) => bedsMatch(l.beds, p.beds))
    .filter((l) => !p.baths || l.baths >= Number(p.baths.slice(0, -1)))
    .filter((l) => !p.type || l.type === p.type)
    .filter((l) => !p.feature || l.features.includes(p.feature))
    .filter((l) => words.every((w) => keywordHay(l).includes(w)))
    .sort(SORTERS[p.sort]);
}

/** Monthly principal and interest, rounded to whole dollars. */
export function monthlyPayment(price: number, downPct: number, ratePct: number, years: number): number {
  const principal = price * (1 - downPct / 100);
  const r = ratePct / 100 / 12;
  const n = years * 12;
  const m = r === 0 ? principal / n : (principal * r) / (1 - (1 + r) ** -n);
  return Math.round(m);
}
