import type { Product, ShopData } from './data.ts';

/** Sort orders of listing pages, in the order the sort select shows them. */
export const SHOP_SORTS = [
  { id: 'featured', label: 'Featured' },
  { id: 'price-asc', label: 'Price: low to high' },
  { id: 'price-desc', label: 'Price: high to low' },
  { id: 'rating', label: 'Customer rating' },
  { id: 'newest', label: 'Newest arrivals' },
] as const;
export type ShopSort = (typeof SHOP_SORTS)[number]['id'];

/** Minimum-rating filter choices. */
export const RATING_FILTERS = [
  { value: '', label: 'Any rating' },
  { value: '4.5', label: '4.5 stars & up' },
  { value: '4', label: '4 stars & up' },
  { value: '3', label: '3 stars & up' },
] as const;

export interface ListingQuery {
  q?: string;
  category?: string;
  brands?: string[];
  minPrice?: number;
  maxPrice?: number;
  minRating?: number;
  inStockOnly?: boolean;
  sort?: ShopSort;
}

export const PAGE_SIZE = 12;

function tokens(s: string): string[] {
  return s
    .toLowerCase()
    .replace(/&/g, ' ')
    .split(/[^a-z0-9.]+/)
    .filter((t) => t.length > 0);
}

/** Relevance of a product to a free-text query: share of query words found in its name, brand or category. */
export function relevance(p: Product, q: string, categoryName: string): number {
  const qt = tokens(q);
  if (qt.length === 0) return 1;
  const hay = new Set(tokens(`${p.name} ${categoryName}`));
  const hayStr = tokens(`${p.name} ${categoryName}`).join(' ');
  let hit = 0;
  for (const t of qt) {
    if (hay.has(t)) hit += 1;
    else if (t.length >= 3 && hayStr.includes(t)) hit += 0.6;
  }
  return hit / qt.length;
}

/** The products a listing shows, filtered and sorted; search keeps products matching most query words. */
export function listProducts(data: ShopData, query: ListingQuery): Product[] {
  const catName = new Map(data.categories.map((c) => [c.id, c.name]));
  let items = data.products.filter((p) => {
    if (query.category && p.category !== query.category) return false;
    if (query.brands?.length && !query.brands.includes(p.brand)) return false;
    if (query.minPrice !== undefined && p.price < query.minPrice) return false;
    if (query.maxPrice !== undefined && p.price > query.maxPrice) return false;
    if (query.minRating !== undefined && p.rating < query.minRating) return false;
    if (query.inStockOnly && !p.inStock) return false;
    return true;
  });
  const scores = new Map<string, number>();
  if (query.q) {
    for (const p of items) scores.set(p.id, relevance(p, query.q, catName.get(p.category) ?? ''));
    items = items.filter((p) => (scores.get(p.id) ?? 0) >= 0.75);
  }
  const sort = query.sort ?? 'featured';
  const byName = (a: Product, b: Product) => a.name.localeCompare(b.name);
  const cmp: Record<ShopSort, (a: Product, b: Product) => number> = {
    featured: (a, b) =>
      (scores.get(b.id) ?? 0) - (scores.get(a.id) ?? 0) || b.reviewCount - a.reviewCount || byName(a, b),
    'price-asc': (a, b) => a.price - b.price || byName(a, b),
    'price-desc': (a, b) => b.price - a.price || byName(a, b),
    rating: (a, b) => b.rating - a.rating || b.reviewCount - a.reviewCount || byName(a, b),
    newest: (a, b) => b.added.localeCompare(a.added) || byName(a, b),
  };
  return items.slice().sort(cmp[sort]);
}

/** Autocomplete suggestions for the search box: products whose name has a word starting with each query word. */
export function suggest(data: ShopData, q: string, limit = 8): Array<{ label: string; value: string }> {
  const qt = tokens(q);
  if (qt.length === 0) return [];
  const out: Array<{ label: string; value: string }> = [];
  for (const p of data.products) {
    const words = tokens(p.name);
    if (qt.every((t) => words.some((w) => w.startsWith(t)))) out.push({ label: p.name, value: p.id });
  }
  out.sort((a, b) => a.label.length - b.label.length || a.label.localeCompare(b.label));
  return out.slice(0, limit);
}

export function brandsOf(data: ShopData, category?: string): string[] {
  return [
    ...new Set(data.products.filter((p) => !category || p.category === category).map((p) => p.brand)),
  ].sort();
}
