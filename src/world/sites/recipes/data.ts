import { Rng } from '../../../core/rng.ts';
import { slug } from '../../../core/text.ts';
import { CUISINES, type Cuisine, type Dish } from './cuisines.ts';
import { type DietFlag, INGREDIENTS, MAINS } from './ingredients.ts';

export const DIETS = ['vegetarian', 'vegan', 'gluten-free', 'dairy-free'] as const;
export type Diet = (typeof DIETS)[number];

export interface RecipeIngredient {
  name: string;
  /** Quantity for the recipe's base servings. */
  qty: number;
  unit: string;
  units: string;
}

export interface RecipeReview {
  author: string;
  rating: number;
  text: string;
  date: string;
}

export interface Recipe {
  id: string;
  name: string;
  cuisine: string;
  diets: Diet[];
  prepMin: number;
  cookMin: number;
  totalMin: number;
  servings: number;
  rating: number;
  reviewCount: number;
  calories: number;
  author: string;
  published: string;
  ingredients: RecipeIngredient[];
  steps: string[];
  /** °F when baked or roasted, else null. */
  ovenTemp: number | null;
  description: string;
  reviews: RecipeReview[];
}

export interface RecipesData {
  cuisines: Array<{ id: string; name: string }>;
  recipes: Recipe[];
  byId: Map<string, Recipe>;
}

const AUTHORS = [
  'Maya Lin',
  'Jonah Reed',
  'Carla Souza',
  'Dev Mehta',
  'Hana Sato',
  'Luca Bianchi',
  'Amara Obi',
  'Sam Ortiz',
  'Nina Petrova',
  'Theo Grant',
];
const REVIEWERS = [
  'cookinmama',
  'Dan P.',
  'Rosa M.',
  'kitchenkev',
  'Ali R.',
  'Jenny T.',
  'HomeChef22',
  'Marta G.',
  'Pete S.',
  'Lou B.',
  'Ivy W.',
  'Omar K.',
];
const REVIEW_TEXT: Record<number, string[]> = {
  5: ['Made this twice already, the family loved it.', 'Perfect weeknight dinner, would not change a thing.'],
  4: ['Really good. I added a little more spice.', 'Tasty and easy, took a bit longer than stated.'],
  3: ['Fine but a bit bland for us.', 'Okay. Needed more salt.'],
  2: ['Did not work out for me, too watery.', 'Not my favorite.'],
  1: ['Followed it exactly and it was a mess.'],
};

/** Rounds a quantity the way recipes print it: quarters for cups and spoons, whole grams and counts. */
function niceQty(q: number, unit: string): number {
  if (unit === 'g') return Math.max(10, Math.round(q / 10) * 10);
  if (['cup', 'tbsp', 'tsp', 'lb'].includes(unit)) return Math.max(0.25, Math.round(q * 4) / 4);
  return Math.max(1, Math.round(q));
}

function dietsOf(flags: Set<DietFlag>): Diet[] {
  const out: Diet[] = [];
  const veg = !flags.has('meat') && !flags.has('fish');
  if (veg) out.push('vegetarian');
  if (veg && !flags.has('dairy') && !flags.has('egg') && !flags.has('honey')) out.push('vegan');
  if (!flags.has('gluten')) out.push('gluten-free');
  if (!flags.has('dairy')) out.push('dairy-free');
  return out;
}

function stepsFor(
  rng: Rng,
  dish: Dish,
  mainIng: string,
  others: string[],
  cook: number,
  temp: number | null,
): string[] {
  const [a, b, c] = rng.shuffle(others);
  const part1 = Math.max(3, Math.round(cook * 0.4));
  const part2 = Math.max(2, cook - part1);
  switch (dish.method) {
    case 'oven':
      return [
        `Preheat the oven to ${temp}°F and lightly grease a baking dish.`,
        `Prepare the ${mainIng}, then mix it with the ${a} and ${b}.`,
        `Spread everything in the dish and top with the ${c}.`,
        `Bake for ${cook} minutes, until golden and bubbling.`,
        'Let it rest for 5 minutes before serving.',
      ];
    case 'grill':
      return [
        `Combine the ${a}, ${b} and a pinch of salt to make a marinade.`,
        `Toss the ${mainIng} in the marinade and let it sit for 15 minutes.`,
        'Heat the grill or a grill pan to medium-high.',
        `Grill for ${cook} minutes in total, turning halfway.`,
        `Serve with the ${c}.`,
      ];
    case 'no-cook':
      return [
        `Rinse and drain the ${mainIng}.`,
        `Chop the ${a} and ${b} into bite-size pieces.`,
        `Whisk the dressing ingredients together and toss everything with the ${c}.`,
        'Chill for 10 minutes and serve.',
      ];
    default:
      return [
        `Prepare the ${mainIng} and measure out the remaining ingredients.`,
        'Heat a large pan or pot over medium-high heat with a little oil.',
        `Cook the ${mainIng} for ${part1} minutes, stirring now and then.`,
        `Add the ${a} and ${b} and simmer for ${part2} minutes.`,
        ...(rng.bool(0.5) ? [`Stir in the ${c} and cook for 1 more minute.`] : []),
        'Season to taste and serve hot.',
      ];
  }
}

