import { cond } from '../../match.ts';
import type { Condition, SolverDriver, TaskTemplate } from '../../site.ts';
import { dismissOverlays } from '../../solver-steps.ts';
import { inSplit } from '../../split.ts';
import { memoByData } from '../memo.ts';
import { cuisineName, type Diet, lookalikesOf, MEASURES, type RecipesData } from './data.ts';
import { searchRecipes } from './listing.ts';
import { RATING_CHOICES } from './pages.ts';
import { DEFAULT_COLLECTIONS, findCollection, type RecipesState } from './state.ts';
import { drawRecipe, niceServings, openRecipe } from './templates-info.ts';

type RecipeTemplate<P> = TaskTemplate<P, RecipesState, RecipesData>;

const NEW_COLLECTIONS = [
  'Date night',
  'Sunday batch cooking',
  'Summer grilling',
  'Holiday dinners',
  'Kids favorites',
  'Lunchbox ideas',
  'Meatless Mondays',
  'Quick curries',
  'Company dinners',
  'Spicy stuff',
];

function saveConditions(
  state: RecipesState,
  data: RecipesData,
  recipeId: string,
  collection: string,
): Condition[] {
  const name = findCollection(state, collection);
  const ids = name ? state.collections[name] : [];
  const twins = lookalikesOf(data, data.byId.get(recipeId)!).map((r) => r.id);
  const everything = Object.values(state.collections).flat();
  return [
    cond('collection.exists', !!name, `no collection "${collection}"`),
    cond('collection.has-recipe', ids.includes(recipeId), `${recipeId} is not in "${collection}"`),
    cond(
      'collection.no-lookalike',
      !everything.some((id) => twins.includes(id)),
      'a lookalike recipe was saved',
    ),
    cond(
      'collection.nothing-else',
      everything.every((id) => id === recipeId),
      `other recipes saved: ${everything.filter((id) => id !== recipeId).join(', ')}`,
    ),
  ];
}

/** Chooses the collection in the save box (an existing one, or a new one by name) and saves. */
async function saveTo(d: SolverDriver, collection: string): Promise<void> {
  if (DEFAULT_COLLECTIONS.includes(collection)) {
    await d.select({ name: 'Save to collection', tag: 'select' }, collection);
  } else {
    await d.select({ name: 'Save to collection', tag: 'select' }, 'New collection…');
    await d.input({ name: 'New collection name', tag: 'input' }, collection);
  }
  await d.click({ name: 'Save recipe', tag: 'button' });
  await d.waitFor((o) => o.url.includes('saved='), 'the saved notice');
}

export const saveToCollection: RecipeTemplate<{ recipeId: string; collection: string }> = {
  id: 'recipes.save-to-collection',
  description: 'Transaction: find a recipe by name and save it to an existing or a new collection.',
  generate(ctx) {
    const r = drawRecipe(ctx.rng, ctx.split, ctx.data);
    if (!r) return null;
    const collection = ctx.rng.bool(0.5) ? ctx.rng.pick(DEFAULT_COLLECTIONS) : ctx.rng.pick(NEW_COLLECTIONS);
    const isNew = !DEFAULT_COLLECTIONS.includes(collection);
    const objective = isNew
      ? `Save ${r.name} to a new collection called "${collection}".`
      : ctx.rng.pick([
          `Save ${r.name} to my "${collection}" collection.`,
          `Add the ${r.name} recipe to my ${collection} collection.`,
        ]);
    return {
      params: { recipeId: r.id, collection },
      objective,
      startPath: '/',
      referenceLength: 7 + (isNew ? 1 : 0),
      splitKey: r.id,
    };
  },
  verify(p, state, _a, data) {
    return saveConditions(state, data, p.recipeId, p.collection);
  },
  async solve(p, d, data) {
    await dismissOverlays(d);
    await openRecipe(d, data.byId.get(p.recipeId)!);
    await saveTo(d, p.collection);
  },
};

function listConditions(
  state: RecipesState,
  recipeId: string,
  items: string[],
  qty?: { ingredient: string; value: number },
): Condition[] {
  const mine = state.shoppingList.filter((x) => x.recipeId === recipeId);
  const out = items.map((name) =>
    cond(
      `list.item=${name}`,
      mine.some((x) => x.ingredient === name),
      `${name} is not on the list`,
    ),
  );
  const extra = state.shoppingList.filter((x) => x.recipeId !== recipeId || !items.includes(x.ingredient));
  out.push(
    cond(
      'list.no-extra-items',
      extra.length === 0,
      `unexpected: ${extra.map((x) => x.ingredient).join(', ')}`,
    ),
  );
  if (qty) {
    const it = mine.find((x) => x.ingredient === qty.ingredient);
    out.push(
      cond(
        'list.quantity',
        !!it && Math.abs(it.qty - qty.value) < 0.02,
        `quantity ${it?.qty ?? 'none'}, expected ${qty.value}`,
      ),
    );
  }
  return out;
}

async function tick(d: SolverDriver, ingredient: string): Promise<void> {
  await d.click({ tag: 'input', attr: { type: 'checkbox', value: ingredient } });
}

