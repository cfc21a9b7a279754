import { esc } from '../../../core/text.ts';
import { money, page, pagination } from '../../ui/html.ts';
import { addressLine, CITIES, FEATURES, HOME_TYPES, type HomesData, type Listing } from './data.ts';
import { BATH_OPTIONS, BED_OPTIONS, PRICE_STEPS, type SearchParams, SORTS, searchQuery } from './search.ts';
import type { HomesState } from './state.ts';

export const BRAND = 'Nestfind';
export const RESULTS_PER_PAGE = 12;

const HOMES_CSS = `<style>
.hero{background:linear-gradient(120deg,#0b7a5f,#1d4f91);color:#fff;border-radius:10px;padding:34px 28px;margin-bottom:20px}.hero label{color:#fff}
.home-card{display:flex;flex-direction:column;gap:6px}.card-link{text-decoration:none;color:#1d2330;display:block}.card-link .price{font-size:19px}
.facts{display:flex;gap:18px;flex-wrap:wrap;margin:8px 0 14px}.facts div{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:8px 12px}
.filters label{font-size:12px}.save-btn{align-self:flex-start}
</style>`;

export function layout(base: string, title: string, body: string, consent: boolean, scripts = ''): string {
  return page({
    title: `${title} | ${BRAND}`,
    base,
    brand: BRAND,
    accent: '#0b7a5f',
    head: HOMES_CSS,
    nav: [
      { href: `${base}/search`, label: 'Buy' },
      { href: `${base}/saved`, label: 'Saved homes' },
      { href: `${base}/tours`, label: 'Tour requests' },
    ],
    body,
    cookieBanner: !consent,
    scripts,
  });
}

function bedsText(l: Listing): string {
  return l.beds === 0 ? 'Studio' : `${l.beds} bd`;
}

/** One result card; the whole card is a link, the Save button sits outside it. */
export function listingCard(base: string, l: Listing, saved: boolean, returnTo: string): string {
  return `<div class="card home-card"><a class="card-link" href="${base}/home/${l.id}"><div class="price">${money(l.price).replace('.00', '')}</div>
<div>${bedsText(l)} | ${l.baths} ba | ${l.sqft.toLocaleString('en-US')} sqft</div><div><strong>${esc(addressLine(l))}</strong>, ${esc(l.city)}, ${l.state} ${l.zip}</div>
<div class="muted">${l.type} &middot; ${esc(l.neighborhood)} &middot; Listed ${esc(shortDay(l.listed))}</div></a>
<form method="post" action="${base}/home/${l.id}/save"><input type="hidden" name="return" value="${esc(returnTo)}"><button class="link-btn save-btn" type="submit" aria-label="${saved ? 'Unsave' : 'Save'} ${esc(addressLine(l))}">${saved ? '&#9829; Saved' : '&#9825; Save'}</button></form></div>`;
}

