import type { Rng } from '../../../core/rng.ts';
import { nameCondition, numberCondition } from '../../answer.ts';
import type { SolverDriver, TaskTemplate } from '../../site.ts';
import { dismissOverlays } from '../../solver-steps.ts';
import { inSplit } from '../../split.ts';
import { memoByData } from '../memo.ts';
import {
  cuisineName,
  type Diet,
  formatQty,
  lookalikesOf,
  MEASURES,
  type Recipe,
  type RecipesData,
} from './data.ts';
import { INGREDIENTS } from './ingredients.ts';
import { searchRecipes } from './listing.ts';
import type { RecipesState } from './state.ts';

type RecipeTemplate<P> = TaskTemplate<P, RecipesState, RecipesData>;

const splitPools = memoByData((data: RecipesData) => {
  const out = {
    train: { all: [] as Recipe[], twins: [] as Recipe[] },
    test: { all: [] as Recipe[], twins: [] as Recipe[] },
  };
  for (const split of ['train', 'test'] as const) {
    out[split].all = inSplit(data.recipes, split, (r) => r.id);
    out[split].twins = out[split].all.filter((r) => lookalikesOf(data, r).length > 0);
  }
  return out;
});

/** Draws a recipe of the split, preferring ones with lookalikes ("Easy ..." versions). */
export function drawRecipe(
  rng: Rng,
  split: 'train' | 'test',
  data: RecipesData,
  filter: (r: Recipe) => boolean = () => true,
): Recipe | null {
  const pools = splitPools(data)[split];
  const pool = pools.all.filter(filter);
  if (!pool.length) return null;
  const twins = pools.twins.filter(filter);
  return rng.bool(0.5) && twins.length ? rng.pick(twins) : rng.pick(pool);
}

/** Opens a recipe from the header search (3 actions) and closes the newsletter promo it shows. */
export async function openRecipe(d: SolverDriver, r: Recipe): Promise<void> {
  await d.input({ name: 'Search recipes', tag: 'input' }, r.name);
  await d.click({ name: 'Search', tag: 'button' });
  await d.click({ name: r.name, tag: 'a' });
  await d.waitFor((o) => new URL(o.url).pathname.endsWith(`/r/${r.id}`), `the page of ${r.name}`);
  await dismissOverlays(d);
}

export const totalTime: RecipeTemplate<{ recipeId: string; minutes: number }> = {
  id: 'recipes.total-time',
  description: 'Information: total minutes of a named recipe, found through search (lookalike versions).',
  generate(ctx) {
    const r = drawRecipe(ctx.rng, ctx.split, ctx.data);
    if (!r) return null;
    const objective = ctx.rng.pick([
      `How many minutes does ${r.name} take in total, prep and cooking included?`,
      `How long in minutes does it take to make the ${r.name} recipe from start to finish?`,
    ]);
    return {
      params: { recipeId: r.id, minutes: r.totalMin },
      objective,
      startPath: '/',
      referenceLength: 6,
      splitKey: r.id,
    };
  },
  verify(p, _s, answer) {
    return [numberCondition('answer.minutes', answer, p.minutes, 0)];
  },
  async solve(p, d, data) {
    await dismissOverlays(d);
    await openRecipe(d, data.byId.get(p.recipeId)!);
    await d.done(`${p.minutes} minutes`);
  },
};

/** Servings that scale a quantity to a value recipes print exactly (quarters, thirds, eighths). */
export function niceServings(r: Recipe, qty: number): number[] {
  const out: number[] = [];
  for (let n = 1; n <= 12; n++) {
    if (n === r.servings) continue;
    const q = (qty * n) / r.servings;
    const exact = [8, 3].some((den) => Math.abs(q * den - Math.round(q * den)) < 1e-9);
    if (exact && q >= 0.25) out.push(n);
  }
  return out;
}

interface ScaledParams {
  recipeId: string;
  ingredient: string;
  servings: number;
  qty: number;
}

