import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { WorldServer } from '../../server.ts';
import { HttpSession } from '../../testing/http-session.ts';
import { describeRun, sampleByTemplate, WorldHarness } from '../../testing/solve-harness.ts';
import { World } from '../../world.ts';
import { formatQty, ingredientText, lookalikesOf, type RecipesData } from './data.ts';
import { searchRecipes } from './listing.ts';
import type { RecipesState } from './state.ts';

const world = new World(1);
const recipes = world.sites.get('recipes')!;
const data = recipes.data as RecipesData;

describe('recipes data', () => {
  it('has hundreds of recipes with consistent diets and lookalikes', () => {
    expect(data.recipes.length).toBeGreaterThanOrEqual(400);
    expect(data.cuisines).toHaveLength(12);
    for (const r of data.recipes) {
      if (r.diets.includes('vegan')) expect(r.diets).toContain('vegetarian');
      expect(r.totalMin).toBe(r.prepMin + r.cookMin);
      expect(r.ingredients.length).toBeGreaterThanOrEqual(4);
    }
    expect(data.recipes.filter((r) => lookalikesOf(data, r).length > 0).length).toBeGreaterThan(60);
  });

  it('prints quantities as recipes do', () => {
    expect([1.5, 0.75, 340, 1 / 3, 2, 0.125].map(formatQty)).toEqual([
      '1 1/2',
      '3/4',
      '340',
      '1/3',
      '2',
      '1/8',
    ]);
    expect(ingredientText({ name: 'garlic', qty: 3, unit: 'clove garlic', units: 'cloves garlic' })).toBe(
      '3 cloves garlic',
    );
    expect(ingredientText({ name: 'chickpeas', qty: 1, unit: 'cup', units: 'cups' }, 1.5)).toBe(
      '1 1/2 cups chickpeas',
    );
  });

  it('filters and sorts search results', () => {
    const s = searchRecipes(data, { cuisine: 'thai', diets: ['vegan'], maxTime: 45, sort: 'rating' });
    expect(s.length).toBeGreaterThan(0);
    expect(s.every((r) => r.cuisine === 'thai' && r.diets.includes('vegan') && r.totalMin <= 45)).toBe(true);
    expect(s.map((r) => r.rating)).toEqual([...s.map((r) => r.rating)].sort((a, b) => b - a));
  });
});

describe('recipes site over HTTP', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('shows tabs, a servings scaler and the promo on a recipe page', async () => {
    const r = data.recipes[0];
    const page = await new HttpSession(server.url).get(`/recipes/r/${r.id}`);
    expect(page.text).toContain('role="tab"');
    expect(page.text).toContain('aria-label="Increase servings"');
    expect(page.text).toContain('data-modal="promo"');
    expect(page.text).toContain(`data-base="${r.servings}"`);
  });

  it('needs a name for a new collection, then saves there', async () => {
    const s = new HttpSession(server.url);
    const r = data.recipes[5];
    const bad = await s.post('/recipes/save', { recipe: r.id, collection: '__new', newName: '  ' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a name for the new collection.');
    await s.post('/recipes/save', { recipe: r.id, collection: '__new', newName: 'Date night' });
    await s.post('/recipes/save', { recipe: r.id, collection: 'Favorites' });
    const state = await s.state<RecipesState>('recipes');
    expect(state.collections['Date night']).toEqual([r.id]);
    expect(state.collections.Favorites).toEqual([r.id]);
  });

  it('adds checked ingredients to the list at the scaled amount', async () => {
    const s = new HttpSession(server.url);
    const r = data.recipes.find((x) => x.servings === 4)!;
    const [a, b] = r.ingredients;
    await s.post('/recipes/list/add', { recipe: r.id, servings: '8', item: [a.name, b.name] });
    const state = await s.state<RecipesState>('recipes');
    expect(state.shoppingList.map((x) => x.ingredient)).toEqual([a.name, b.name]);
    expect(state.shoppingList[0].qty).toBeCloseTo(a.qty * 2, 6);
    const list = await s.get('/recipes/shopping-list');
    expect(list.text).toContain(ingredientText(a, 2));
  });

  it('has at least 200 raw queries grounded in its templates', () => {
    const qs = recipes.rawQueries(new Rng(1));
    const ids = new Set(recipes.templates.map((t) => t.id));
    expect(qs.length).toBeGreaterThanOrEqual(200);
    expect(qs.every((q) => ids.has(q.grounding.template))).toBe(true);
  });
});

describe('recipes reference solvers in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('solves a sampled task of every template', async () => {
    const tasks = sampleByTemplate(h.tasks({ site: 'recipes' }), 1, 'recipes-ci');
    expect(new Set(tasks.map((t) => t.category)).size).toBe(recipes.templates.length);
    const runs = [];
    for (const t of tasks) runs.push(await h.solve(t));
    expect(runs.filter((r) => !r.verdict.success).map(describeRun)).toEqual([]);
    for (const r of runs)
      expect(Math.abs(r.actions - (r.task.referenceLength ?? 0)), describeRun(r)).toBeLessThanOrEqual(3);
  }, 180_000);
});