export function shortDay(iso: string): string {
  return new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

export function homePage(base: string, data: HomesData, state: HomesState): string {
  const newest = [...data.listings].sort((a, b) => (a.listed < b.listed ? 1 : -1)).slice(0, 6);
  return `<section class="hero"><h1>Find your next home</h1><form method="get" action="${base}/go" class="row">
<div class="ac-wrap" style="flex:1"><label for="where">City, neighborhood or address</label><input id="where" name="q" autocomplete="off" data-autocomplete="${base}/api/places?q=" data-target="place" placeholder="Try Denver or 410 Elm St" style="width:100%"><input type="hidden" id="place" name="place"></div>
<button class="btn" type="submit" style="align-self:end">Search</button></form></section>
<h2>Popular cities</h2><p class="row">${CITIES.map((c) => `<a href="${base}/search?city=${encodeURIComponent(c.name)}">${c.name}, ${c.state}</a>`).join(' ')}</p>
<h2>Just listed</h2><div class="grid">${newest.map((l) => listingCard(base, l, state.saved.includes(l.id), `${base}/`)).join('')}</div>`;
}

function options(values: Array<{ value: string; label: string }>, selected: string): string {
  return values
    .map(
      (o) =>
        `<option value="${esc(o.value)}"${o.value === selected ? ' selected' : ''}>${esc(o.label)}</option>`,
    )
    .join('');
}

/** "$400k", "$1.5M": how price caps read in the filter selects. */
export const priceLabel = (n: number) => (n >= 1_000_000 ? `$${n / 1_000_000}M` : `$${n / 1000}k`);

export function filtersForm(base: string, p: SearchParams): string {
  const city = CITIES.find((c) => c.name === p.city);
  const hoods = city
    ? [{ value: '', label: 'Any neighborhood' }, ...city.neighborhoods.map((h) => ({ value: h, label: h }))]
    : [{ value: '', label: 'Choose a location first' }];
  const prices = (any: string) => [
    { value: '', label: any },
    ...PRICE_STEPS.map((n) => ({ value: String(n), label: priceLabel(n) })),
  ];
  const sel = (
    id: string,
    name: string,
    label: string,
    opts: Array<{ value: string; label: string }>,
    v: string,
    extra = '',
  ) =>
    `<div><label for="${id}">${label}</label><select id="${id}" name="${name}"${extra}>${options(opts, v)}</select></div>`;
  return `<form method="get" action="${base}/search" class="toolbar filters">
<div><label for="f-q">Address, street or ZIP</label><input id="f-q" name="q" value="${esc(p.q)}" placeholder="e.g. 410 Elm St"></div>
${sel('f-city', 'city', 'Location', [{ value: '', label: 'All locations' }, ...CITIES.map((c) => ({ value: c.name, label: `${c.name}, ${c.state}` }))], p.city)}
${sel('f-hood', 'hood', 'Neighborhood', hoods, p.hood, city ? '' : ' disabled')}
${sel('f-min', 'min', 'Min price', prices('No min'), p.minPrice ? String(p.minPrice) : '')}
${sel('f-max', 'max', 'Max price', prices('No max'), p.maxPrice ? String(p.maxPrice) : '')}
${sel('f-beds', 'beds', 'Bedrooms', BED_OPTIONS, p.beds)}
${sel(
  'f-baths',
  'baths',
  'Bathrooms',
  BATH_OPTIONS.map((b) => ({ value: b, label: b || 'Any' })),
  p.baths,
)}
${sel('f-type', 'type', 'Home type', [{ value: '', label: 'Any type' }, ...HOME_TYPES.map((t) => ({ value: t, label: t }))], p.type)}
${sel('f-feature', 'feature', 'Must have', [{ value: '', label: 'Anything' }, ...FEATURES.map((f) => ({ value: f, label: f }))], p.feature)}
${sel('f-sort', 'sort', 'Sort by', SORTS, p.sort)}
<button class="btn" type="submit">Apply filters</button></form>`;
}

export function searchPage(
  base: string,
  p: SearchParams,
  results: Listing[],
  pageNo: number,
  state: HomesState,
  notice: string,
  perPage = RESULTS_PER_PAGE,
): string {
  const total = Math.max(1, Math.ceil(results.length / perPage));
  const cur = Math.min(pageNo, total);
  const slice = results.slice((cur - 1) * perPage, cur * perPage);
  const where = p.hood ? `${p.hood}, ${p.city}` : p.city || 'all locations';
  const returnTo = `${base}/search${searchQuery(p, cur)}`;
  return `<h1>Homes for sale in ${esc(where)}</h1>${notice ? `<div class="alert" role="status">${esc(notice)}</div>` : ''}${filtersForm(base, p)}
<p role="status"><strong>${results.length} ${results.length === 1 ? 'home' : 'homes'} for sale</strong>${results.length ? ` &middot; showing ${(cur - 1) * perPage + 1}-${(cur - 1) * perPage + slice.length}` : ''}</p>
${slice.length ? `<div class="grid">${slice.map((l) => listingCard(base, l, state.saved.includes(l.id), returnTo)).join('')}</div>` : '<p class="muted">No homes match these filters. Try removing some.</p>'}
${pagination(cur, total, (n) => `${base}/search${searchQuery(p, n)}`)}`;
}

export function savedPage(base: string, data: HomesData, state: HomesState): string {
  const homes = state.saved.map((id) => data.byId.get(id)).filter((l): l is Listing => !!l);
  return `<h1>Saved homes</h1>${homes.length ? `<div class="grid">${homes.map((l) => listingCard(base, l, true, `${base}/saved`)).join('')}</div>` : '<p class="muted">You have not saved any homes yet. Tap Save on a listing to keep it here.</p>'}`;
}

export function toursPage(base: string, data: HomesData, state: HomesState): string {
  const rows = state.tours
    .map((t) => {
      const l = data.byId.get(t.listingId);
      return `<tr><td><a href="${base}/home/${t.listingId}">${esc(l ? addressLine(l) : t.listingId)}</a></td><td>${esc(t.tourType)}</td><td>${esc(shortDay(t.date))}</td><td>${esc(t.time)}</td></tr>`;
    })
    .join('');
  return `<h1>Tour requests</h1>${rows ? `<table><tr><th>Home</th><th>Type</th><th>Date</th><th>Time</th></tr>${rows}</table>` : '<p class="muted">No tour requests yet.</p>'}`;
}
