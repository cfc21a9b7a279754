import { esc } from '../../../core/text.ts';
import { queryParam, queryString } from '../../form.ts';
import type { SiteRequest } from '../../site.ts';
import { money } from '../../ui/html.ts';
import {
  airlineName,
  airportLabel,
  clock,
  durationText,
  type Flight,
  fareOf,
  flightsFor,
  longDate,
  TRAVEL_TODAY,
  type TravelData,
} from './data.ts';
import { field, selectField, travelPage } from './layout.ts';
import { FLIGHT_SORTS, type FlightFilter, filterFlights } from './listing.ts';

export type SearchErrors = Record<string, string>;

const PAX: Array<[string, string]> = [
  ['1', '1 adult'],
  ['2', '2 adults'],
  ['3', '3 adults'],
  ['4', '4 adults'],
];

/** The home page: Flights and Hotels tabs, each with a search form. */
export function homePage(
  req: SiteRequest,
  o: { tab?: 'flights' | 'hotels'; errors?: SearchErrors } = {},
): string {
  const tab = o.tab ?? (queryParam(req, 'tab') === 'hotels' ? 'hotels' : 'flights');
  const e = o.errors ?? {};
  const q = (k: string) => queryParam(req, k);
  const flights = `<form method="get" action="${req.base}/flights" class="search-box">
${e.form ? `<div class="alert" role="alert">${esc(e.form)}</div>` : ''}
<div class="form-row"><div class="field ac-wrap${e.from ? ' invalid' : ''}"><label for="from-input">From</label><input id="from-input" name="from_label" value="${esc(q('from_label'))}" placeholder="City or airport" autocomplete="off" data-autocomplete="${req.base}/api/airports?q=" data-target="from-code"><input type="hidden" id="from-code" name="from" value="${esc(q('from'))}">${e.from ? `<div class="error">${esc(e.from)}</div>` : ''}</div>
<div class="field ac-wrap${e.to ? ' invalid' : ''}"><label for="to-input">To</label><input id="to-input" name="to_label" value="${esc(q('to_label'))}" placeholder="City or airport" autocomplete="off" data-autocomplete="${req.base}/api/airports?q=" data-target="to-code"><input type="hidden" id="to-code" name="to" value="${esc(q('to'))}">${e.to ? `<div class="error">${esc(e.to)}</div>` : ''}</div></div>
<div class="form-row">${field({ id: 'date', name: 'date', label: 'Departure date', value: q('date'), error: e.date, attrs: `data-datepicker data-min="${TRAVEL_TODAY}" placeholder="Choose a date"` })}
${selectField({ id: 'pax', name: 'pax', label: 'Passengers', options: PAX, value: q('pax') || '1' })}</div>
<button class="btn" type="submit">Search flights</button></form>`;
  const cityErr = e.city;
  const hotels = `<form method="get" action="${req.base}/hotels" class="search-box">
<div class="field ac-wrap${cityErr ? ' invalid' : ''}"><label for="city-input">Destination</label><input id="city-input" name="city_label" value="${esc(q('city_label'))}" placeholder="Where are you going?" autocomplete="off" data-autocomplete="${req.base}/api/cities?q=" data-target="city-code"><input type="hidden" id="city-code" name="city" value="${esc(q('city'))}">${cityErr ? `<div class="error">${esc(cityErr)}</div>` : ''}</div>
<div class="form-row">${field({ id: 'checkin', name: 'checkin', label: 'Check-in', value: q('checkin'), error: e.checkin, attrs: `data-datepicker data-min="${TRAVEL_TODAY}" placeholder="Choose a date"` })}
${field({ id: 'checkout', name: 'checkout', label: 'Check-out', value: q('checkout'), error: e.checkout, attrs: `data-datepicker data-min="${TRAVEL_TODAY}" placeholder="Choose a date"` })}
${selectField({ id: 'guests', name: 'guests', label: 'Guests', options: PAX.map(([v]) => [v, `${v} ${v === '1' ? 'guest' : 'guests'}`]), value: q('guests') || '2' })}</div>
<button class="btn" type="submit">Search hotels</button></form>`;
  const sel = (t: string) => (t === tab ? 'true' : 'false');
  const body = `<h1>Where to next?</h1>
<div class="tabs" role="tablist"><button role="tab" aria-selected="${sel('flights')}" aria-controls="panel-flights">Flights</button><button role="tab" aria-selected="${sel('hotels')}" aria-controls="panel-hotels">Hotels</button></div>
<div id="panel-flights" role="tabpanel"${tab === 'flights' ? '' : ' class="hidden"'}>${flights}</div>
<div id="panel-hotels" role="tabpanel"${tab === 'hotels' ? '' : ' class="hidden"'}>${hotels}</div>
<h2>Popular this spring</h2><p class="muted">Lisbon, Denver, Toronto and Cancun are trending. Prices include taxes and fees.</p>`;
  return travelPage(req, { title: 'Flights and hotels', body });
}

