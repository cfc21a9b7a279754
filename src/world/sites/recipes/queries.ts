import type { Rng } from '../../../core/rng.ts';
import type { RawQuery } from '../../site.ts';
import { messy } from '../messy.ts';
import type { RecipesData } from './data.ts';

/**
 * About 260 messy home-cook queries, each grounded in a recipes template and its parameter
 * values so the offline rewriter can make a precise task of it.
 */
export function recipesRawQueries(rng: Rng, data: RecipesData): RawQuery[] {
  const out: RawQuery[] = [];
  const add = (text: string, template: string, params: Record<string, unknown>) =>
    out.push({ site: 'recipes', text: messy(rng, text), grounding: { template, params } });
  const recipes = rng.shuffle(data.recipes);
  for (const r of recipes.slice(0, 40))
    add(rng.pick([`how long does ${r.name} take`, `${r.name} total time?`]), 'recipes.total-time', {
      recipeId: r.id,
    });
  for (const r of recipes.slice(40, 80)) {
    const ing = rng.pick(r.ingredients);
    add(
      rng.pick([
        `how much ${ing.name} for ${r.name} for 8 people`,
        `${r.name} double recipe ${ing.name} amount`,
      ]),
      'recipes.scaled-amount',
      { recipeId: r.id, ingredient: ing.name },
    );
  }
  for (const r of recipes.slice(80, 110))
    add(
      rng.pick([`does ${r.name} have ${r.ingredients[1].name}`, `what goes in ${r.name}`]),
      'recipes.which-ingredient',
      { recipeId: r.id },
    );
  for (const c of data.cuisines) {
    for (const diet of ['vegetarian', 'vegan', 'gluten free']) {
      add(
        rng.pick([
          `best ${diet} ${c.name.toLowerCase()} recipe under 30 min`,
          `top rated ${diet} ${c.name.toLowerCase()} quick dinner`,
        ]),
        'recipes.top-rated-filtered',
        { cuisine: c.id, diet: diet.replace(' ', '-') },
      );
      add(
        rng.pick([
          `fastest ${diet} ${c.name.toLowerCase()} dish with good reviews`,
          `quick ${c.name.toLowerCase()} ${diet} save for later`,
        ]),
        'recipes.quickest-save',
        { cuisine: c.id, diet: diet.replace(' ', '-') },
      );
    }
  }
  for (const r of recipes.slice(110, 140).filter((x) => x.ovenTemp))
    add(rng.pick([`oven temp for ${r.name}`, `what temp to bake ${r.name}`]), 'recipes.oven-temp', {
      recipeId: r.id,
    });
  for (const r of recipes.slice(140, 170))
    add(rng.pick([`calories in ${r.name}`, `is ${r.name} healthy`]), 'recipes.calories', { recipeId: r.id });
  for (const r of recipes.slice(170, 200))
    add(rng.pick([`save ${r.name}`, `bookmark ${r.name} for weeknights`]), 'recipes.save-to-collection', {
      recipeId: r.id,
    });
  for (const r of recipes.slice(200, 230))
    add(
      rng.pick([`shopping list for ${r.name}`, `what do i need to buy for ${r.name}`]),
      'recipes.shopping-list',
      { recipeId: r.id },
    );
  for (const r of recipes.slice(230, 250))
    add(`${r.name} for a crowd add to list`, 'recipes.scaled-shopping', { recipeId: r.id });
  return out;
}
