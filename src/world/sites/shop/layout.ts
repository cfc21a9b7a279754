import { esc } from '../../../core/text.ts';
import type { SiteRequest } from '../../site.ts';
import { money, page } from '../../ui/html.ts';
import type { Product, ShopData } from './data.ts';
import type { ShopState } from './state.ts';

export const SHOP_BRAND = 'Northwind Outfitters';

const SHOP_CSS = `<style>
.search-form{display:flex;gap:6px;margin-left:auto}.search-form .ac-wrap input{width:280px}
.card h3 a,.hotel h3 a{display:block}.card .meta{font-size:13px;color:#6b7280}.card .actions{margin-top:8px}.strike{text-decoration:line-through;color:#6b7280;font-weight:400;margin-left:6px}
.stock-in{color:#15803d}.stock-out{color:#b91c1c}.pdp{display:grid;grid-template-columns:1fr 1fr;gap:24px}.pdp .img{background:#e9edf3;border-radius:10px;min-height:300px;display:flex;align-items:center;justify-content:center;color:#6b7280}
.fbt{margin-top:24px;background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:14px}.summary{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:14px}
.two-col{display:grid;grid-template-columns:2fr 1fr;gap:20px}.cat-tiles{display:grid;grid-template-columns:repeat(4,1fr);gap:12px}
.hero{background:linear-gradient(90deg,#0f3d3e,#1f6f66);color:#fff;padding:28px;border-radius:10px;margin-bottom:20px}.hero a{color:#fff}
</style>`;

/** Renders a shop page: header with search (autocomplete) and cart count, cookie banner, promo modal. */
export function shopPage(
  req: SiteRequest,
  state: ShopState,
  o: { title: string; body: string; searchValue?: string },
): string {
  const count = state.cart.reduce((s, l) => s + l.qty, 0);
  const search = `<form class="search-form" method="get" action="${req.base}/search" role="search">
<div class="ac-wrap"><input type="search" name="q" value="${esc(o.searchValue ?? '')}" aria-label="Search products" placeholder="Search products, brands..." data-autocomplete="${req.base}/api/suggest?q=" data-target="search-pick" autocomplete="off"></div>
<input type="hidden" id="search-pick" value=""><button class="btn" type="submit">Search</button></form>`;
  return page({
    title: `${o.title} | ${SHOP_BRAND}`,
    base: req.base,
    brand: SHOP_BRAND,
    accent: '#1f6f66',
    head: SHOP_CSS,
    nav: [
      { href: `${req.base}/categories`, label: 'Categories' },
      { href: `${req.base}/deals`, label: 'Deals' },
      { href: `${req.base}/orders`, label: 'Orders' },
      { href: `${req.base}/wishlist`, label: `Wishlist (${state.wishlist.length})` },
      { href: `${req.base}/cart`, label: `Cart (${count})` },
    ],
    headerExtra: search,
    body: o.body,
    cookieBanner: !req.ui.consent,
    promo:
      !req.ui.promoSeen && !state.newsletter
        ? {
            title: 'Get 10% off your first order',
            text: 'Join the Northwind list for early access to sales. Use code SAVE10 at checkout.',
          }
        : null,
    // Choosing a suggestion opens that product right away, as store search boxes do.
    scripts: `(function(){var h=document.getElementById('search-pick');var i=document.querySelector('input[data-target=search-pick]');if(h&&i){i.addEventListener('change',function(){if(h.value){location.href='${req.base}/p/'+encodeURIComponent(h.value);}});}})();`,
  });
}

export function stars(rating: number): string {
  return `<span class="rating" aria-label="Rated ${rating.toFixed(1)} out of 5">${'★'.repeat(Math.round(rating))}${'☆'.repeat(5 - Math.round(rating))} ${rating.toFixed(1)}</span>`;
}

export function priceHtml(p: Product): string {
  return `<span class="price">${money(p.price)}</span>${p.listPrice ? `<span class="strike">${money(p.listPrice)}</span>` : ''}`;
}

/** One product card in a grid. */
export function productCard(req: SiteRequest, data: ShopData, p: Product): string {
  const cat = data.categories.find((c) => c.id === p.category)?.name ?? '';
  return `<div class="card"><h3><a href="${req.base}/p/${esc(p.id)}">${esc(p.name)}</a></h3>
<div class="meta">${esc(cat)} · ${esc(p.brand)}</div>
<div>${priceHtml(p)}</div>
<div>${stars(p.rating)} <span class="muted">(${p.reviewCount.toLocaleString('en-US')})</span></div>
<div class="${p.inStock ? 'stock-in' : 'stock-out'}">${p.inStock ? 'In stock' : 'Out of stock'}</div></div>`;
}

export function errorPage(req: SiteRequest, state: ShopState, title: string, text: string): string {
  return shopPage(req, state, {
    title,
    body: `<h1>${esc(title)}</h1><p>${esc(text)}</p><p><a href="${req.base}/">Back to the shop</a></p>`,
  });
}
