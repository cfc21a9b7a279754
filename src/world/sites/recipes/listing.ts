import type { Diet, Recipe, RecipesData } from './data.ts';

export const RECIPE_SORTS = [
  { id: 'relevance', label: 'Best match' },
  { id: 'rating', label: 'Top rated' },
  { id: 'quickest', label: 'Quickest' },
  { id: 'newest', label: 'Newest' },
  { id: 'reviews', label: 'Most reviewed' },
] as const;
export type RecipeSort = (typeof RECIPE_SORTS)[number]['id'];

export const TIME_LIMITS = [15, 20, 30, 45, 60, 90];

export interface RecipeQuery {
  q?: string;
  cuisine?: string;
  diets?: Diet[];
  maxTime?: number;
  minRating?: number;
  sort?: RecipeSort;
}

export const RECIPE_PAGE_SIZE = 12;

function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .filter(Boolean);
}

/** Matching recipes: every query word must appear in the name, cuisine or an ingredient. */
export function searchRecipes(data: RecipesData, q: RecipeQuery): Recipe[] {
  const qw = words(q.q ?? '');
  const score = new Map<string, number>();
  const items = data.recipes.filter((r) => {
    if (q.cuisine && r.cuisine !== q.cuisine) return false;
    if (q.diets?.some((d) => !r.diets.includes(d))) return false;
    if (q.maxTime !== undefined && r.totalMin > q.maxTime) return false;
    if (q.minRating !== undefined && r.rating < q.minRating) return false;
    if (!qw.length) return true;
    const name = words(r.name);
    const hay = new Set([...name, ...words(r.cuisine), ...r.ingredients.flatMap((i) => words(i.name))]);
    if (!qw.every((w) => hay.has(w) || [...hay].some((h) => h.startsWith(w) && w.length >= 3))) return false;
    score.set(r.id, qw.filter((w) => name.includes(w)).length * 10 - name.length);
    return true;
  });
  const cmp: Record<RecipeSort, (a: Recipe, b: Recipe) => number> = {
    relevance: (a, b) => (score.get(b.id) ?? 0) - (score.get(a.id) ?? 0) || b.reviewCount - a.reviewCount,
    rating: (a, b) => b.rating - a.rating || b.reviewCount - a.reviewCount,
    quickest: (a, b) => a.totalMin - b.totalMin || b.rating - a.rating,
    newest: (a, b) => b.published.localeCompare(a.published),
    reviews: (a, b) => b.reviewCount - a.reviewCount,
  };
  return items.sort(cmp[q.sort ?? 'relevance']);
}
