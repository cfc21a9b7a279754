import { Rng } from '../../../core/rng.ts';
import { AIRPORTS, CITIES } from './places.ts';

export interface Airport {
  code: string;
  city: string;
  name: string;
  country: string;
  lat: number;
  lon: number;
}

export interface Airline {
  code: string;
  name: string;
  /** Price factor: budget carriers below 1. */
  factor: number;
}

/** The fare a flight is sold in, with its rules (shown on the fare-rules page). */
export interface Fare {
  code: 'basic' | 'main' | 'flex';
  name: string;
  changeFee: number | null;
  cancelFee: number | null;
  bagFee: number;
  carryOn: boolean;
  seatChoice: string;
}

export interface Flight {
  id: string;
  from: string;
  to: string;
  date: string;
  airline: string;
  number: string;
  /** Minutes after midnight, local to the departure airport. */
  depart: number;
  durationMin: number;
  stops: number;
  via: string[];
  price: number;
  fare: Fare['code'];
  seatsLeft: number;
}

export interface RoomType {
  id: string;
  name: string;
  price: number;
  maxGuests: number;
  beds: string;
}

export interface Hotel {
  id: string;
  name: string;
  city: string;
  district: string;
  stars: number;
  guestRating: number;
  reviewCount: number;
  amenities: string[];
  freeCancellation: boolean;
  rooms: RoomType[];
  /** Cheapest room per night. */
  price: number;
}

export interface City {
  id: string;
  name: string;
  country: string;
}

export interface TravelData {
  airports: Airport[];
  airportByCode: Map<string, Airport>;
  airlines: Airline[];
  fares: Fare[];
  cities: City[];
  hotels: Hotel[];
  hotelById: Map<string, Hotel>;
  seed: number;
}

/** The world's "today": the date pickers start here and tasks ask about the following weeks. */
export const TRAVEL_TODAY = '2027-03-01';

const AIRLINES: Airline[] = [
  { code: 'NX', name: 'Northstar Air', factor: 1.05 },
  { code: 'BJ', name: 'BlueJet', factor: 0.82 },
  { code: 'PQ', name: 'Pacific Crest Airlines', factor: 1.0 },
  { code: 'SM', name: 'Summit Airways', factor: 0.93 },
  { code: 'AW', name: 'Atlantic Wings', factor: 1.12 },
  { code: 'MR', name: 'Meridian', factor: 0.88 },
];

const FARES: Fare[] = [
  {
    code: 'basic',
    name: 'Basic Economy',
    changeFee: null,
    cancelFee: null,
    bagFee: 40,
    carryOn: false,
    seatChoice: 'Assigned at check-in',
  },
  {
    code: 'main',
    name: 'Main Cabin',
    changeFee: 99,
    cancelFee: 150,
    bagFee: 35,
    carryOn: true,
    seatChoice: 'Free standard seats',
  },
  {
    code: 'flex',
    name: 'Economy Flex',
    changeFee: 0,
    cancelFee: 50,
    bagFee: 0,
    carryOn: true,
    seatChoice: 'Free seats, including extra legroom',
  },
];

const HUBS = ['DEN', 'ORD', 'ATL', 'DFW', 'CLT', 'MSP', 'PHL', 'AMS', 'FRA', 'LHR'];

function km(a: Airport, b: Airport): number {
  const r = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * r) / 2) ** 2 +
    Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/**
 * The flights of one route and date, generated on demand from the seed (the same query always
 * lists the same flights). Every route has 8-13 flights; long routes have fewer nonstops.
 */
