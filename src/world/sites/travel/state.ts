import { hashString } from '../../../core/rng.ts';

export interface Passenger {
  first: string;
  last: string;
  /** MM/DD/YYYY as typed. */
  dob: string;
}

export interface FlightBooking {
  code: string;
  flightId: string;
  passengers: Passenger[];
  email: string;
  phone: string;
  seat: string;
  bags: number;
  bookedAt: string;
}

export interface HotelBooking {
  code: string;
  hotelId: string;
  roomId: string;
  checkin: string;
  checkout: string;
  guests: number;
  first: string;
  last: string;
  email: string;
  requests: string;
  bookedAt: string;
}

/** A session's travel state: the bookings "My trips" lists and the verifier reads. */
export interface TravelState {
  flights: FlightBooking[];
  hotels: HotelBooking[];
}

export function initialTravelState(): TravelState {
  return { flights: [], hotels: [] };
}

const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';

/** A six-letter confirmation code, stable for a session and booking number. */
export function confirmationCode(sessionId: string, n: number, kind: string): string {
  let h = hashString(`${sessionId}:${kind}:${n}`);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out += LETTERS[h % LETTERS.length];
    h = Math.floor(h / LETTERS.length) + i * 7919;
  }
  return out;
}