export const shoppingList: RecipeTemplate<{ recipeId: string; items: string[] }> = {
  id: 'recipes.shopping-list',
  description: 'Transaction: add chosen ingredients of a recipe (checkboxes) to the shopping list.',
  generate(ctx) {
    const r = drawRecipe(ctx.rng, ctx.split, ctx.data);
    if (!r) return null;
    const items = ctx.rng
      .shuffle(r.ingredients.map((i) => i.name).filter((n) => n !== 'salt'))
      .slice(0, ctx.rng.int(2, 3));
    const list =
      items.length === 2 ? `${items[0]} and ${items[1]}` : `${items[0]}, ${items[1]} and ${items[2]}`;
    const objective = ctx.rng.pick([
      `Add the ${list} from the ${r.name} recipe to my shopping list — nothing else.`,
      `I already have everything for ${r.name} except the ${list}. Put just those on my shopping list.`,
    ]);
    return {
      params: { recipeId: r.id, items },
      objective,
      startPath: `/r/${r.id}`,
      referenceLength: 3 + items.length,
      splitKey: r.id,
    };
  },
  verify(p, state) {
    return listConditions(state, p.recipeId, p.items);
  },
  async solve(p, d) {
    await dismissOverlays(d);
    for (const it of p.items) await tick(d, it);
    await d.click({ name: 'Add selected to shopping list', tag: 'button' });
    await d.waitFor((o) => o.url.includes('added='), 'the added notice');
  },
};

interface QuickParams {
  cuisine: string;
  diet: Diet;
  minRating: number;
  answerId: string;
  collection: string;
}

const quickCombos = memoByData((data: RecipesData) => {
  const out: Omit<QuickParams, 'collection'>[] = [];
  for (const c of data.cuisines) {
    for (const diet of ['vegetarian', 'vegan', 'gluten-free', 'dairy-free'] as Diet[]) {
      for (const minRating of [3.5, 4, 4.5]) {
        const s = searchRecipes(data, { cuisine: c.id, diets: [diet], minRating, sort: 'quickest' });
        if (s.length >= 2 && s[0].totalMin < s[1].totalMin)
          out.push({ cuisine: c.id, diet, minRating, answerId: s[0].id });
      }
    }
  }
  return out;
});

export const quickestSave: RecipeTemplate<QuickParams> = {
  id: 'recipes.quickest-save',
  description:
    'Transaction: filter by cuisine, diet and rating, sort by time, save the quickest recipe to a new collection.',
  generate(ctx) {
    const key = (c: Omit<QuickParams, 'collection'>) => `${c.cuisine}|${c.diet}|${c.minRating}`;
    const pool = inSplit(quickCombos(ctx.data), ctx.split, key);
    if (!pool.length) return null;
    const c = { ...ctx.rng.pick(pool), collection: ctx.rng.pick(NEW_COLLECTIONS) };
    const objective = `Find the quickest ${c.diet} ${cuisineName(ctx.data, c.cuisine)} recipe rated ${c.minRating} stars or higher and save it to a new collection called "${c.collection}".`;
    return { params: c, objective, startPath: '/', referenceLength: 11, splitKey: key(c) };
  },
  verify(p, state, _a, data) {
    return saveConditions(state, data, p.answerId, p.collection);
  },
  async solve(p, d, data) {
    const r = data.byId.get(p.answerId)!;
    await dismissOverlays(d);
    await d.click({ name: cuisineName(data, p.cuisine), tag: 'a' });
    await d.click({ name: p.diet.charAt(0).toUpperCase() + p.diet.slice(1), tag: 'input' });
    await d.select(
      { name: 'Rating', tag: 'select' },
      RATING_CHOICES.find(([v]) => Number(v) === p.minRating)![1],
    );
    await d.select({ name: 'Sort by', tag: 'select' }, 'Quickest');
    await d.click({ name: 'Apply', tag: 'button' });
    await d.click({ name: r.name, tag: 'a' });
    await dismissOverlays(d);
    await saveTo(d, p.collection);
  },
};

interface ScaledListParams {
  recipeId: string;
  ingredient: string;
  servings: number;
  qty: number;
}

export const scaledShopping: RecipeTemplate<ScaledListParams> = {
  id: 'recipes.scaled-shopping',
  description:
    'Transaction: scale a recipe to a number of servings, then add one ingredient at that amount to the list.',
  generate(ctx) {
    const r = drawRecipe(ctx.rng, ctx.split, ctx.data);
    if (!r) return null;
    const ing = ctx.rng.pick(r.ingredients.filter((i) => MEASURES.has(i.unit) && i.name !== 'salt'));
    if (!ing) return null;
    const options = niceServings(r, ing.qty).filter(
      (n) => Math.abs(n - r.servings) >= 2 && Math.abs(n - r.servings) <= 6,
    );
    if (!options.length) return null;
    const servings = ctx.rng.pick(options);
    const objective = ctx.rng.pick([
      `I'm making ${r.name} for ${servings} people. Scale the recipe to ${servings} servings and add the ${ing.name} to my shopping list at that amount.`,
      `Add the ${ing.name} for ${r.name} to my shopping list, with the amount for ${servings} servings.`,
    ]);
    return {
      params: { recipeId: r.id, ingredient: ing.name, servings, qty: (ing.qty * servings) / r.servings },
      objective,
      startPath: '/',
      referenceLength: 7 + Math.abs(servings - r.servings),
      splitKey: r.id,
    };
  },
  verify(p, state) {
    return listConditions(state, p.recipeId, [p.ingredient], { ingredient: p.ingredient, value: p.qty });
  },
  async solve(p, d, data) {
    const r = data.byId.get(p.recipeId)!;
    await dismissOverlays(d);
    await openRecipe(d, r);
    const label = p.servings > r.servings ? 'Increase servings' : 'Decrease servings';
    for (let k = 0; k < Math.abs(p.servings - r.servings); k++) await d.click({ name: label, tag: 'button' });
    await tick(d, p.ingredient);
    await d.click({ name: 'Add selected to shopping list', tag: 'button' });
    await d.waitFor((o) => o.url.includes('added='), 'the added notice');
  },
};