/** Validates a flight search; returns errors keyed by field (empty when valid). */
export function flightSearchErrors(data: TravelData, from: string, to: string, date: string): SearchErrors {
  const e: SearchErrors = {};
  if (!data.airportByCode.has(from)) e.from = 'Choose a departure airport from the list of suggestions.';
  if (!data.airportByCode.has(to)) e.to = 'Choose a destination airport from the list of suggestions.';
  if (!e.from && from === to) e.to = 'Destination must differ from the departure airport.';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) e.date = 'Choose a departure date.';
  else if (date < TRAVEL_TODAY) e.date = 'The departure date is in the past.';
  return e;
}

export function flightFilterOf(req: SiteRequest): FlightFilter {
  const sort = FLIGHT_SORTS.find((s) => s.id === queryParam(req, 'sort'))?.id ?? 'recommended';
  const max = Number(queryParam(req, 'maxprice'));
  return {
    nonstop: queryParam(req, 'nonstop') === '1',
    airlines: req.query.getAll('airline').filter(Boolean),
    maxPrice: queryParam(req, 'maxprice') && Number.isFinite(max) ? max : undefined,
    sort,
  };
}

/** The results page: a filter form and a results area that loads after about a second. */
export function flightResultsPage(
  req: SiteRequest,
  data: TravelData,
  from: string,
  to: string,
  date: string,
): string {
  const f = flightFilterOf(req);
  const pax = queryParam(req, 'pax') || '1';
  const all = flightsFor(data, from, to, date);
  const airlines = [...new Set(all.map((x) => x.airline))].sort();
  const a = data.airportByCode.get(from)!;
  const b = data.airportByCode.get(to)!;
  const params = {
    from,
    to,
    date,
    pax,
    nonstop: f.nonstop,
    airline: f.airlines,
    maxprice: queryParam(req, 'maxprice'),
    sort: f.sort === 'recommended' ? '' : f.sort,
  };
  const boxes = airlines
    .map(
      (code, i) =>
        `<div><input type="checkbox" id="al-${i}" name="airline" value="${code}"${f.airlines?.includes(code) ? ' checked' : ''}> <label for="al-${i}" style="display:inline">${esc(airlineName(data, code))}</label></div>`,
    )
    .join('');
  const sorts = FLIGHT_SORTS.map(
    (s) => `<option value="${s.id}"${s.id === f.sort ? ' selected' : ''}>${esc(s.label)}</option>`,
  ).join('');
  const filters = `<aside><form method="get" action="${req.base}/flights">
<input type="hidden" name="from" value="${from}"><input type="hidden" name="to" value="${to}"><input type="hidden" name="date" value="${date}"><input type="hidden" name="pax" value="${esc(pax)}">
<div class="field"><label for="sort">Sort by</label><select id="sort" name="sort">${sorts}</select></div>
<div class="field"><input type="checkbox" id="nonstop" name="nonstop" value="1"${f.nonstop ? ' checked' : ''}> <label for="nonstop" style="display:inline">Nonstop only</label></div>
<fieldset class="field"><legend>Airlines</legend>${boxes}</fieldset>
<div class="field"><label for="maxprice">Max price ($)</label><input id="maxprice" name="maxprice" type="number" min="0" value="${esc(queryParam(req, 'maxprice'))}" style="width:110px"></div>
<button class="btn" type="submit">Apply</button></form></aside>`;
  const body = `<h1>${esc(a.city)} (${a.code}) to ${esc(b.city)} (${b.code})</h1><p class="muted">${esc(longDate(date))} · ${esc(pax)} ${pax === '1' ? 'adult' : 'adults'} · <a href="${req.base}/">Change search</a></p>
<div class="sidebar">${filters}<section id="results" aria-busy="true" aria-live="polite" data-delayed-src="${req.base}/flights/results${queryString(params)}" data-delay="1000"><div class="spinner" role="status">Searching airlines for the best fares…</div></section></div>`;
  return travelPage(req, { title: `Flights ${a.code} to ${b.code}`, body });
}

/** The HTML fragment the results area loads. */
export function flightResultsFragment(
  req: SiteRequest,
  data: TravelData,
  from: string,
  to: string,
  date: string,
): string {
  const f = flightFilterOf(req);
  const pax = queryParam(req, 'pax') || '1';
  const found = filterFlights(flightsFor(data, from, to, date), f);
  // A visit's perturbation moves flights under "Recommended" only: an explicit sort is exact.
  const items = f.sort === 'recommended' ? req.perturb.jitter(found, `flights:${from}:${to}:${date}`) : found;
  if (!items.length) return '<p>No flights match your filters. Try removing a filter.</p>';
  return `<p class="muted">${items.length} ${items.length === 1 ? 'flight' : 'flights'} found · prices per person</p>${items.map((x) => flightCard(req, data, x, pax)).join('')}`;
}

