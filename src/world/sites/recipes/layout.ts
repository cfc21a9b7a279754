import { esc } from '../../../core/text.ts';
import type { SiteRequest } from '../../site.ts';
import { page } from '../../ui/html.ts';
import { cuisineName, type Recipe, type RecipesData } from './data.ts';
import type { RecipesState } from './state.ts';

export const RECIPES_BRAND = 'Simmer';

const RECIPES_CSS = `<style>
.search-form{display:flex;gap:6px;margin-left:auto}.search-form input{width:260px}
.card h3 a,.hotel h3 a{display:block}.recipe-card .meta{font-size:13px;color:#6b7280}.facts{display:flex;gap:18px;flex-wrap:wrap;background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:10px 14px;margin:12px 0}
.facts div{font-size:13px;color:#6b7280}.facts strong{display:block;font-size:16px;color:#1d2330}.scaler{display:flex;gap:10px;align-items:center;margin-bottom:10px}
.scaler button{width:32px;height:32px;border-radius:16px;border:1px solid #c9ced6;background:#fff;font-size:18px;cursor:pointer}.ing-list{list-style:none;padding:0}.ing-list li{padding:4px 0}
.save-box{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:12px;margin:12px 0;display:flex;gap:12px;align-items:end;flex-wrap:wrap}
</style>`;

/** Renders a recipes page: search in the header, cookie banner, and the newsletter promo where asked. */
export function recipesPage(
  req: SiteRequest,
  state: RecipesState,
  o: { title: string; body: string; promo?: boolean; scripts?: string; q?: string },
): string {
  const search = `<form class="search-form" method="get" action="${req.base}/search" role="search"><input type="search" name="q" value="${esc(o.q ?? '')}" aria-label="Search recipes" placeholder="Search recipes or ingredients"><button class="btn" type="submit">Search</button></form>`;
  return page({
    title: `${o.title} | ${RECIPES_BRAND}`,
    base: req.base,
    brand: RECIPES_BRAND,
    accent: '#c2410c',
    head: RECIPES_CSS,
    nav: [
      { href: `${req.base}/search`, label: 'Recipes' },
      { href: `${req.base}/collections`, label: 'Collections' },
      { href: `${req.base}/shopping-list`, label: `Shopping list (${state.shoppingList.length})` },
    ],
    headerExtra: search,
    body: o.body,
    cookieBanner: !req.ui.consent,
    promo:
      o.promo && !req.ui.promoSeen && !state.newsletter
        ? { title: 'Dinner, sorted', text: 'Get five free weeknight meal plans in your inbox every Sunday.' }
        : null,
    scripts: o.scripts,
  });
}

export function stars(r: number): string {
  return `<span class="rating" aria-label="Rated ${r.toFixed(1)} out of 5">★ ${r.toFixed(1)}</span>`;
}

/** One recipe in a results grid. */
export function recipeCard(req: SiteRequest, data: RecipesData, r: Recipe): string {
  return `<div class="card recipe-card"><h3><a href="${req.base}/r/${esc(r.id)}">${esc(r.name)}</a></h3>
<div class="meta">${esc(cuisineName(data, r.cuisine))} · ${r.totalMin} min · ${r.calories} kcal</div>
<div>${stars(r.rating)} <span class="muted">(${r.reviewCount.toLocaleString('en-US')})</span></div>
<div>${r.diets.map((d) => `<span class="badge">${esc(d)}</span>`).join(' ')}</div></div>`;
}

export function notFoundPage(req: SiteRequest, state: RecipesState, text: string): string {
  return recipesPage(req, state, {
    title: 'Not found',
    body: `<h1>Page not found</h1><p>${esc(text)}</p><p><a href="${req.base}/">Back to recipes</a></p>`,
  });
}
