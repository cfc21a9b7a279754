import { esc } from '../../../core/text.ts';
import { queryParam } from '../../form.ts';
import type { SiteRequest } from '../../site.ts';
import { money } from '../../ui/html.ts';
import {
  airlineName,
  clock,
  type Flight,
  fareOf,
  flightById,
  type Hotel,
  longDate,
  nights,
  TRAVEL_TODAY,
  type TravelData,
} from './data.ts';
import { field, selectField, travelPage } from './layout.ts';
import type { TravelState } from './state.ts';

export type FormValues = Record<string, string>;
export type FormErrors = Record<string, string>;

const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

/** Validates MM/DD/YYYY as a real date before today. */
export function validDob(s: string): boolean {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2])));
  return (
    d.getUTCMonth() === Number(m[1]) - 1 &&
    d.getUTCDate() === Number(m[2]) &&
    d.toISOString().slice(0, 10) < TRAVEL_TODAY &&
    Number(m[3]) > 1900
  );
}

export function flightBookingErrors(v: FormValues, pax: number): FormErrors {
  const e: FormErrors = {};
  for (let i = 1; i <= pax; i++) {
    if (!v[`p${i}_first`]) e[`p${i}_first`] = 'First name is required.';
    if (!v[`p${i}_last`]) e[`p${i}_last`] = 'Last name is required.';
    if (!validDob(v[`p${i}_dob`] ?? '')) e[`p${i}_dob`] = 'Enter the date of birth as MM/DD/YYYY.';
  }
  if (!EMAIL.test(v.email ?? '')) e.email = 'Enter a valid email address.';
  if ((v.phone ?? '').replace(/\D/g, '').length < 7) e.phone = 'Enter a phone number we can reach you on.';
  if (v.accept !== '1') e.accept = 'Please accept the fare rules.';
  return e;
}

/** Passenger details, contact, seat and bags; "Confirm booking" stays disabled until the fare rules are accepted. */
export function flightBookingPage(
  req: SiteRequest,
  data: TravelData,
  x: Flight,
  pax: number,
  o: { values?: FormValues; errors?: FormErrors } = {},
): string {
  const v = o.values ?? {};
  const e = o.errors ?? {};
  const fare = fareOf(data, x.fare);
  let people = '';
  for (let i = 1; i <= pax; i++) {
    people += `<fieldset class="field"><legend>Passenger ${i}</legend><div class="form-row">
${field({ id: `p${i}-first`, name: `p${i}_first`, label: 'First name', value: v[`p${i}_first`], error: e[`p${i}_first`] })}
${field({ id: `p${i}-last`, name: `p${i}_last`, label: 'Last name', value: v[`p${i}_last`], error: e[`p${i}_last`] })}
${field({ id: `p${i}-dob`, name: `p${i}_dob`, label: 'Date of birth (MM/DD/YYYY)', value: v[`p${i}_dob`], error: e[`p${i}_dob`], attrs: 'placeholder="MM/DD/YYYY"' })}</div></fieldset>`;
  }
  const seat = v.seat || 'none';
  const seats = [
    ['window', 'Window'],
    ['aisle', 'Aisle'],
    ['none', 'No preference'],
  ]
    .map(
      ([val, l]) =>
        `<span><input type="radio" id="seat-${val}" name="seat" value="${val}"${seat === val ? ' checked' : ''}> <label for="seat-${val}" style="display:inline">${l}</label></span>`,
    )
    .join(' ');
  const errCount = Object.keys(e).length;
  const body = `<h1>Who's flying?</h1><p class="muted">${esc(airlineName(data, x.airline))} ${esc(x.number)} · ${x.from} → ${x.to} · ${esc(longDate(x.date))} at ${clock(x.depart)} · ${esc(fare.name)}</p>
${errCount ? `<div class="alert" role="alert">Please correct ${errCount} ${errCount === 1 ? 'field' : 'fields'}.</div>` : ''}
<form method="post" action="${req.base}/book/${x.id}" novalidate><input type="hidden" name="pax" value="${pax}">${people}
<h2>Contact</h2><div class="form-row">${field({ id: 'email', name: 'email', label: 'Email', type: 'email', value: v.email, error: e.email })}${field({ id: 'phone', name: 'phone', label: 'Phone', type: 'tel', value: v.phone, error: e.phone })}</div>
<fieldset class="field"><legend>Seat preference</legend>${seats}</fieldset>
${selectField({
  id: 'bags',
  name: 'bags',
  label: 'Checked bags per passenger',
  options: [
    ['0', 'No checked bags'],
    ['1', '1 bag'],
    ['2', '2 bags'],
  ],
  value: v.bags || '0',
})}
<p><strong>Total: ${money(x.price * pax)}</strong> for ${pax} ${pax === 1 ? 'passenger' : 'passengers'}</p>
<div class="field${e.accept ? ' invalid' : ''}"><input type="checkbox" id="accept" name="accept" value="1" data-enables="confirm-booking"> <label for="accept" style="display:inline">I have read and accept the fare rules</label>${e.accept ? `<div class="error">${esc(e.accept)}</div>` : ''}</div>
<button class="btn" id="confirm-booking" type="submit" disabled>Confirm booking</button></form>`;
  return travelPage(req, { title: 'Passenger details', body });
}

