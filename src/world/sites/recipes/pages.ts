import { esc } from '../../../core/text.ts';
import { pageParam, queryParam, queryString } from '../../form.ts';
import type { SiteRequest } from '../../site.ts';
import { pagination } from '../../ui/html.ts';
import {
  cuisineName,
  DIETS,
  type Diet,
  ingredientText,
  MEASURES,
  type Recipe,
  type RecipesData,
} from './data.ts';
import { recipeCard, recipesPage, stars } from './layout.ts';
import {
  RECIPE_PAGE_SIZE,
  RECIPE_SORTS,
  type RecipeQuery,
  type RecipeSort,
  searchRecipes,
  TIME_LIMITS,
} from './listing.ts';
import type { RecipesState } from './state.ts';

const DIET_LABELS: Record<Diet, string> = {
  vegetarian: 'Vegetarian',
  vegan: 'Vegan',
  'gluten-free': 'Gluten-free',
  'dairy-free': 'Dairy-free',
};
export const RATING_CHOICES: Array<[string, string]> = [
  ['', 'Any rating'],
  ['4.5', '4.5 stars & up'],
  ['4', '4 stars & up'],
  ['3.5', '3.5 stars & up'],
];

export function homePage(req: SiteRequest, state: RecipesState, data: RecipesData): string {
  const tiles = data.cuisines
    .map((c) => `<a class="card" href="${req.base}/search?cuisine=${c.id}">${esc(c.name)}</a>`)
    .join('');
  const quick = searchRecipes(data, { maxTime: 30, sort: 'rating' }).slice(0, 4);
  const top = searchRecipes(data, { sort: 'reviews' }).slice(0, 4);
  const body = `<h1>What are we cooking tonight?</h1><p class="muted">${data.recipes.length} tested recipes from ${data.cuisines.length} cuisines.</p>
<h2>Browse by cuisine</h2><div class="grid">${tiles}</div>
<h2>Quick weeknight dinners</h2><div class="grid">${quick.map((r) => recipeCard(req, data, r)).join('')}</div>
<h2>Reader favorites</h2><div class="grid">${top.map((r) => recipeCard(req, data, r)).join('')}</div>
<p><a href="${req.base}/search">Browse all recipes</a></p>`;
  return recipesPage(req, state, { title: 'Recipes', body });
}

export function recipeQueryOf(req: SiteRequest): RecipeQuery {
  const maxTime = Number(queryParam(req, 'maxtime'));
  const minRating = Number(queryParam(req, 'rating'));
  return {
    q: queryParam(req, 'q') || undefined,
    cuisine: queryParam(req, 'cuisine') || undefined,
    diets: req.query.getAll('diet').filter((d): d is Diet => (DIETS as readonly string[]).includes(d)),
    maxTime: queryParam(req, 'maxtime') && maxTime > 0 ? maxTime : undefined,
    minRating: queryParam(req, 'rating') && minRating > 0 ? minRating : undefined,
    sort: (RECIPE_SORTS.find((s) => s.id === queryParam(req, 'sort'))?.id ?? 'relevance') as RecipeSort,
  };
}

