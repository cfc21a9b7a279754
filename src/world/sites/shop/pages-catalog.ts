import { esc } from '../../../core/text.ts';
import { queryNumber, queryParam, queryString } from '../../form.ts';
import type { SiteRequest } from '../../site.ts';
import { money, pagination } from '../../ui/html.ts';
import {
  brandsOf,
  type ListingQuery,
  listProducts,
  PAGE_SIZE,
  RATING_FILTERS,
  SHOP_SORTS,
  type ShopSort,
} from './catalog.ts';
import { lookalikesOf, type Product, reviewsOf, type ShopData } from './data.ts';
import { priceHtml, productCard, shopPage, stars } from './layout.ts';
import type { ShopState } from './state.ts';

export function homePage(req: SiteRequest, state: ShopState, data: ShopData): string {
  const tiles = data.categories
    .map((c) => `<a class="card" href="${req.base}/c/${c.id}">${esc(c.name)}</a>`)
    .join('');
  const deals = data.products.filter((p) => p.listPrice && p.inStock).slice(0, 4);
  const fresh = data.products
    .slice()
    .sort((a, b) => b.added.localeCompare(a.added))
    .slice(0, 4);
  const body = `<section class="hero"><h1>Gear for every trail and every day</h1><p>Free standard shipping on orders over $75. New arrivals every week.</p><a href="${req.base}/deals">Shop the deals</a></section>
<h2>Shop by category</h2><div class="cat-tiles">${tiles}</div>
<h2>Today's deals</h2><div class="grid">${deals.map((p) => productCard(req, data, p)).join('')}</div>
<h2>New arrivals</h2><div class="grid">${fresh.map((p) => productCard(req, data, p)).join('')}</div>`;
  return shopPage(req, state, { title: 'Home', body });
}

export function categoriesPage(req: SiteRequest, state: ShopState, data: ShopData): string {
  const rows = data.categories
    .map((c) => {
      const n = data.products.filter((p) => p.category === c.id).length;
      return `<li><a href="${req.base}/c/${c.id}">${esc(c.name)}</a> <span class="muted">(${n} products)</span></li>`;
    })
    .join('');
  return shopPage(req, state, { title: 'All categories', body: `<h1>All categories</h1><ul>${rows}</ul>` });
}

/** Reads the listing filters from the query string. */
export function listingQuery(req: SiteRequest): ListingQuery {
  const sortRaw = queryParam(req, 'sort');
  const sort = (SHOP_SORTS.find((s) => s.id === sortRaw)?.id ?? 'featured') as ShopSort;
  return {
    q: queryParam(req, 'q') || undefined,
    brands: req.query.getAll('brand').filter(Boolean),
    minPrice: queryNumber(req, 'min'),
    maxPrice: queryNumber(req, 'max'),
    minRating: queryNumber(req, 'rating'),
    inStockOnly: queryParam(req, 'stock') === '1',
    sort,
  };
}

