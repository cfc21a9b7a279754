import { formField, queryParam } from '../../form.ts';
import type { SiteRequest, SiteResponse } from '../../site.ts';
import { flightById, type TravelData } from './data.ts';
import { errorPage, travelPage } from './layout.ts';
import { airportSuggestions, citySuggestions } from './listing.ts';
import {
  type FormValues,
  flightBookingErrors,
  flightBookingPage,
  hotelBookingErrors,
  hotelBookingPage,
  tripsPage,
} from './pages-booking.ts';
import {
  fareRulesPage,
  flightDetailPage,
  flightResultsFragment,
  flightResultsPage,
  flightSearchErrors,
  homePage,
} from './pages-flights.ts';
import { hotelListPage, hotelPage } from './pages-hotels.ts';
import { confirmationCode, type TravelState } from './state.ts';

/** Routes one request of the travel site. */
export function handleTravel(req: SiteRequest, state: TravelState, data: TravelData): SiteResponse {
  const parts = req.path.split('/').filter(Boolean).map(decodeURIComponent);
  const [head, arg, sub] = parts;
  const notFound = (what: string): SiteResponse => ({
    status: 404,
    html: errorPage(req, 'Page not found', what),
  });
  if (req.method === 'POST') {
    if (head === 'book' && arg) return bookFlight(req, state, data, arg);
    if (head === 'hotel' && arg && sub === 'book') return bookHotel(req, state, data, arg);
    return notFound(`No action at ${req.path}.`);
  }
  switch (head) {
    case undefined:
      return { html: homePage(req) };
    case 'api':
      if (arg === 'airports') return { json: airportSuggestions(data, queryParam(req, 'q')) };
      if (arg === 'cities') return { json: citySuggestions(data, queryParam(req, 'q')) };
      return { status: 404, json: { error: 'unknown endpoint' } };
    case 'flights': {
      const from = queryParam(req, 'from');
      const to = queryParam(req, 'to');
      const date = queryParam(req, 'date');
      const errors = flightSearchErrors(data, from, to, date);
      if (arg === 'results') {
        if (Object.keys(errors).length)
          return { status: 400, html: '<p>Search expired. Start a new search.</p>' };
        return { html: flightResultsFragment(req, data, from, to, date), delayMs: 150 };
      }
      if (Object.keys(errors).length) return { status: 400, html: homePage(req, { tab: 'flights', errors }) };
      return { html: flightResultsPage(req, data, from, to, date) };
    }
    case 'flight': {
      const x = flightById(data, arg ?? '');
      return x
        ? { html: flightDetailPage(req, data, x) }
        : notFound('This flight is no longer available. Please search again.');
    }
    case 'fare-rules': {
      const html = fareRulesPage(req, data, arg ?? '');
      return html ? { html } : notFound('Unknown fare.');
    }
    case 'book': {
      const x = flightById(data, arg ?? '');
      if (!x) return notFound('This flight is no longer available. Please search again.');
      const pax = Math.max(1, Math.min(4, Number(queryParam(req, 'pax')) || 1));
      return { html: flightBookingPage(req, data, x, pax) };
    }
    case 'hotels': {
      const city = data.cities.find((c) => c.id === queryParam(req, 'city'));
      if (!city) {
        return {
          status: 400,
          html: homePage(req, {
            tab: 'hotels',
            errors: { city: 'Choose a destination from the list of suggestions.' },
          }),
        };
      }
      return { html: hotelListPage(req, data, city) };
    }
    case 'hotel': {
      const h = data.hotelById.get(arg ?? '');
      if (!h) return notFound('We could not find that property.');
      return { html: sub === 'book' ? hotelBookingPage(req, h) : hotelPage(req, data, h) };
    }
    case 'trips':
      return { html: tripsPage(req, data, state) };
    case 'help':
    case 'privacy':
      return {
        html: travelPage(req, {
          title: head === 'help' ? 'Help' : 'Privacy',
          body:
            head === 'help'
              ? '<h1>Help</h1><p>Manage bookings under My trips. Fare rules are linked from every flight.</p>'
              : '<h1>Privacy</h1><p>We use cookies to remember your searches.</p>',
        }),
      };
    default:
      return notFound(`No page at ${req.path}.`);
  }
}

function values(req: SiteRequest, keys: string[]): FormValues {
  return Object.fromEntries(keys.map((k) => [k, formField(req, k)]));
}

function bookFlight(req: SiteRequest, state: TravelState, data: TravelData, id: string): SiteResponse {
  const x = flightById(data, id);
  if (!x)
    return { status: 404, html: errorPage(req, 'Flight not found', 'This flight is no longer available.') };
  const pax = Math.max(1, Math.min(4, Number(formField(req, 'pax')) || 1));
  const keys = ['email', 'phone', 'seat', 'bags', 'accept'];
  for (let i = 1; i <= pax; i++) keys.push(`p${i}_first`, `p${i}_last`, `p${i}_dob`);
  const v = values(req, keys);
  const errors = flightBookingErrors(v, pax);
  if (Object.keys(errors).length)
    return { status: 400, html: flightBookingPage(req, data, x, pax, { values: v, errors }) };
  const code = confirmationCode(req.sessionId, state.flights.length + state.hotels.length, 'flight');
  state.flights.push({
    code,
    flightId: x.id,
    passengers: Array.from({ length: pax }, (_, k) => ({
      first: v[`p${k + 1}_first`],
      last: v[`p${k + 1}_last`],
      dob: v[`p${k + 1}_dob`],
    })),
    email: v.email,
    phone: v.phone,
    seat: v.seat || 'none',
    bags: Number(v.bags) || 0,
    bookedAt: new Date().toISOString(),
  });
  return { redirect: `${req.base}/trips?booked=${code}` };
}

function bookHotel(req: SiteRequest, state: TravelState, data: TravelData, id: string): SiteResponse {
  const h = data.hotelById.get(id);
  if (!h) return { status: 404, html: errorPage(req, 'Hotel not found', 'We could not find that property.') };
  const v = values(req, ['room', 'checkin', 'checkout', 'guests', 'first', 'last', 'email', 'requests']);
  const errors = hotelBookingErrors(v, h);
  if (Object.keys(errors).length)
    return { status: 400, html: hotelBookingPage(req, h, { values: v, errors }) };
  const code = confirmationCode(req.sessionId, state.flights.length + state.hotels.length, 'hotel');
  state.hotels.push({
    code,
    hotelId: h.id,
    roomId: v.room,
    checkin: v.checkin,
    checkout: v.checkout,
    guests: Number(v.guests),
    first: v.first,
    last: v.last,
    email: v.email,
    requests: v.requests,
    bookedAt: new Date().toISOString(),
  });
  return { redirect: `${req.base}/trips?booked=${code}` };
}
