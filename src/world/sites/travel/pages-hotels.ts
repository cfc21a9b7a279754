import { esc } from '../../../core/text.ts';
import { pageParam, queryParam, queryString } from '../../form.ts';
import type { SiteRequest } from '../../site.ts';
import { money, pagination } from '../../ui/html.ts';
import { AMENITIES, type City, type Hotel, longDate, nights, type TravelData } from './data.ts';
import { travelPage } from './layout.ts';
import { filterHotels, HOTEL_PAGE_SIZE, HOTEL_SORTS, type HotelFilter } from './listing.ts';

export function hotelFilterOf(req: SiteRequest, city: string): HotelFilter {
  const max = Number(queryParam(req, 'maxprice'));
  return {
    city,
    stars: req.query
      .getAll('stars')
      .map(Number)
      .filter((n) => n >= 1 && n <= 5),
    maxPrice: queryParam(req, 'maxprice') && Number.isFinite(max) ? max : undefined,
    amenities: req.query.getAll('amenity').filter(Boolean),
    freeCancellation: queryParam(req, 'freecancel') === '1',
    sort: HOTEL_SORTS.find((s) => s.id === queryParam(req, 'sort'))?.id ?? 'recommended',
  };
}

function stay(req: SiteRequest): { checkin: string; checkout: string; guests: string } {
  return {
    checkin: queryParam(req, 'checkin'),
    checkout: queryParam(req, 'checkout'),
    guests: queryParam(req, 'guests'),
  };
}

function starText(n: number): string {
  return `${'★'.repeat(n)} ${n}-star`;
}

/** Hotel results of one city: exact-star, price, amenity and cancellation filters; 10 a page (unperturbed). */
export function hotelListPage(req: SiteRequest, data: TravelData, city: City): string {
  const f = hotelFilterOf(req, city.id);
  const s = stay(req);
  const found = filterHotels(data, f);
  // A visit's perturbation moves hotels under "Recommended" only: an explicit sort is exact.
  const items = f.sort === 'recommended' || !f.sort ? req.perturb.jitter(found, `hotels:${city.id}`) : found;
  const size = req.perturb.pageSize(HOTEL_PAGE_SIZE, 'hotels');
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = pageParam(req, pages);
  const shown = items.slice((p - 1) * size, p * size);
  const keep = {
    city: city.id,
    ...s,
    stars: f.stars?.map(String),
    maxprice: queryParam(req, 'maxprice'),
    amenity: f.amenities,
    freecancel: f.freeCancellation,
    sort: f.sort === 'recommended' ? '' : f.sort,
  };
  const starBoxes = [5, 4, 3, 2]
    .map(
      (n) =>
        `<div><input type="checkbox" id="stars-${n}" name="stars" value="${n}"${f.stars?.includes(n) ? ' checked' : ''}> <label for="stars-${n}" style="display:inline">${n} stars</label></div>`,
    )
    .join('');
  const amenBoxes = AMENITIES.map(
    (a, i) =>
      `<div><input type="checkbox" id="am-${i}" name="amenity" value="${esc(a)}"${f.amenities?.includes(a) ? ' checked' : ''}> <label for="am-${i}" style="display:inline">${esc(a)}</label></div>`,
  ).join('');
  const sorts = HOTEL_SORTS.map(
    (x) => `<option value="${x.id}"${x.id === f.sort ? ' selected' : ''}>${esc(x.label)}</option>`,
  ).join('');
  const hidden = Object.entries({ city: city.id, ...s })
    .filter(([, v]) => v)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v)}">`)
    .join('');
  const filters = `<aside><form method="get" action="${req.base}/hotels">${hidden}
<div class="field"><label for="hsort">Sort by</label><select id="hsort" name="sort">${sorts}</select></div>
<fieldset class="field"><legend>Star rating</legend>${starBoxes}</fieldset>
<div class="field"><label for="hmax">Max price per night ($)</label><input id="hmax" name="maxprice" type="number" min="0" value="${esc(queryParam(req, 'maxprice'))}" style="width:110px"></div>
<fieldset class="field"><legend>Amenities</legend>${amenBoxes}</fieldset>
<div class="field"><input type="checkbox" id="freecancel" name="freecancel" value="1"${f.freeCancellation ? ' checked' : ''}> <label for="freecancel" style="display:inline">Free cancellation</label></div>
<button class="btn" type="submit">Apply filters</button></form></aside>`;
  const n = s.checkin && s.checkout ? nights(s.checkin, s.checkout) : 0;
  const cards = shown
    .map(
      (
        h,
      ) => `<article class="hotel"><div><h3><a href="${req.base}/hotel/${h.id}${queryString(s)}">${esc(h.name)}</a></h3>
<div class="stars" aria-label="${h.stars} stars">${starText(h.stars)}</div><div>${esc(h.district)} · Guest rating <strong>${h.guestRating.toFixed(1)}</strong>/10 (${h.reviewCount.toLocaleString('en-US')} reviews)</div>
<div class="amen">${esc(h.amenities.join(' · '))}</div>${h.freeCancellation ? '<div class="good">Free cancellation</div>' : '<div class="muted">Non-refundable</div>'}</div>
<div><div class="price">${money(h.price)}</div><div class="muted">per night${n > 0 ? ` · ${money(h.price * n)} total` : ''}</div></div></article>`,
    )
    .join('');
  const dates =
    s.checkin && s.checkout
      ? `${longDate(s.checkin)} – ${longDate(s.checkout)}`
      : 'Add dates to see total prices';
  const body = `<h1>Hotels in ${esc(city.name)}</h1><p class="muted">${esc(dates)} · <a href="${req.base}/?tab=hotels">Change search</a></p>
<div class="sidebar">${filters}<section><p class="muted" role="status">${items.length} ${items.length === 1 ? 'property' : 'properties'} found</p>${cards || '<p>No hotels match your filters.</p>'}
${pagination(p, pages, (x) => `${req.base}/hotels${queryString({ ...keep, page: x === 1 ? '' : x })}`)}</section></div>`;
  return travelPage(req, { title: `Hotels in ${city.name}`, body });
}

