import type { TaskTemplate } from '../../site.ts';
import type { RecipesData } from './data.ts';
import type { RecipesState } from './state.ts';
import { quickestSave, saveToCollection, scaledShopping, shoppingList } from './templates-actions.ts';
import {
  calories,
  ovenTemp,
  scaledAmount,
  topRatedFiltered,
  totalTime,
  whichIngredient,
} from './templates-info.ts';

/** The recipes site's task templates: six information tasks and four that change state. */
export const RECIPES_TEMPLATES: TaskTemplate<any, RecipesState, RecipesData>[] = [
  totalTime,
  scaledAmount,
  whichIngredient,
  topRatedFiltered,
  ovenTemp,
  calories,
  saveToCollection,
  shoppingList,
  quickestSave,
  scaledShopping,
];