export function hotelBookingErrors(v: FormValues, h: Hotel): FormErrors {
  const e: FormErrors = {};
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v.checkin ?? '') || v.checkin < TRAVEL_TODAY)
    e.checkin = 'Choose a check-in date.';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v.checkout ?? '')) e.checkout = 'Choose a check-out date.';
  else if (!e.checkin && nights(v.checkin, v.checkout) < 1) e.checkout = 'Check-out must be after check-in.';
  const room = h.rooms.find((r) => r.id === v.room);
  if (!room) e.room = 'Choose a room type.';
  const g = Number(v.guests);
  if (!(g >= 1 && g <= 4)) e.guests = 'Choose the number of guests.';
  else if (room && g > room.maxGuests) e.guests = `The ${room.name} sleeps at most ${room.maxGuests}.`;
  if (!v.first) e.first = 'First name is required.';
  if (!v.last) e.last = 'Last name is required.';
  if (!EMAIL.test(v.email ?? '')) e.email = 'Enter a valid email address.';
  return e;
}

/** Guest details for one room type; dates and guests are editable and prefilled from the search. */
export function hotelBookingPage(
  req: SiteRequest,
  h: Hotel,
  o: { values?: FormValues; errors?: FormErrors } = {},
): string {
  const v = o.values ?? {
    room: queryParam(req, 'room'),
    checkin: queryParam(req, 'checkin'),
    checkout: queryParam(req, 'checkout'),
    guests: queryParam(req, 'guests') || '2',
  };
  const e = o.errors ?? {};
  const room = h.rooms.find((r) => r.id === v.room);
  const n = v.checkin && v.checkout ? nights(v.checkin, v.checkout) : 0;
  const errCount = Object.keys(e).length;
  const body = `<h1>Complete your booking</h1><p><strong>${esc(h.name)}</strong></p>
${errCount ? `<div class="alert" role="alert">Please correct ${errCount} ${errCount === 1 ? 'field' : 'fields'}.</div>` : ''}
<form method="post" action="${req.base}/hotel/${h.id}/book" novalidate>
${selectField({ id: 'room', name: 'room', label: 'Room type', options: h.rooms.map((r) => [r.id, `${r.name} — ${money(r.price)} per night`]), value: v.room, error: e.room })}
<div class="form-row">${field({ id: 'checkin', name: 'checkin', label: 'Check-in', value: v.checkin, error: e.checkin, attrs: `data-datepicker data-min="${TRAVEL_TODAY}"` })}
${field({ id: 'checkout', name: 'checkout', label: 'Check-out', value: v.checkout, error: e.checkout, attrs: `data-datepicker data-min="${TRAVEL_TODAY}"` })}
${selectField({
  id: 'guests',
  name: 'guests',
  label: 'Guests',
  options: [
    ['1', '1 guest'],
    ['2', '2 guests'],
    ['3', '3 guests'],
    ['4', '4 guests'],
  ],
  value: v.guests,
  error: e.guests,
})}</div>
<h2>Lead guest</h2><div class="form-row">${field({ id: 'first', name: 'first', label: 'First name', value: v.first, error: e.first })}${field({ id: 'last', name: 'last', label: 'Last name', value: v.last, error: e.last })}</div>
${field({ id: 'email', name: 'email', label: 'Email', type: 'email', value: v.email, error: e.email })}
<div class="field"><label for="requests">Special requests (optional)</label><textarea id="requests" name="requests" rows="2" style="width:100%">${esc(v.requests ?? '')}</textarea></div>
${room && n > 0 ? `<p><strong>Total: ${money(room.price * n)}</strong> for ${n} ${n === 1 ? 'night' : 'nights'}${h.freeCancellation ? ' · Free cancellation' : ' · Non-refundable'}</p>` : ''}
<button class="btn" type="submit">Confirm booking</button></form>`;
  return travelPage(req, { title: `Book ${h.name}`, body });
}

/** "My trips": every booking of the session with its confirmation code. */
export function tripsPage(req: SiteRequest, data: TravelData, state: TravelState): string {
  const booked = queryParam(req, 'booked');
  const flights = state.flights
    .map((b) => {
      const x = flightById(data, b.flightId);
      if (!x) return '';
      return `<tr><td>${esc(b.code)}</td><td>${esc(airlineName(data, x.airline))} ${esc(x.number)}</td><td>${x.from} → ${x.to}</td><td>${esc(longDate(x.date))} ${clock(x.depart)}</td><td>${esc(b.passengers.map((p) => `${p.first} ${p.last}`).join(', '))}</td></tr>`;
    })
    .join('');
  const hotels = state.hotels
    .map((b) => {
      const h = data.hotelById.get(b.hotelId);
      const room = h?.rooms.find((r) => r.id === b.roomId);
      return `<tr><td>${esc(b.code)}</td><td>${esc(h?.name)}</td><td>${esc(room?.name)}</td><td>${esc(longDate(b.checkin))} – ${esc(longDate(b.checkout))}</td><td>${b.guests}</td></tr>`;
    })
    .join('');
  const body = `${booked ? `<div class="notice" role="status">Booking confirmed. Your confirmation code is <strong>${esc(booked)}</strong>.</div>` : ''}<h1>My trips</h1>
<h2>Flights</h2>${flights ? `<table><thead><tr><th>Code</th><th>Flight</th><th>Route</th><th>Departure</th><th>Passengers</th></tr></thead><tbody>${flights}</tbody></table>` : '<p>No flights booked.</p>'}
<h2>Hotels</h2>${hotels ? `<table><thead><tr><th>Code</th><th>Hotel</th><th>Room</th><th>Dates</th><th>Guests</th></tr></thead><tbody>${hotels}</tbody></table>` : '<p>No hotel stays booked.</p>'}`;
  return travelPage(req, { title: 'My trips', body });
}
