import type { Rng } from '../../../core/rng.ts';
import type { Site, SiteFactory } from '../../site.ts';
import { buildRecipesData, type RecipesData } from './data.ts';
import { handleRecipes } from './handler.ts';
import { RECIPES_BRAND } from './layout.ts';
import { recipesRawQueries } from './queries.ts';
import { initialRecipesState, type RecipesState } from './state.ts';
import { RECIPES_TEMPLATES } from './templates.ts';

/** The recipes site (`/recipes/`): search, filters, recipe tabs, servings scaler, collections, shopping list. */
export const createRecipesSite: SiteFactory = (seed: number): Site<RecipesState, RecipesData> => {
  const data = buildRecipesData(seed);
  return {
    id: 'recipes',
    title: RECIPES_BRAND,
    data,
    initialState: initialRecipesState,
    handle: (req, state) => handleRecipes(req, state, data),
    templates: RECIPES_TEMPLATES,
    rawQueries: (rng: Rng) => recipesRawQueries(rng, data),
  };
};

export type { RecipesData, RecipesState };
