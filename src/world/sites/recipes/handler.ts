import { formField, formFields } from '../../form.ts';
import type { SiteRequest, SiteResponse } from '../../site.ts';
import { ingredientText, type RecipesData } from './data.ts';
import { notFoundPage, recipesPage } from './layout.ts';
import {
  collectionPage,
  collectionsPage,
  homePage,
  recipePage,
  searchPage,
  shoppingListPage,
} from './pages.ts';
import { findCollection, type RecipesState } from './state.ts';

/** Routes one request of the recipes site. */
export function handleRecipes(req: SiteRequest, state: RecipesState, data: RecipesData): SiteResponse {
  const parts = req.path.split('/').filter(Boolean).map(decodeURIComponent);
  const [head, arg] = parts;
  if (req.method === 'POST') return handlePost(req, state, data, parts.join('/'));
  switch (head) {
    case undefined:
      return { html: homePage(req, state, data) };
    case 'search':
      return { html: searchPage(req, state, data) };
    case 'r': {
      const r = data.byId.get(arg ?? '');
      return r
        ? { html: recipePage(req, state, data, r) }
        : { status: 404, html: notFoundPage(req, state, 'That recipe does not exist.') };
    }
    case 'collections': {
      if (!arg) return { html: collectionsPage(req, state) };
      const name = findCollection(state, arg);
      return name
        ? { html: collectionPage(req, state, data, name) }
        : { status: 404, html: notFoundPage(req, state, `No collection named "${arg}".`) };
    }
    case 'shopping-list':
      return { html: shoppingListPage(req, state, data) };
    case 'help':
    case 'privacy':
      return {
        html: recipesPage(req, state, {
          title: head,
          body: `<h1>${head === 'help' ? 'Help' : 'Privacy'}</h1><p>Save recipes to collections and build a shopping list from any recipe.</p>`,
        }),
      };
    default:
      return { status: 404, html: notFoundPage(req, state, `No page at ${req.path}.`) };
  }
}

function handlePost(req: SiteRequest, state: RecipesState, data: RecipesData, route: string): SiteResponse {
  const b = req.base;
  const r = data.byId.get(formField(req, 'recipe'));
  switch (route) {
    case 'save': {
      if (!r) return { status: 404, html: notFoundPage(req, state, 'That recipe does not exist.') };
      const chosen = formField(req, 'collection');
      let name: string | undefined;
      if (chosen === '__new') {
        const raw = formField(req, 'newName').replace(/\s+/g, ' ');
        if (!raw)
          return {
            status: 400,
            html: recipePage(req, state, data, r, { saveError: 'Enter a name for the new collection.' }),
          };
        name = findCollection(state, raw) ?? raw;
        state.collections[name] ??= [];
      } else {
        name = findCollection(state, chosen);
        if (!name)
          return {
            status: 400,
            html: recipePage(req, state, data, r, { saveError: 'Choose a collection.' }),
          };
      }
      if (!state.collections[name].includes(r.id)) state.collections[name].push(r.id);
      return { redirect: `${b}/r/${r.id}?saved=${encodeURIComponent(name)}` };
    }
    case 'collections/remove': {
      const name = findCollection(state, formField(req, 'collection'));
      if (name)
        state.collections[name] = state.collections[name].filter((id) => id !== formField(req, 'recipe'));
      return { redirect: `${b}/collections/${encodeURIComponent(name ?? '')}` };
    }
    case 'list/add': {
      if (!r) return { status: 404, html: notFoundPage(req, state, 'That recipe does not exist.') };
      const servings = Math.max(1, Math.min(24, Number(formField(req, 'servings')) || r.servings));
      const picked = formFields(req, 'item');
      let n = 0;
      for (const name of picked) {
        const ing = r.ingredients.find((i) => i.name === name);
        if (!ing) continue;
        const factor = servings / r.servings;
        const existing = state.shoppingList.find((x) => x.recipeId === r.id && x.ingredient === name);
        const item = {
          recipeId: r.id,
          ingredient: name,
          qty: ing.qty * factor,
          servings,
          text: ingredientText(ing, factor),
        };
        if (existing) Object.assign(existing, item);
        else state.shoppingList.push(item);
        n++;
      }
      if (!n) return { status: 400, html: recipePage(req, state, data, r) };
      return { redirect: `${b}/r/${r.id}?added=${n}&servings=${servings}` };
    }
    case 'list/remove': {
      const i = Number(formField(req, 'index'));
      if (Number.isInteger(i) && i >= 0 && i < state.shoppingList.length) state.shoppingList.splice(i, 1);
      return { redirect: `${b}/shopping-list` };
    }
    case 'list/clear':
      state.shoppingList = [];
      return { redirect: `${b}/shopping-list` };
    case '__promo':
      state.newsletter = formField(req, 'email') || 'subscribed';
      return {
        html: recipesPage(req, state, {
          title: 'Subscribed',
          body: `<h1>You're subscribed</h1><p><a href="${b}/">Back to recipes</a></p>`,
        }),
      };
    default:
      return { status: 404, html: notFoundPage(req, state, `No action at ${req.path}.`) };
  }
}