export function flightsFor(data: TravelData, from: string, to: string, date: string): Flight[] {
  const a = data.airportByCode.get(from);
  const b = data.airportByCode.get(to);
  if (!a || !b || from === to || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return [];
  const rng = new Rng(`${data.seed}:flights:${from}-${to}:${date}`);
  const dist = km(a, b);
  const base = Math.max(55, Math.round((dist / 780) * 60 + 35));
  const n = rng.int(8, 13);
  const out: Flight[] = [];
  const used = new Set<string>();
  for (let i = 0; i < n; i++) {
    const airline = rng.pick(data.airlines);
    let number = `${airline.code} ${rng.int(100, 2999)}`;
    while (used.has(number)) number = `${airline.code} ${rng.int(100, 2999)}`;
    used.add(number);
    const pNonstop = dist < 2500 ? 0.6 : dist < 6000 ? 0.4 : 0.3;
    const stops = rng.bool(pNonstop) ? 0 : rng.bool(0.8) ? 1 : 2;
    const via = rng.shuffle(HUBS.filter((h) => h !== from && h !== to)).slice(0, stops);
    const duration = base + stops * rng.int(50, 170) + rng.int(-8, 25);
    const depart = rng.int(5 * 12, 22 * 12) * 5;
    const fare = rng.pick(data.fares).code;
    const fareFactor = fare === 'basic' ? 0.82 : fare === 'flex' ? 1.35 : 1;
    const price = Math.round(
      (60 + dist * 0.11) * airline.factor * fareFactor * (1 - stops * 0.12) * (0.85 + rng.next() * 0.4),
    );
    out.push({
      id: `${from}-${to}-${date.replace(/-/g, '')}-${i}`,
      from,
      to,
      date,
      airline: airline.code,
      number,
      depart,
      durationMin: Math.round(duration / 5) * 5,
      stops,
      via,
      price,
      fare,
      seatsLeft: rng.int(1, 9),
    });
  }
  return out;
}

/** Looks up a flight by id (the id encodes route, date and position). */
export function flightById(data: TravelData, id: string): Flight | undefined {
  const m = /^([A-Z]{3})-([A-Z]{3})-(\d{4})(\d{2})(\d{2})-(\d+)$/.exec(id);
  if (!m) return undefined;
  return flightsFor(data, m[1], m[2], `${m[3]}-${m[4]}-${m[5]}`)[Number(m[6])];
}

/** How an objective mentions an amenity ("with a pool"). */
export const AMENITY_PHRASE: Record<string, string> = {
  'Free WiFi': 'free WiFi',
  Pool: 'a pool',
  'Free parking': 'free parking',
  'Fitness center': 'a fitness center',
  Spa: 'a spa',
  Restaurant: 'a restaurant',
  'Pet friendly': 'pet-friendly rooms',
  'Airport shuttle': 'an airport shuttle',
  'Breakfast included': 'breakfast included',
};

export const AMENITIES = [
  'Free WiFi',
  'Pool',
  'Free parking',
  'Fitness center',
  'Spa',
  'Restaurant',
  'Pet friendly',
  'Airport shuttle',
  'Breakfast included',
];

const CHAINS = [
  'Parkline Suites',
  'Harborview',
  'Meridian Inn',
  'Grandview Hotel',
  'Cityline Lodge',
  'The Wren',
];
const DISTRICTS = [
  'Downtown',
  'Old Town',
  'Riverside',
  'Airport',
  'Central Station',
  'Harbor',
  'Uptown',
  'Arts District',
];
const BOUTIQUE = [
  'The Linden',
  'Hotel Ambra',
  'The Foundry',
  'Casa Luz',
  'The Alder',
  'Hotel Nova',
  'The Birchwood',
  'Maison Claire',
  'The Lantern',
  'Hotel Solace',
  'The Marlow',
  'Hotel Verde',
];
const ROOMS: Array<[string, number, number, string]> = [
  ['Standard Queen', 1, 2, '1 queen bed'],
  ['Standard Double', 1.05, 3, '2 double beds'],
  ['Deluxe King', 1.3, 2, '1 king bed'],
  ['Family Room', 1.45, 4, '2 queen beds'],
  ['Junior Suite', 1.8, 3, '1 king bed and sofa bed'],
  ['Studio', 1.2, 2, '1 queen bed and kitchenette'],
];

function buildHotels(seed: number): Hotel[] {
  const rng = new Rng(`${seed}:travel:hotels`);
  const out: Hotel[] = [];
  for (const city of CITIES) {
    const n = rng.int(10, 13);
    const names = new Set<string>();
    // Chain hotels come in lookalike pairs ("Parkline Suites Downtown" and "Parkline Suites Airport").
    const chain = rng.pick(CHAINS);
    const pairDistricts = rng.shuffle(DISTRICTS).slice(0, 2);
    for (const d of pairDistricts) names.add(`${chain} ${city.name} ${d}`);
    while (names.size < n) {
      names.add(
        rng.bool(0.5)
          ? `${rng.pick(BOUTIQUE)} ${city.name}`
          : `${rng.pick(CHAINS)} ${city.name} ${rng.pick(DISTRICTS)}`,
      );
    }
    for (const name of names) {
      const stars = rng.pick([2, 3, 3, 4, 4, 4, 5, 5]);
      const district = DISTRICTS.find((d) => name.endsWith(d)) ?? rng.pick(DISTRICTS);
      const base = Math.round(45 + stars * 38 + rng.int(-20, 60));
      const amenities = AMENITIES.filter((a) =>
        rng.bool(
          a === 'Free WiFi'
            ? 0.9
            : stars >= 4 && (a === 'Pool' || a === 'Fitness center' || a === 'Restaurant')
              ? 0.7
              : 0.35,
        ),
      );
      const rooms = rng
        .shuffle(ROOMS)
        .slice(0, rng.int(3, 5))
        .sort((x, y) => x[1] - y[1])
        .map(([rname, f, g, beds]) => ({
          id: rname.toLowerCase().replace(/ /g, '-'),
          name: rname,
          price: Math.round(base * f),
          maxGuests: g,
          beds,
        }));
      out.push({
        id: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
        name,
        city: city.id,
        district,
        stars,
        guestRating: Math.round((6 + stars * 0.4 + rng.next() * 2.2) * 10) / 10,
        reviewCount: rng.int(40, 4200),
        amenities,
        freeCancellation: rng.bool(0.55),
        rooms,
        price: Math.min(...rooms.map((r) => r.price)),
      });
    }
  }
  return out;
}

/** Builds the travel site's data from the world seed: 46 airports, 6 airlines, ~320 hotels. */
export function buildTravelData(seed: number): TravelData {
  const hotels = buildHotels(seed);
  return {
    airports: AIRPORTS,
    airportByCode: new Map(AIRPORTS.map((a) => [a.code, a])),
    airlines: AIRLINES,
    fares: FARES,
    cities: CITIES,
    hotels,
    hotelById: new Map(hotels.map((h) => [h.id, h])),
    seed,
  };
}

export function airlineName(data: TravelData, code: string): string {
  return data.airlines.find((a) => a.code === code)?.name ?? code;
}

export function fareOf(data: TravelData, code: string): Fare {
  return data.fares.find((f) => f.code === code) ?? data.fares[1];
}

/** "6:05 AM" from minutes after midnight (wrapping past midnight). */
export function clock(min: number): string {
  const m = ((min % 1440) + 1440) % 1440;
  const h = Math.floor(m / 60);
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m % 60).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`;
}

/** "5h 20m" */
export function durationText(min: number): string {
  return `${Math.floor(min / 60)}h ${String(min % 60).padStart(2, '0')}m`;
}

/** Airport label as the autocomplete lists it. */
export function airportLabel(a: Airport): string {
  return `${a.city} (${a.code}) – ${a.name}`;
}

/** How a task names an airport: the city alone when it has one airport, else city and code. */
export function airportMention(data: TravelData, code: string): string {
  const a = data.airportByCode.get(code)!;
  const shared = data.airports.filter((x) => x.city === a.city).length > 1;
  return shared ? `${a.city} (${a.code})` : a.city;
}

export function cityLabel(c: City): string {
  return `${c.name}, ${c.country}`;
}

/** Nights between two ISO dates. */
export function nights(checkin: string, checkout: string): number {
  return Math.round((Date.parse(`${checkout}T00:00:00Z`) - Date.parse(`${checkin}T00:00:00Z`)) / 86_400_000);
}

/** "March 12, 2027" */
export function longDate(iso: string): string {
  return new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-US', {
    month: 'long',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });
}