/** Search results with a filter sidebar; 12 recipes a page (unperturbed). */
export function searchPage(req: SiteRequest, state: RecipesState, data: RecipesData): string {
  const q = recipeQueryOf(req);
  const found = searchRecipes(data, q);
  // A visit's perturbation moves results under "Best match" only: an explicit sort is exact.
  const listing = `recipes:${q.q ?? ''}:${q.cuisine ?? ''}`;
  const items = q.sort === 'relevance' ? req.perturb.jitter(found, listing) : found;
  const size = req.perturb.pageSize(RECIPE_PAGE_SIZE, 'recipes');
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = pageParam(req, pages);
  const keep = {
    q: q.q,
    cuisine: q.cuisine,
    diet: q.diets,
    maxtime: q.maxTime,
    rating: queryParam(req, 'rating'),
    sort: q.sort === 'relevance' ? '' : q.sort,
  };
  const opt = (v: string, l: string, cur: string | undefined) =>
    `<option value="${esc(v)}"${v === (cur ?? '') ? ' selected' : ''}>${esc(l)}</option>`;
  const filters = `<aside><form method="get" action="${req.base}/search">${q.q ? `<input type="hidden" name="q" value="${esc(q.q)}">` : ''}
<div class="field"><label for="cuisine">Cuisine</label><select id="cuisine" name="cuisine">${opt('', 'All cuisines', q.cuisine)}${data.cuisines.map((c) => opt(c.id, c.name, q.cuisine)).join('')}</select></div>
<fieldset class="field"><legend>Diet</legend>${DIETS.map((d) => `<div><input type="checkbox" id="diet-${d}" name="diet" value="${d}"${q.diets?.includes(d) ? ' checked' : ''}> <label for="diet-${d}" style="display:inline">${DIET_LABELS[d]}</label></div>`).join('')}</fieldset>
<div class="field"><label for="maxtime">Total time</label><select id="maxtime" name="maxtime">${opt('', 'Any time', String(q.maxTime ?? ''))}${TIME_LIMITS.map((t) => opt(String(t), `${t} minutes or less`, String(q.maxTime ?? ''))).join('')}</select></div>
<div class="field"><label for="rating">Rating</label><select id="rating" name="rating">${RATING_CHOICES.map(([v, l]) => opt(v, l, queryParam(req, 'rating'))).join('')}</select></div>
<div class="field"><label for="sort">Sort by</label><select id="sort" name="sort">${RECIPE_SORTS.map((s) => opt(s.id, s.label, q.sort)).join('')}</select></div>
<button class="btn" type="submit">Apply</button></form></aside>`;
  const shown = items.slice((p - 1) * size, p * size);
  const title = q.q
    ? `Recipes for "${q.q}"`
    : q.cuisine
      ? `${cuisineName(data, q.cuisine)} recipes`
      : 'All recipes';
  const body = `<h1>${esc(title)}</h1><div class="sidebar">${filters}<section><p class="muted" role="status">${items.length} ${items.length === 1 ? 'recipe' : 'recipes'}</p>
${shown.length ? `<div class="grid">${shown.map((r) => recipeCard(req, data, r)).join('')}</div>` : '<p>No recipes match. Try fewer filters.</p>'}
${pagination(p, pages, (x) => `${req.base}/search${queryString({ ...keep, page: x === 1 ? '' : x })}`)}</section></div>`;
  return recipesPage(req, state, { title, body, q: q.q });
}

// Scales the ingredient labels and the hidden servings field in the browser, as recipe sites do.
const SCALER_JS = `(function(){
var F=[[0,''],[0.125,'1/8'],[0.25,'1/4'],[1/3,'1/3'],[0.5,'1/2'],[2/3,'2/3'],[0.75,'3/4'],[1,'']];
function fmt(q){var w=Math.floor(q+1e-9),f=q-w,b=F[0];F.forEach(function(x){if(Math.abs(f-x[0])<Math.abs(f-b[0]))b=x;});if(b[0]===1)w+=1;if(!b[1])return String(w);return w?w+' '+b[1]:b[1];}
var box=document.getElementById('servings-count');if(!box)return;var base=Number(box.getAttribute('data-base'));
function render(s){box.textContent=String(s);document.getElementById('servings-field').value=String(s);
document.querySelectorAll('[data-qty]').forEach(function(el){var q=Number(el.getAttribute('data-qty'))*s/base;var u=q>1?el.getAttribute('data-units'):el.getAttribute('data-unit');
el.textContent=fmt(q)+(u?' '+u:'')+(el.getAttribute('data-measure')==='1'||!u?' '+el.getAttribute('data-name'):'');});}
document.querySelectorAll('[data-servings]').forEach(function(b){b.addEventListener('click',function(){var s=Number(box.textContent)+Number(b.getAttribute('data-servings'));render(Math.max(1,Math.min(24,s)));});});
render(Number(box.textContent));})();`;

