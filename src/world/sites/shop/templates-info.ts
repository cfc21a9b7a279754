import { nameCondition, numberCondition } from '../../answer.ts';
import { cond } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { dismissOverlays } from '../../solver-steps.ts';
import { inSplit } from '../../split.ts';
import { memoByData } from '../memo.ts';
import { listProducts, RATING_FILTERS } from './catalog.ts';
import { lookalikesOf, type Product, reviewsOf, type ShopData } from './data.ts';
import { sortBy } from './solve.ts';
import type { ShopState } from './state.ts';

type ShopTemplate<P> = TaskTemplate<P, ShopState, ShopData>;

const splitPools = memoByData((data: ShopData) => {
  const out = {
    train: { all: [] as Product[], twins: [] as Product[] },
    test: { all: [] as Product[], twins: [] as Product[] },
  };
  for (const split of ['train', 'test'] as const) {
    out[split].all = inSplit(data.products, split, (p) => p.id);
    out[split].twins = out[split].all.filter((p) => lookalikesOf(data, p).length > 0);
  }
  return out;
});

/** Products, preferring ones with lookalikes so the "Trail Runner 2" vs "GTX" trap shows up often. */
export function drawProduct(
  ctx: {
    rng: { bool(p?: number): boolean; pick<T>(x: readonly T[]): T };
    split: 'train' | 'test';
    data: ShopData;
  },
  filter: (p: Product) => boolean = () => true,
): Product | null {
  const pools = splitPools(ctx.data)[ctx.split];
  const pool = pools.all.filter(filter);
  if (pool.length === 0) return null;
  const twins = pools.twins.filter(filter);
  return ctx.rng.bool(0.6) && twins.length ? ctx.rng.pick(twins) : ctx.rng.pick(pool);
}

export function catLabel(data: ShopData, id: string): string {
  return (data.categories.find((c) => c.id === id)?.name ?? id).toLowerCase();
}

export const productPrice: ShopTemplate<{ productId: string }> = {
  id: 'shop.product-price',
  description: 'Information: the price of a named product (lookalikes nearby).',
  generate(ctx) {
    const p = drawProduct(ctx);
    if (!p) return null;
    const objective = ctx.rng.pick([
      `How much does the ${p.name} cost?`,
      `What's the current price of the ${p.name}?`,
      `Look up the ${p.name} and tell me its price.`,
    ]);
    // Start on a results page that lists the whole family, lookalikes included.
    const q = p.family;
    return {
      params: { productId: p.id },
      objective,
      startPath: `/search?q=${encodeURIComponent(q)}`,
      referenceLength: 4,
      splitKey: p.id,
    };
  },
  verify(params, _state, answer, data) {
    const p = data.byId.get(params.productId)!;
    return [numberCondition('answer.price', answer, p.price, 0.01)];
  },
  async solve(params, d, data) {
    const p = data.byId.get(params.productId)!;
    await dismissOverlays(d);
    await d.click({ name: p.name, tag: 'a' });
    await d.done(`The ${p.name} costs $${p.price.toFixed(2)}.`);
  },
};

interface CheapestParams {
  category: string;
  brand: string;
  minRating: number;
  inStockOnly: boolean;
  answerId: string;
}

const cheapestCombos = memoByData((data: ShopData) => {
  const out: CheapestParams[] = [];
  for (const c of data.categories) {
    for (const brand of [...new Set(data.products.filter((p) => p.category === c.id).map((p) => p.brand))]) {
      for (const minRating of [3, 4, 4.5]) {
        for (const inStockOnly of [true, false]) {
          const items = listProducts(data, {
            category: c.id,
            brands: [brand],
            minRating,
            inStockOnly,
            sort: 'price-asc',
          });
          if (items.length >= 2 && items[0].price < items[1].price) {
            out.push({ category: c.id, brand, minRating, inStockOnly, answerId: items[0].id });
          }
        }
      }
    }
  }
  return out;
});

