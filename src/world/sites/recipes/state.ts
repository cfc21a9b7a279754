/** One line of the shopping list: an ingredient of a recipe at the servings it was added for. */
export interface ListItem {
  recipeId: string;
  ingredient: string;
  /** Quantity at `servings`, in the ingredient's unit. */
  qty: number;
  servings: number;
  text: string;
}

/** A session's recipe-site state: saved collections and the shopping list. */
export interface RecipesState {
  /** Collection name -> recipe ids, in the order they were saved. */
  collections: Record<string, string[]>;
  shoppingList: ListItem[];
  newsletter: string | null;
}

/** Collections every account starts with (empty). */
export const DEFAULT_COLLECTIONS = ['Favorites', 'Weeknight dinners', 'Meal prep'];

export function initialRecipesState(): RecipesState {
  return {
    collections: Object.fromEntries(DEFAULT_COLLECTIONS.map((c) => [c, []])),
    shoppingList: [],
    newsletter: null,
  };
}

/** Finds a collection by name, ignoring case and spacing. */
export function findCollection(state: RecipesState, name: string): string | undefined {
  const n = name.trim().toLowerCase().replace(/\s+/g, ' ');
  return Object.keys(state.collections).find((c) => c.toLowerCase() === n);
}