/** A recipe: facts, save-to-collection, tabs (Ingredients with servings scaler, Steps, Reviews). */
export function recipePage(
  req: SiteRequest,
  state: RecipesState,
  data: RecipesData,
  r: Recipe,
  o: { saveError?: string } = {},
): string {
  const saved = queryParam(req, 'saved');
  const added = queryParam(req, 'added');
  const startServings = Math.max(1, Math.min(24, Number(queryParam(req, 'servings')) || r.servings));
  const collections = Object.keys(state.collections);
  const saveBox = `<form class="save-box" method="post" action="${req.base}/save"><input type="hidden" name="recipe" value="${esc(r.id)}">
<div class="field"><label for="collection">Save to collection</label><select id="collection" name="collection">${collections.map((c) => `<option>${esc(c)}</option>`).join('')}<option value="__new">New collection…</option></select></div>
<div class="field${o.saveError ? ' invalid' : ''}"><label for="new-collection">New collection name</label><input id="new-collection" name="newName" placeholder="Only for a new collection">${o.saveError ? `<div class="error">${esc(o.saveError)}</div>` : ''}</div>
<button class="btn" type="submit">Save recipe</button></form>`;
  const ings = r.ingredients
    .map((i, k) => {
      const measure = MEASURES.has(i.unit) ? '1' : '0';
      return `<li><input type="checkbox" id="ing-${k}" name="item" value="${esc(i.name)}"> <label for="ing-${k}" style="display:inline" data-qty="${i.qty}" data-unit="${esc(i.unit)}" data-units="${esc(i.units)}" data-name="${esc(i.name)}" data-measure="${measure}">${esc(ingredientText(i, startServings / r.servings))}</label></li>`;
    })
    .join('');
  const ingredientsPanel = `<div class="scaler"><button type="button" data-servings="-1" aria-label="Decrease servings">−</button><span><span id="servings-count" data-base="${r.servings}">${startServings}</span> servings</span><button type="button" data-servings="1" aria-label="Increase servings">+</button></div>
<form method="post" action="${req.base}/list/add"><input type="hidden" name="recipe" value="${esc(r.id)}"><input type="hidden" id="servings-field" name="servings" value="${startServings}">
<ul class="ing-list">${ings}</ul><button class="btn btn-secondary" type="submit">Add selected to shopping list</button></form>`;
  const steps = `<ol>${r.steps.map((s) => `<li>${esc(s)}</li>`).join('')}</ol>`;
  const reviews = r.reviews.length
    ? r.reviews
        .map(
          (v) =>
            `<article class="card" style="margin-bottom:8px"><strong>${esc(v.author)}</strong> ${stars(v.rating)} <span class="muted">${esc(v.date)}</span><p>${esc(v.text)}</p></article>`,
        )
        .join('')
    : '<p>No reviews yet. Be the first to review.</p>';
  const body = `<nav class="muted"><a href="${req.base}/">Home</a> › <a href="${req.base}/search?cuisine=${r.cuisine}">${esc(cuisineName(data, r.cuisine))}</a></nav>
${saved ? `<div class="notice" role="status">Saved to ${esc(saved)}. <a href="${req.base}/collections/${encodeURIComponent(saved)}">View collection</a></div>` : ''}
${added ? `<div class="notice" role="status">Added ${esc(added)} ${added === '1' ? 'item' : 'items'} to your shopping list. <a href="${req.base}/shopping-list">View list</a></div>` : ''}
<h1>${esc(r.name)}</h1><div>${stars(r.rating)} <span class="muted">(${r.reviewCount.toLocaleString('en-US')} ratings) · by ${esc(r.author)} · ${esc(r.published)}</span></div>
<p>${esc(r.description)}</p>
<div class="facts"><div>Prep<strong>${r.prepMin} min</strong></div><div>Cook<strong>${r.cookMin} min</strong></div><div>Total<strong>${r.totalMin} min</strong></div><div>Servings<strong>${r.servings}</strong></div><div>Calories<strong>${r.calories} per serving</strong></div></div>
<div>${r.diets.map((d) => `<span class="badge">${esc(DIET_LABELS[d])}</span>`).join(' ')}</div>
${saveBox}
<div class="tabs" role="tablist"><button role="tab" aria-selected="true" aria-controls="tab-ingredients">Ingredients</button><button role="tab" aria-selected="false" aria-controls="tab-steps">Steps</button><button role="tab" aria-selected="false" aria-controls="tab-reviews">Reviews</button></div>
<div id="tab-ingredients" role="tabpanel">${ingredientsPanel}</div>
<div id="tab-steps" role="tabpanel" class="hidden">${steps}</div>
<div id="tab-reviews" role="tabpanel" class="hidden">${reviews}</div>`;
  return recipesPage(req, state, { title: r.name, body, promo: true, scripts: SCALER_JS });
}