interface Draft {
  name: string;
  cuisine: Cuisine;
  dish: Dish;
  main: string;
  variant: '' | 'Easy' | 'Slow Cooker' | 'Healthy';
}

function buildRecipe(rng: Rng, d: Draft, published: string): Recipe {
  const main = MAINS[d.main];
  const servings = rng.pick([2, 4, 4, 4, 6, 6, 8]);
  const scale = servings / 4;
  let base = d.dish.base.filter(([n]) => n !== main.ingredient);
  if (d.variant === 'Easy') base = base.slice(0, Math.max(4, base.length - 2));
  const items: Array<[string, number]> = [[main.ingredient, main.qty], ...base];
  const ingredients = items.map(([name, q]) => {
    const info = INGREDIENTS[name];
    if (!info) throw new Error(`recipes: unknown ingredient ${name}`);
    return { name, qty: niceQty(q * scale, info.unit), unit: info.unit, units: info.units };
  });
  const flags = new Set<DietFlag>(items.flatMap(([n]) => INGREDIENTS[n].flags));
  let prep = rng.int(d.dish.prep[0], d.dish.prep[1]);
  let cook = d.dish.cook[1] === 0 ? 0 : rng.int(d.dish.cook[0], d.dish.cook[1]);
  if (d.variant === 'Easy') prep = Math.max(5, prep - 5);
  if (d.variant === 'Slow Cooker') cook = rng.pick([240, 300, 360, 480]);
  prep = Math.round(prep / 5) * 5;
  cook = Math.round(cook / 5) * 5;
  const temp = d.dish.method === 'oven' ? (d.dish.temp ?? 375) : null;
  const steps =
    d.variant === 'Slow Cooker'
      ? [
          `Place the ${main.ingredient} in a slow cooker.`,
          `Add the ${base[0][0]} and ${base[1][0]}.`,
          `Cover and cook on low for ${cook / 60} hours (${cook} minutes).`,
          'Stir, season to taste and serve.',
        ]
      : stepsFor(
          rng,
          d.dish,
          main.ingredient,
          base.map(([n]) => n),
          cook,
          temp,
        );
  const rating = Math.min(5, Math.round((3.3 + rng.next() * 1.3 + rng.next() * 0.4) * 10) / 10);
  const reviewCount = Math.floor(Math.exp(rng.next() * 7.2));
  const reviews: RecipeReview[] = [];
  const who = rng.shuffle(REVIEWERS);
  for (let i = 0; i < Math.min(5, reviewCount); i++) {
    const r = Math.max(1, Math.min(5, Math.round(rating + (rng.next() - 0.5) * 2.5)));
    reviews.push({
      author: who[i],
      rating: r,
      text: rng.pick(REVIEW_TEXT[r]),
      date: new Date(Date.UTC(2026, rng.int(0, 10), rng.int(1, 28))).toISOString().slice(0, 10),
    });
  }
  const calories = Math.round(((d.variant === 'Healthy' ? 0.7 : 1) * rng.int(260, 820)) / 5) * 5;
  return {
    // Apostrophes vanish from recipe ids (`grandmas-...`); the world's URLs and recorded runs use them.
    id: slug(d.name.replace(/'/g, '')),
    name: d.name,
    cuisine: d.cuisine.id,
    diets: dietsOf(flags),
    prepMin: prep,
    cookMin: cook,
    totalMin: prep + cook,
    servings,
    rating,
    reviewCount,
    calories,
    author: rng.pick(AUTHORS),
    published,
    ingredients,
    steps,
    ovenTemp: d.variant === 'Slow Cooker' ? null : temp,
    description: `${d.variant ? `${d.variant === 'Slow Cooker' ? 'A hands-off slow cooker take on' : d.variant === 'Easy' ? 'A shortcut version of' : 'A lighter version of'} ` : ''}${d.cuisine.name.toLowerCase()} ${d.dish.pattern.replace('{flavor} ', '').replace('{main}', main.label.toLowerCase()).toLowerCase()} with ${main.ingredient}.`,
    reviews,
  };
}

/** Builds the recipe collection from the world seed: about 430 recipes in 12 cuisines. */
export function buildRecipesData(seed: number): RecipesData {
  const rng = new Rng(`${seed}:recipes`);
  const recipes: Recipe[] = [];
  const names = new Set<string>();
  const from = Date.UTC(2023, 0, 1);
  for (const cuisine of CUISINES) {
    const combos: Draft[] = [];
    for (const dish of cuisine.dishes) {
      for (const flavor of cuisine.flavors) {
        for (const main of dish.mains) {
          const name = dish.pattern.replace('{flavor}', flavor).replace('{main}', MAINS[main].label);
          combos.push({ name, cuisine, dish, main, variant: '' });
        }
      }
    }
    for (const c of rng.shuffle(combos).slice(0, 30)) {
      const drafts: Draft[] = [c];
      // Lookalikes: "Easy Coconut Chickpea Curry" next to "Coconut Chickpea Curry", with other times.
      if (rng.bool(0.22)) {
        const variant = rng.pick(['Easy', 'Slow Cooker', 'Healthy'] as const);
        if (!(variant === 'Slow Cooker' && c.dish.method !== 'stovetop'))
          drafts.push({ ...c, name: `${variant} ${c.name}`, variant });
      }
      for (const d of drafts) {
        if (names.has(d.name)) continue;
        names.add(d.name);
        const published = new Date(from + Math.floor(rng.next() * 4 * 365 * 86_400_000))
          .toISOString()
          .slice(0, 10);
        recipes.push(buildRecipe(rng.fork(d.name), d, published));
      }
    }
  }
  return {
    cuisines: CUISINES.map((c) => ({ id: c.id, name: c.name })),
    recipes,
    byId: new Map(recipes.map((r) => [r.id, r])),
  };
}

export function cuisineName(data: RecipesData, id: string): string {
  return data.cuisines.find((c) => c.id === id)?.name ?? id;
}

/** Recipes whose names contain this one's name or are contained in it: the lookalikes. */
export function lookalikesOf(data: RecipesData, r: Recipe): Recipe[] {
  const n = r.name.toLowerCase();
  return data.recipes.filter(
    (o) => o.id !== r.id && (o.name.toLowerCase().includes(n) || n.includes(o.name.toLowerCase())),
  );
}

/** Units that measure an amount, as opposed to counting things. */
export const MEASURES = new Set(['cup', 'tbsp', 'tsp', 'g', 'lb', 'oz']);

const FRACTIONS: Array<[number, string]> = [
  [0, ''],
  [0.125, '1/8'],
  [0.25, '1/4'],
  [1 / 3, '1/3'],
  [0.5, '1/2'],
  [2 / 3, '2/3'],
  [0.75, '3/4'],
  [1, ''],
];

/** Prints a quantity as recipes do: "1 1/2", "3/4", "340". */
export function formatQty(q: number): string {
  const whole = Math.floor(q + 1e-9);
  const frac = q - whole;
  let best = FRACTIONS[0];
  for (const f of FRACTIONS) if (Math.abs(frac - f[0]) < Math.abs(frac - best[0])) best = f;
  const w = best[0] === 1 ? whole + 1 : whole;
  if (!best[1]) return String(w);
  return w ? `${w} ${best[1]}` : best[1];
}

/** "1 1/2 cups chickpeas" at a number of servings. */
export function ingredientText(i: RecipeIngredient, factor = 1): string {
  const q = i.qty * factor;
  const unit = q > 1 ? i.units : i.unit;
  // Count units already name the thing ("2 cloves garlic", "1 onion"); measures do not ("2 cups rice").
  const measure = MEASURES.has(i.unit);
  return `${formatQty(q)}${unit ? ` ${unit}` : ''}${measure || !unit ? ` ${i.name}` : ''}`;
}