function stopsText(x: Flight): string {
  return x.stops === 0 ? 'Nonstop' : `${x.stops} ${x.stops === 1 ? 'stop' : 'stops'} (${x.via.join(', ')})`;
}

function arrival(x: Flight): string {
  const end = x.depart + x.durationMin;
  return `${clock(end)}${end >= 1440 ? ' (+1 day)' : ''}`;
}

function flightCard(req: SiteRequest, data: TravelData, x: Flight, pax: string): string {
  return `<article class="flight"><div><div class="times">${clock(x.depart)} – ${arrival(x)}</div><div>${esc(airlineName(data, x.airline))} · ${esc(x.number)}</div></div>
<div>${durationText(x.durationMin)}<div class="muted">${esc(stopsText(x))}</div></div>
<div><span class="price">${money(x.price)}</span><div class="muted">${esc(fareOf(data, x.fare).name)}${x.seatsLeft <= 3 ? ` · ${x.seatsLeft} seats left` : ''}</div></div>
<a class="btn" href="${req.base}/flight/${x.id}${queryString({ pax })}" aria-label="Select flight ${esc(x.number)}">Select</a></article>`;
}

/** Flight details with the fare-rules link (opens a new tab) and the booking button. */
export function flightDetailPage(req: SiteRequest, data: TravelData, x: Flight): string {
  const pax = Math.max(1, Math.min(4, Number(queryParam(req, 'pax')) || 1));
  const fare = fareOf(data, x.fare);
  const a = data.airportByCode.get(x.from)!;
  const b = data.airportByCode.get(x.to)!;
  const body = `<nav class="muted"><a href="${req.base}/flights${queryString({ from: x.from, to: x.to, date: x.date, pax })}">Back to results</a></nav>
<h1>${esc(airlineName(data, x.airline))} ${esc(x.number)}</h1>
<table><tr><th>Route</th><td>${esc(airportLabel(a))} → ${esc(airportLabel(b))}</td></tr>
<tr><th>Date</th><td>${esc(longDate(x.date))}</td></tr><tr><th>Departs</th><td>${clock(x.depart)}</td></tr><tr><th>Arrives</th><td>${arrival(x)}</td></tr>
<tr><th>Duration</th><td>${durationText(x.durationMin)}</td></tr><tr><th>Stops</th><td>${esc(stopsText(x))}</td></tr>
<tr><th>Fare</th><td>${esc(fare.name)} · <a href="${req.base}/fare-rules/${fare.code}${queryString({ airline: x.airline })}" target="_blank" rel="noopener">Fare rules</a></td></tr>
<tr><th>Price</th><td>${money(x.price)} per person · ${money(x.price * pax)} for ${pax} ${pax === 1 ? 'passenger' : 'passengers'}</td></tr></table>
<p>${x.seatsLeft <= 3 ? `<strong>Only ${x.seatsLeft} seats left at this price.</strong>` : ''}</p>
<a class="btn" href="${req.base}/book/${x.id}${queryString({ pax })}">Continue to booking</a>`;
  return travelPage(req, { title: `${x.number} ${x.from}-${x.to}`, body });
}

/** The fare rules of a fare (opened in a new tab from a flight page). */
export function fareRulesPage(req: SiteRequest, data: TravelData, code: string): string | null {
  const fare = data.fares.find((f) => f.code === code);
  if (!fare) return null;
  const airline = airlineName(data, queryParam(req, 'airline'));
  const fee = (n: number | null, what: string) =>
    n === null
      ? `${what} not permitted`
      : n === 0
        ? `No ${what.toLowerCase()} fee`
        : `${money(n)} per passenger`;
  const body = `<h1>${esc(fare.name)} fare rules</h1><p class="muted">${esc(airline)} · applies to all routes</p>
<table><tr><th>Change fee</th><td>${esc(fee(fare.changeFee, 'Changes'))}</td></tr>
<tr><th>Cancellation fee</th><td>${esc(fee(fare.cancelFee, 'Cancellation'))}</td></tr>
<tr><th>First checked bag</th><td>${fare.bagFee ? money(fare.bagFee) : 'Included'}</td></tr>
<tr><th>Carry-on bag</th><td>${fare.carryOn ? 'Included' : 'Not included (personal item only)'}</td></tr>
<tr><th>Seat selection</th><td>${esc(fare.seatChoice)}</td></tr></table>`;
  return travelPage(req, { title: `${fare.name} fare rules`, body });
}