export function collectionsPage(req: SiteRequest, state: RecipesState): string {
  const rows = Object.entries(state.collections)
    .map(
      ([name, ids]) =>
        `<li><a href="${req.base}/collections/${encodeURIComponent(name)}">${esc(name)}</a> <span class="muted">(${ids.length} ${ids.length === 1 ? 'recipe' : 'recipes'})</span></li>`,
    )
    .join('');
  return recipesPage(req, state, {
    title: 'Collections',
    body: `<h1>Your collections</h1><ul>${rows}</ul><p class="muted">Save recipes from any recipe page.</p>`,
  });
}

export function collectionPage(
  req: SiteRequest,
  state: RecipesState,
  data: RecipesData,
  name: string,
): string {
  const ids = state.collections[name] ?? [];
  const rows = ids
    .map((id) => {
      const r = data.byId.get(id);
      return r
        ? `<li class="row"><a href="${req.base}/r/${esc(id)}">${esc(r.name)}</a><form method="post" action="${req.base}/collections/remove"><input type="hidden" name="collection" value="${esc(name)}"><input type="hidden" name="recipe" value="${esc(id)}"><button class="link-btn" type="submit" aria-label="Remove ${esc(r.name)}">Remove</button></form></li>`
        : '';
    })
    .join('');
  return recipesPage(req, state, {
    title: name,
    body: `<h1>${esc(name)}</h1>${ids.length ? `<ul>${rows}</ul>` : '<p>No recipes saved here yet.</p>'}<p><a href="${req.base}/collections">All collections</a></p>`,
  });
}

export function shoppingListPage(req: SiteRequest, state: RecipesState, data: RecipesData): string {
  const groups = new Map<string, string[]>();
  state.shoppingList.forEach((item, k) => {
    const li = `<li class="row">${esc(item.text)}<form method="post" action="${req.base}/list/remove"><input type="hidden" name="index" value="${k}"><button class="link-btn" type="submit" aria-label="Remove ${esc(item.ingredient)}">Remove</button></form></li>`;
    groups.set(item.recipeId, [...(groups.get(item.recipeId) ?? []), li]);
  });
  const sections = [...groups]
    .map(([id, lis]) => `<h2>${esc(data.byId.get(id)?.name ?? id)}</h2><ul>${lis.join('')}</ul>`)
    .join('');
  const body = `<h1>Shopping list</h1>${sections || '<p>Your list is empty. Add ingredients from a recipe page.</p>'}
${state.shoppingList.length ? `<form method="post" action="${req.base}/list/clear"><button class="btn btn-secondary" type="submit">Clear list</button></form>` : ''}`;
  return recipesPage(req, state, { title: 'Shopping list', body });
}