/** Search results, a category page or the deals page: filters in a sidebar, 12 products a page (unperturbed). */
export function listingPage(
  req: SiteRequest,
  state: ShopState,
  data: ShopData,
  o: { title: string; category?: string; dealsOnly?: boolean },
): string {
  const lq = { ...listingQuery(req), category: o.category };
  let items = listProducts(data, lq);
  if (o.dealsOnly) items = items.filter((p) => p.listPrice);
  // A visit's perturbation moves items under the default sort only: an explicit sort is exact.
  const listing = `shop:${req.path}:${lq.q ?? ''}`;
  if (lq.sort === 'featured') items = req.perturb.jitter(items, listing);
  const size = req.perturb.pageSize(PAGE_SIZE, 'shop');
  const pages = Math.max(1, Math.ceil(items.length / size));
  const pageNo = Math.min(pages, Math.max(1, Math.floor(queryNumber(req, 'page') ?? 1)));
  const shown = items.slice((pageNo - 1) * size, pageNo * size);
  const brandPool = lq.q
    ? [...new Set(listProducts(data, { q: lq.q, category: o.category }).map((p) => p.brand))].sort()
    : brandsOf(data, o.category);
  const keep = {
    q: lq.q,
    brand: lq.brands,
    min: queryParam(req, 'min'),
    max: queryParam(req, 'max'),
    rating: queryParam(req, 'rating'),
    stock: lq.inStockOnly ? '1' : '',
    sort: lq.sort === 'featured' ? '' : lq.sort,
  };
  const path = req.path;
  const brandBoxes = brandPool
    .map((b, i) => {
      const id = `brand-${i}`;
      return `<div><input type="checkbox" id="${id}" name="brand" value="${esc(b)}"${lq.brands?.includes(b) ? ' checked' : ''}> <label for="${id}" style="display:inline">${esc(b)}</label></div>`;
    })
    .join('');
  const sortOptions = SHOP_SORTS.map(
    (s) => `<option value="${s.id}"${s.id === lq.sort ? ' selected' : ''}>${esc(s.label)}</option>`,
  ).join('');
  const ratingOptions = RATING_FILTERS.map(
    (r) => `<option value="${r.value}"${r.value === keep.rating ? ' selected' : ''}>${esc(r.label)}</option>`,
  ).join('');
  const filters = `<aside><form method="get" action="${req.base}${path}">
${lq.q ? `<input type="hidden" name="q" value="${esc(lq.q)}">` : ''}
<div class="field"><label for="sort">Sort by</label><select id="sort" name="sort" onchange="this.form.submit()">${sortOptions}</select></div>
<fieldset class="field"><legend>Brand</legend>${brandBoxes}</fieldset>
<div class="field"><label for="min">Min price ($)</label><input id="min" name="min" type="number" min="0" value="${esc(keep.min)}" style="width:100px"></div>
<div class="field"><label for="max">Max price ($)</label><input id="max" name="max" type="number" min="0" value="${esc(keep.max)}" style="width:100px"></div>
<div class="field"><label for="rating">Customer rating</label><select id="rating" name="rating">${ratingOptions}</select></div>
<div class="field"><input type="checkbox" id="stock" name="stock" value="1"${lq.inStockOnly ? ' checked' : ''}> <label for="stock" style="display:inline">In stock only</label></div>
<button class="btn" type="submit">Apply filters</button> <a href="${req.base}${path}${queryString({ q: lq.q })}">Clear all</a>
</form></aside>`;
  const from = items.length ? (pageNo - 1) * size + 1 : 0;
  const to = Math.min(items.length, pageNo * size);
  const grid = shown.length
    ? `<div class="grid">${shown.map((p) => productCard(req, data, p)).join('')}</div>`
    : `<p>No products match your filters. Try removing a filter.</p>`;
  const body = `<h1>${esc(o.title)}</h1><div class="sidebar">${filters}<section>
<p class="muted" role="status">Showing ${from}–${to} of ${items.length} results</p>${grid}
${pagination(pageNo, pages, (p) => `${req.base}${path}${queryString({ ...keep, page: p === 1 ? '' : p })}`)}
</section></div>`;
  return shopPage(req, state, { title: o.title, body, searchValue: lq.q });
}