export const scaledAmount: RecipeTemplate<ScaledParams> = {
  id: 'recipes.scaled-amount',
  description: 'Information: an ingredient amount after scaling the servings (client-side scaler).',
  generate(ctx) {
    const r = drawRecipe(ctx.rng, ctx.split, ctx.data);
    if (!r) return null;
    const ing = ctx.rng.pick(r.ingredients.filter((i) => MEASURES.has(i.unit) && i.name !== 'salt'));
    if (!ing) return null;
    const options = niceServings(r, ing.qty).filter((n) => Math.abs(n - r.servings) <= 6);
    if (!options.length) return null;
    const servings = ctx.rng.pick(options);
    const objective = ctx.rng.pick([
      `How much ${ing.name} do I need to make ${r.name} for ${servings} servings?`,
      `I'm cooking ${r.name} for ${servings} people. How much ${ing.name} should I use?`,
    ]);
    return {
      params: { recipeId: r.id, ingredient: ing.name, servings, qty: (ing.qty * servings) / r.servings },
      objective,
      startPath: `/r/${r.id}`,
      referenceLength: 3 + Math.abs(servings - r.servings),
      splitKey: r.id,
    };
  },
  verify(p, _s, answer) {
    // A stated serving count is not the amount: drop "for 8 servings" before reading numbers.
    const text =
      answer?.replace(new RegExp(`\\bfor\\s+${p.servings}\\s+(servings|people|portions)\\b`, 'gi'), ' ') ??
      null;
    return [numberCondition('answer.amount', text, p.qty, 0.02)];
  },
  async solve(p, d, data) {
    const r = data.byId.get(p.recipeId)!;
    await dismissOverlays(d);
    const label = p.servings > r.servings ? 'Increase servings' : 'Decrease servings';
    for (let k = 0; k < Math.abs(p.servings - r.servings); k++) await d.click({ name: label, tag: 'button' });
    const ing = r.ingredients.find((i) => i.name === p.ingredient)!;
    await d.done(`${formatQty(p.qty)} ${p.qty > 1 ? ing.units : ing.unit} of ${ing.name}`);
  },
};

/** Ingredients that could plausibly stand in for another in a distractor list. */
function distractors(rng: Rng, r: Recipe, n: number): string[] {
  const used = new Set(r.ingredients.map((i) => i.name));
  return rng
    .shuffle(
      Object.keys(INGREDIENTS).filter(
        (x) => !used.has(x) && !['salt', 'black pepper', 'olive oil'].includes(x),
      ),
    )
    .slice(0, n);
}

export const whichIngredient: RecipeTemplate<{ recipeId: string; answer: string; others: string[] }> = {
  id: 'recipes.which-ingredient',
  description: 'Information: which of three ingredients a recipe uses.',
  generate(ctx) {
    const r = drawRecipe(ctx.rng, ctx.split, ctx.data);
    if (!r) return null;
    const answer = ctx.rng.pick(
      r.ingredients.filter((i) => !['salt', 'black pepper', 'olive oil'].includes(i.name)),
    ).name;
    const others = distractors(ctx.rng, r, 2);
    const options = ctx.rng.shuffle([answer, ...others]);
    const objective = `Which of these ingredients does ${r.name} call for: ${options[0]}, ${options[1]} or ${options[2]}?`;
    return {
      params: { recipeId: r.id, answer, others },
      objective,
      startPath: `/r/${r.id}`,
      referenceLength: 3,
      splitKey: r.id,
    };
  },
  verify(p, _s, answer) {
    return [nameCondition('answer.ingredient', answer, p.answer, p.others)];
  },
  async solve(p, d) {
    await dismissOverlays(d);
    await d.done(p.answer);
  },
};

interface TopParams {
  cuisine: string;
  diet: Diet;
  maxTime: number;
  answerId: string;
}

const topCombos = memoByData((data: RecipesData) => {
  const out: TopParams[] = [];
  for (const c of data.cuisines) {
    for (const diet of ['vegetarian', 'vegan', 'gluten-free', 'dairy-free'] as Diet[]) {
      for (const maxTime of [20, 30, 45, 60]) {
        const s = searchRecipes(data, { cuisine: c.id, diets: [diet], maxTime, sort: 'rating' });
        if (s.length >= 2 && s[0].rating > s[1].rating)
          out.push({ cuisine: c.id, diet, maxTime, answerId: s[0].id });
      }
    }
  }
  return out;
});