/** A hotel's page: facts, amenities and a table of room types, each with its own "Reserve" button. */
export function hotelPage(req: SiteRequest, data: TravelData, h: Hotel): string {
  const s = stay(req);
  const city = data.cities.find((c) => c.id === h.city)!;
  const n = s.checkin && s.checkout ? nights(s.checkin, s.checkout) : 0;
  const rows = h.rooms
    .map(
      (
        r,
      ) => `<tr><td><strong>${esc(r.name)}</strong><div class="muted">${esc(r.beds)} · sleeps ${r.maxGuests}</div></td>
<td>${money(r.price)} per night${n > 0 ? `<div class="muted">${money(r.price * n)} for ${n} ${n === 1 ? 'night' : 'nights'}</div>` : ''}</td>
<td>${h.freeCancellation ? '<span class="good">Free cancellation</span>' : 'Non-refundable'}</td>
<td><a class="btn" href="${req.base}/hotel/${h.id}/book${queryString({ room: r.id, ...s })}">Reserve</a></td></tr>`,
    )
    .join('');
  const body = `<nav class="muted"><a href="${req.base}/hotels${queryString({ city: h.city, ...s })}">All hotels in ${esc(city.name)}</a></nav>
<h1>${esc(h.name)}</h1><div class="stars" aria-label="${h.stars} stars">${starText(h.stars)}</div>
<p>${esc(h.district)}, ${esc(city.name)} · Guest rating <strong>${h.guestRating.toFixed(1)}</strong>/10 from ${h.reviewCount.toLocaleString('en-US')} reviews</p>
<h2>Amenities</h2><ul>${h.amenities.map((a) => `<li>${esc(a)}</li>`).join('')}</ul>
<h2>Choose your room</h2><table class="rooms"><thead><tr><th>Room type</th><th>Price</th><th>Policy</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  return travelPage(req, { title: h.name, body });
}