/** The product page: variant selects, quantity, two "Add to cart" forms, tabs with reviews. */
export function productPage(
  req: SiteRequest,
  state: ShopState,
  data: ShopData,
  seed: number,
  p: Product,
  o: { error?: string; values?: { size?: string; color?: string; qty?: string } } = {},
): string {
  const cat = data.categories.find((c) => c.id === p.category);
  const v = o.values ?? {};
  const added = queryParam(req, 'added') === '1';
  const saved = state.wishlist.includes(p.id);
  const sizeField = p.sizes.length
    ? `<div class="field${o.error ? ' invalid' : ''}"><label for="size">Size</label><select id="size" name="size"><option value="">Select a size</option>${p.sizes
        .map((s) => {
          const out = p.soldOutSizes.includes(s);
          return `<option value="${esc(s)}"${out ? ' disabled' : ''}${v.size === s ? ' selected' : ''}>${esc(s)}${out ? ' (sold out)' : ''}</option>`;
        })
        .join('')}</select>${o.error ? `<div class="error">${esc(o.error)}</div>` : ''}</div>`
    : '';
  const colorField = `<div class="field"><label for="color">Color</label><select id="color" name="color">${p.colors
    .map((c) => `<option${(v.color ?? p.colors[0]) === c ? ' selected' : ''}>${esc(c)}</option>`)
    .join('')}</select></div>`;
  const buy = `<form method="post" action="${req.base}/cart/add">
<input type="hidden" name="id" value="${esc(p.id)}">${sizeField}${colorField}
<div class="field"><label for="qty">Quantity</label><input id="qty" name="qty" type="number" min="1" max="10" value="${esc(v.qty ?? '1')}" style="width:80px"></div>
<button class="btn" type="submit"${p.inStock ? '' : ' disabled'}>${p.inStock ? 'Add to cart' : 'Out of stock'}</button></form>
<form method="post" action="${req.base}/wishlist/${saved ? 'remove' : 'add'}" style="margin-top:8px"><input type="hidden" name="id" value="${esc(p.id)}">
<button class="btn btn-secondary" type="submit" aria-label="${saved ? 'Remove from wishlist' : 'Add to wishlist'}">${saved ? '♥ Saved' : '♡ Save'}</button></form>`;
  const fbt = p.fbt ? data.byId.get(p.fbt) : undefined;
  const fbtBox = fbt
    ? `<section class="fbt"><h2>Frequently bought together</h2><div class="row"><a href="${req.base}/p/${esc(fbt.id)}">${esc(fbt.name)}</a> ${priceHtml(fbt)}
<form method="post" action="${req.base}/cart/add"><input type="hidden" name="id" value="${esc(fbt.id)}"><input type="hidden" name="color" value="${esc(fbt.colors[0])}"><input type="hidden" name="qty" value="1"><button class="btn" type="submit">Add to cart</button></form></div></section>`
    : '';
  const reviews = reviewsOf(seed, p);
  const reviewList = reviews.length
    ? reviews
        .map(
          (r) =>
            `<article class="card" style="margin-bottom:8px"><strong>${esc(r.author)}</strong> ${stars(r.rating)} <span class="muted">${esc(r.date)}${r.verified ? ' · Verified purchase' : ''}</span><h3>${esc(r.title)}</h3><p>${esc(r.text)}</p></article>`,
        )
        .join('')
    : '<p>No reviews yet.</p>';
  const alsoViewed = [
    ...lookalikesOf(data, p),
    ...data.products.filter((o2) => o2.category === p.category && o2.family !== p.family).slice(0, 3),
  ]
    .map((o2) => `<li><a href="${req.base}/p/${esc(o2.id)}">${esc(o2.name)}</a> — ${money(o2.price)}</li>`)
    .join('');
  const body = `<nav class="muted"><a href="${req.base}/">Home</a> › <a href="${req.base}/c/${cat?.id}">${esc(cat?.name)}</a> › ${esc(p.name)}</nav>
${added ? `<div class="notice" role="status">Added to your cart. <a href="${req.base}/cart">View cart</a></div>` : ''}
<div class="pdp"><div class="img" aria-hidden="true">${esc(p.brand)}</div><div>
<h1>${esc(p.name)}</h1><div>by <a href="${req.base}/search${queryString({ q: p.brand })}">${esc(p.brand)}</a></div>
<div>${stars(p.rating)} <span class="muted">${p.reviewCount.toLocaleString('en-US')} reviews</span></div>
<p style="font-size:22px">${priceHtml(p)}</p>
<div class="${p.inStock ? 'stock-in' : 'stock-out'}">${p.inStock ? 'In stock — ships in 1-2 days' : 'Currently out of stock'}</div>
${buy}</div></div>
${fbtBox}
<div class="tabs" role="tablist" style="margin-top:24px"><button role="tab" aria-selected="true" aria-controls="tab-desc">Description</button><button role="tab" aria-selected="false" aria-controls="tab-specs">Specifications</button><button role="tab" aria-selected="false" aria-controls="tab-reviews">Reviews</button></div>
<div id="tab-desc" role="tabpanel"><p>${esc(p.description)}</p><ul>${p.features.map((f) => `<li>${esc(f)}</li>`).join('')}</ul></div>
<div id="tab-specs" role="tabpanel" class="hidden"><table><tr><th>Brand</th><td>${esc(p.brand)}</td></tr><tr><th>Model</th><td>${esc(p.model)}</td></tr><tr><th>Colors</th><td>${esc(p.colors.join(', '))}</td></tr>${p.sizes.length ? `<tr><th>Sizes</th><td>${esc(p.sizes.join(', '))}</td></tr>` : ''}<tr><th>Item number</th><td>${esc(p.id.toUpperCase())}</td></tr><tr><th>Date first available</th><td>${esc(p.added)}</td></tr></table></div>
<div id="tab-reviews" role="tabpanel" class="hidden"><p>Average rating ${p.rating.toFixed(1)} from ${p.reviewCount.toLocaleString('en-US')} ratings. Most recent reviews:</p>${reviewList}</div>
<h2>Customers also viewed</h2><ul>${alsoViewed}</ul>`;
  return shopPage(req, state, { title: p.name, body });
}