export const topRatedFiltered: RecipeTemplate<TopParams> = {
  id: 'recipes.top-rated-filtered',
  description:
    'Information: the best-rated recipe of a cuisine with a diet and a time limit (three filters + sort).',
  generate(ctx) {
    const key = (c: TopParams) => `${c.cuisine}|${c.diet}|${c.maxTime}`;
    const pool = inSplit(topCombos(ctx.data), ctx.split, key);
    if (!pool.length) return null;
    const c = ctx.rng.pick(pool);
    const cuisine = cuisineName(ctx.data, c.cuisine);
    const objective = ctx.rng.pick([
      `What's the highest-rated ${c.diet} ${cuisine} recipe that takes ${c.maxTime} minutes or less in total?`,
      `Find me the top-rated ${cuisine} recipe that is ${c.diet} and ready in at most ${c.maxTime} minutes. What's it called?`,
    ]);
    return { params: c, objective, startPath: '/search', referenceLength: 7, splitKey: key(c) };
  },
  verify(p, _s, answer, data) {
    const others = data.recipes.filter((r) => r.cuisine === p.cuisine).map((r) => r.name);
    return [nameCondition('answer.name', answer, data.byId.get(p.answerId)!.name, others)];
  },
  async solve(p, d, data) {
    await dismissOverlays(d);
    await d.select({ name: 'Cuisine', tag: 'select' }, cuisineName(data, p.cuisine));
    await d.click({ name: p.diet.charAt(0).toUpperCase() + p.diet.slice(1), tag: 'input' });
    await d.select({ name: 'Total time', tag: 'select' }, `${p.maxTime} minutes or less`);
    await d.select({ name: 'Sort by', tag: 'select' }, 'Top rated');
    await d.click({ name: 'Apply', tag: 'button' });
    await d.done(data.byId.get(p.answerId)!.name);
  },
};

export const ovenTemp: RecipeTemplate<{ recipeId: string; temp: number }> = {
  id: 'recipes.oven-temp',
  description: 'Information: the oven temperature, written in the Steps tab.',
  generate(ctx) {
    const r = drawRecipe(ctx.rng, ctx.split, ctx.data, (x) => x.ovenTemp !== null);
    if (!r) return null;
    const objective = ctx.rng.pick([
      `At what oven temperature is ${r.name} baked?`,
      `What temperature should I preheat the oven to for ${r.name}?`,
    ]);
    return {
      params: { recipeId: r.id, temp: r.ovenTemp! },
      objective,
      startPath: `/r/${r.id}`,
      referenceLength: 4,
      splitKey: r.id,
    };
  },
  verify(p, _s, answer) {
    return [numberCondition('answer.temperature', answer, p.temp, 0)];
  },
  async solve(p, d) {
    await dismissOverlays(d);
    await d.click({ name: 'Steps', role: 'tab' });
    await d.done(`${p.temp}°F`);
  },
};

export const calories: RecipeTemplate<{ recipeId: string; calories: number }> = {
  id: 'recipes.calories',
  description: 'Information: calories per serving of a recipe chosen among lookalike search results.',
  generate(ctx) {
    const r = ctx.rng.pick(splitPools(ctx.data)[ctx.split].twins);
    if (!r) return null;
    const q = r.name.replace(/^(Easy|Healthy|Slow Cooker) /, '');
    const objective = ctx.rng.pick([
      `How many calories per serving does ${r.name} have?`,
      `What's the calorie count per serving of ${r.name}?`,
    ]);
    return {
      params: { recipeId: r.id, calories: r.calories },
      objective,
      startPath: `/search?q=${encodeURIComponent(q)}`,
      referenceLength: 4,
      splitKey: r.id,
    };
  },
  verify(p, _s, answer) {
    return [numberCondition('answer.calories', answer, p.calories, 0)];
  },
  async solve(p, d, data) {
    const r = data.byId.get(p.recipeId)!;
    await dismissOverlays(d);
    await d.click({ name: r.name, tag: 'a' });
    await dismissOverlays(d);
    await d.done(`${p.calories} calories per serving`);
  },
};