export const cheapestFiltered: ShopTemplate<CheapestParams> = {
  id: 'shop.cheapest-filtered',
  description:
    'Information: the cheapest product of a brand in a category with a rating floor (filters + sort).',
  generate(ctx) {
    const key = (c: CheapestParams) => `${c.category}|${c.brand}|${c.minRating}|${c.inStockOnly}`;
    const pool = inSplit(cheapestCombos(ctx.data), ctx.split, key);
    if (!pool.length) return null;
    const c = ctx.rng.pick(pool);
    const cat = catLabel(ctx.data, c.category);
    const stock = c.inStockOnly ? ' that is in stock' : '';
    const objective = ctx.rng.pick([
      `Find the cheapest ${c.brand} item in ${cat} rated ${c.minRating} stars or higher${stock}. What is it called?`,
      `Which is the lowest-priced ${c.brand} product in the ${cat} category with a customer rating of at least ${c.minRating} stars${stock}? Give me its name.`,
    ]);
    const ref = 7 + (c.inStockOnly ? 1 : 0);
    return { params: c, objective, startPath: `/c/${c.category}`, referenceLength: ref, splitKey: key(c) };
  },
  verify(params, _state, answer, data) {
    const target = data.byId.get(params.answerId)!;
    const others = listProducts(data, { category: params.category }).map((p) => p.name);
    return [nameCondition('answer.name', answer, target.name, others)];
  },
  async solve(params, d, data) {
    await dismissOverlays(d);
    await d.click({ name: params.brand, tag: 'input' });
    const label = RATING_FILTERS.find((r) => Number(r.value) === params.minRating)!.label;
    await d.select({ name: 'Customer rating', tag: 'select' }, label);
    if (params.inStockOnly) await d.click({ name: 'In stock only', tag: 'input' });
    await d.click({ name: 'Apply filters', tag: 'button' });
    await sortBy(d, 'Price: low to high', 'price-asc');
    await d.done(data.byId.get(params.answerId)!.name);
  },
};

interface TopRatedParams {
  category: string;
  maxPrice: number;
  answerId: string;
}

const topRatedCombos = memoByData((data: ShopData) => {
  const out: TopRatedParams[] = [];
  for (const c of data.categories) {
    for (const maxPrice of [25, 40, 50, 60, 75, 100, 120, 150, 200, 250, 300, 400]) {
      const items = listProducts(data, { category: c.id, maxPrice, sort: 'rating' });
      if (items.length >= 3 && items[0].rating > items[1].rating)
        out.push({ category: c.id, maxPrice, answerId: items[0].id });
    }
  }
  return out;
});

export const topRatedUnderPrice: ShopTemplate<TopRatedParams> = {
  id: 'shop.top-rated-under-price',
  description:
    'Information: the best-rated product of a category under a price (max-price filter + rating sort).',
  generate(ctx) {
    const key = (c: TopRatedParams) => `${c.category}|${c.maxPrice}`;
    const pool = inSplit(topRatedCombos(ctx.data), ctx.split, key);
    if (!pool.length) return null;
    const c = ctx.rng.pick(pool);
    const cat = catLabel(ctx.data, c.category);
    const objective = ctx.rng.pick([
      `Which item in ${cat} under $${c.maxPrice} has the highest customer rating? Tell me the product name.`,
      `I have $${c.maxPrice} to spend on ${cat}. What's the best-rated product below that price?`,
    ]);
    return { params: c, objective, startPath: `/c/${c.category}`, referenceLength: 6, splitKey: key(c) };
  },
  verify(params, _state, answer, data) {
    const target = data.byId.get(params.answerId)!;
    const others = listProducts(data, { category: params.category }).map((p) => p.name);
    return [nameCondition('answer.name', answer, target.name, others)];
  },
  async solve(params, d, data) {
    await dismissOverlays(d);
    await d.input({ name: 'Max price ($)', tag: 'input' }, String(params.maxPrice));
    await d.click({ name: 'Apply filters', tag: 'button' });
    await sortBy(d, 'Customer rating', 'rating');
    await d.done(data.byId.get(params.answerId)!.name);
  },
};

