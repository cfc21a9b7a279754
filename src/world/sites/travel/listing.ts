import type { Flight, Hotel, TravelData } from './data.ts';

/** Flight sort orders, as the results page's select lists them. */
export const FLIGHT_SORTS = [
  { id: 'recommended', label: 'Recommended' },
  { id: 'price', label: 'Price (lowest first)' },
  { id: 'duration', label: 'Duration (shortest first)' },
  { id: 'departure', label: 'Departure (earliest first)' },
] as const;
export type FlightSort = (typeof FLIGHT_SORTS)[number]['id'];

export interface FlightFilter {
  nonstop?: boolean;
  airlines?: string[];
  maxPrice?: number;
  sort?: FlightSort;
}

/** Filters and sorts a route's flights. "Recommended" mixes price, duration and stops. */
export function filterFlights(flights: Flight[], f: FlightFilter): Flight[] {
  const items = flights.filter(
    (x) =>
      (!f.nonstop || x.stops === 0) &&
      (!f.airlines?.length || f.airlines.includes(x.airline)) &&
      (f.maxPrice === undefined || x.price <= f.maxPrice),
  );
  const score = (x: Flight) => x.price + x.durationMin * 0.6 + x.stops * 60;
  const cmp: Record<FlightSort, (a: Flight, b: Flight) => number> = {
    recommended: (a, b) => score(a) - score(b) || a.depart - b.depart,
    price: (a, b) => a.price - b.price || a.depart - b.depart,
    duration: (a, b) => a.durationMin - b.durationMin || a.price - b.price,
    departure: (a, b) => a.depart - b.depart || a.price - b.price,
  };
  return items.sort(cmp[f.sort ?? 'recommended']);
}

export const HOTEL_SORTS = [
  { id: 'recommended', label: 'Recommended' },
  { id: 'price', label: 'Price (lowest first)' },
  { id: 'rating', label: 'Guest rating (highest first)' },
  { id: 'stars', label: 'Stars (highest first)' },
] as const;
export type HotelSort = (typeof HOTEL_SORTS)[number]['id'];

export interface HotelFilter {
  city: string;
  /** Exact star classes (4 means 4 stars, not 4 and up). */
  stars?: number[];
  maxPrice?: number;
  amenities?: string[];
  freeCancellation?: boolean;
  sort?: HotelSort;
}

export const HOTEL_PAGE_SIZE = 10;

export function filterHotels(data: TravelData, f: HotelFilter): Hotel[] {
  const items = data.hotels.filter(
    (h) =>
      h.city === f.city &&
      (!f.stars?.length || f.stars.includes(h.stars)) &&
      (f.maxPrice === undefined || h.price <= f.maxPrice) &&
      (f.amenities ?? []).every((a) => h.amenities.includes(a)) &&
      (!f.freeCancellation || h.freeCancellation),
  );
  const rec = (h: Hotel) => h.guestRating * 10 + Math.log10(h.reviewCount) * 4 - h.price / 40;
  const cmp: Record<HotelSort, (a: Hotel, b: Hotel) => number> = {
    recommended: (a, b) => rec(b) - rec(a) || a.name.localeCompare(b.name),
    price: (a, b) => a.price - b.price || a.name.localeCompare(b.name),
    rating: (a, b) => b.guestRating - a.guestRating || b.reviewCount - a.reviewCount,
    stars: (a, b) => b.stars - a.stars || b.guestRating - a.guestRating,
  };
  return items.sort(cmp[f.sort ?? 'recommended']);
}

/** Airport suggestions: code, city or airport name starting with the query. */
export function airportSuggestions(data: TravelData, q: string): Array<{ label: string; value: string }> {
  const t = q.trim().toLowerCase();
  if (t.length < 2) return [];
  return data.airports
    .filter(
      (a) =>
        a.code.toLowerCase() === t ||
        a.city.toLowerCase().startsWith(t) ||
        a.name
          .toLowerCase()
          .split(/[\s-]+/)
          .some((w) => w.startsWith(t)),
    )
    .slice(0, 8)
    .map((a) => ({ label: `${a.city} (${a.code}) – ${a.name}`, value: a.code }));
}

export function citySuggestions(data: TravelData, q: string): Array<{ label: string; value: string }> {
  const t = q.trim().toLowerCase();
  if (t.length < 2) return [];
  return data.cities
    .filter((c) => c.name.toLowerCase().startsWith(t) || c.name.toLowerCase().includes(` ${t}`))
    .slice(0, 8)
    .map((c) => ({ label: `${c.name}, ${c.country}`, value: c.id }));
}