interface CountParams {
  category: string;
  brand: string;
  min: number;
  max: number;
  count: number;
}

const countCombos = memoByData((data: ShopData) => {
  const out: CountParams[] = [];
  for (const c of data.categories) {
    const brands = [...new Set(data.products.filter((p) => p.category === c.id).map((p) => p.brand))];
    const bands = [
      [0, 50],
      [25, 75],
      [50, 100],
      [75, 150],
      [100, 200],
      [150, 300],
      [200, 400],
      [20, 120],
      [60, 180],
    ];
    for (const brand of brands) {
      for (const [min, max] of bands) {
        const n = listProducts(data, {
          category: c.id,
          brands: [brand],
          minPrice: min,
          maxPrice: max,
          inStockOnly: true,
        }).length;
        if (n >= 1) out.push({ category: c.id, brand, min, max, count: n });
      }
    }
  }
  return out;
});

export const countFiltered: ShopTemplate<CountParams> = {
  id: 'shop.count-filtered',
  description: 'Information: how many in-stock products of a brand fall in a price band (several filters).',
  generate(ctx) {
    const key = (c: CountParams) => `${c.category}|${c.brand}|${c.min}-${c.max}`;
    const pool = inSplit(countCombos(ctx.data), ctx.split, key);
    if (!pool.length) return null;
    const c = ctx.rng.pick(pool);
    const cat = catLabel(ctx.data, c.category);
    const objective = ctx.rng.pick([
      `How many ${c.brand} products in ${cat} are in stock and priced between $${c.min} and $${c.max}?`,
      `Count the in-stock ${c.brand} items in the ${cat} category that cost from $${c.min} to $${c.max}. How many are there?`,
    ]);
    return { params: c, objective, startPath: `/c/${c.category}`, referenceLength: 8, splitKey: key(c) };
  },
  verify(params, _state, answer) {
    return [numberCondition('answer.count', answer, params.count, 0)];
  },
  async solve(params, d) {
    await dismissOverlays(d);
    await d.click({ name: params.brand, tag: 'input' });
    await d.input({ name: 'Min price ($)', tag: 'input' }, String(params.min));
    await d.input({ name: 'Max price ($)', tag: 'input' }, String(params.max));
    await d.click({ name: 'In stock only', tag: 'input' });
    await d.click({ name: 'Apply filters', tag: 'button' });
    await d.done(`There are ${params.count} matching products.`);
  },
};

interface ReviewParams {
  productId: string;
  author: string;
  rating: number;
  title: string;
}

export function reviewTemplate(seed: number): ShopTemplate<ReviewParams> {
  return {
    id: 'shop.review-lookup',
    description: "Information: one reviewer's rating and title, behind the product page's Reviews tab.",
    generate(ctx) {
      const p = drawProduct(ctx, (x) => x.reviewCount >= 3);
      if (!p) return null;
      const r = ctx.rng.pick(reviewsOf(seed, p));
      const objective = ctx.rng.pick([
        `On the ${p.name} page, find ${r.author}'s review. How many stars did they give, and what was the review's title?`,
        `What rating did ${r.author} give the ${p.name} in their review, and what did they title it?`,
      ]);
      return {
        params: { productId: p.id, author: r.author, rating: r.rating, title: r.title },
        objective,
        startPath: `/p/${p.id}`,
        referenceLength: 4,
        splitKey: p.id,
      };
    },
    verify(params, _state, answer) {
      return [
        // "4 out of 5" states the scale, not a second rating.
        numberCondition(
          'answer.rating',
          answer?.replace(/(out of|\/)\s*5\b/gi, ' ') ?? null,
          params.rating,
          0,
        ),
        cond(
          'answer.title',
          !!answer && nameCondition('t', answer, params.title).ok,
          `expected title "${params.title}"`,
        ),
      ];
    },
    async solve(params, d) {
      await dismissOverlays(d);
      await d.click({ name: 'Reviews', role: 'tab' });
      await d.done(`${params.author} gave ${params.rating} stars: "${params.title}"`);
    },
  };
}
