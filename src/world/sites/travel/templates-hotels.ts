import { nameCondition, numberCondition } from '../../answer.ts';
import { cond } from '../../match.ts';
import type { TaskTemplate } from '../../site.ts';
import { chooseSuggestion, dismissOverlays, has, pickDate } from '../../solver-steps.ts';
import { inSplit } from '../../split.ts';
import { drawCustomer } from '../customer.ts';
import { memoByData } from '../memo.ts';
import { AMENITIES, AMENITY_PHRASE, cityLabel, type Hotel, longDate, type TravelData } from './data.ts';
import { filterHotels, HOTEL_PAGE_SIZE } from './listing.ts';
import { monthsAhead } from './solve.ts';
import type { TravelState } from './state.ts';

type TravelTemplate<P> = TaskTemplate<P, TravelState, TravelData>;

function cityName(data: TravelData, id: string): string {
  return data.cities.find((c) => c.id === id)?.name ?? id;
}

function cityHotelNames(data: TravelData, city: string): string[] {
  return data.hotels.filter((h) => h.city === city).map((h) => h.name);
}

/** Opens the hotel's link from a results page, going to the next page when it is not on this one. */
async function openHotelFromList(
  d: Parameters<TravelTemplate<unknown>['solve']>[1],
  data: TravelData,
  h: Hotel,
): Promise<void> {
  await pageToHotel(d, data, h);
  await d.click({ name: h.name, tag: 'a' });
}

/**
 * Follows "Next" until the hotel's link is on the page. Order and page size vary under a world
 * perturbation, so the page is found by looking, as an agent would, not computed.
 */
async function pageToHotel(
  d: Parameters<TravelTemplate<unknown>['solve']>[1],
  data: TravelData,
  h: Hotel,
): Promise<void> {
  const pages = Math.ceil(filterHotels(data, { city: h.city }).length / 3);
  for (let p = 1; p <= pages; p++) {
    if (has(d.obs, { name: h.name, tag: 'a' })) return;
    await d.click({ name: 'Next', tag: 'a' });
  }
  throw new Error(`hotel ${h.name} not found in the results`);
}

interface CheapestHotelParams {
  city: string;
  stars: number;
  amenity: string;
  freeCancellation: boolean;
  answerId: string;
}

const cheapestHotelCombos = memoByData((data: TravelData) => {
  const out: CheapestHotelParams[] = [];
  for (const c of data.cities) {
    const cheapestOverall = filterHotels(data, { city: c.id, sort: 'price' })[0];
    for (const stars of [2, 3, 4, 5]) {
      for (const amenity of AMENITIES) {
        for (const freeCancellation of [true, false]) {
          const s = filterHotels(data, {
            city: c.id,
            stars: [stars],
            amenities: [amenity],
            freeCancellation,
            sort: 'price',
          });
          if (!s.length || (s.length > 1 && s[0].price === s[1].price) || s[0].id === cheapestOverall.id)
            continue;
          out.push({ city: c.id, stars, amenity, freeCancellation, answerId: s[0].id });
        }
      }
    }
  }
  return out;
});

export const cheapestHotel: TravelTemplate<CheapestHotelParams> = {
  id: 'travel.cheapest-hotel-filtered',
  description:
    'Information: the cheapest hotel with an exact star class, an amenity and maybe free cancellation.',
  generate(ctx) {
    const key = (c: CheapestHotelParams) => `${c.city}|${c.stars}|${c.amenity}|${c.freeCancellation}`;
    const pool = inSplit(cheapestHotelCombos(ctx.data), ctx.split, key);
    if (!pool.length) return null;
    const c = ctx.rng.pick(pool);
    const fc = c.freeCancellation ? ' and free cancellation' : '';
    const objective = ctx.rng.pick([
      `What's the cheapest ${c.stars}-star hotel in ${cityName(ctx.data, c.city)} with ${AMENITY_PHRASE[c.amenity]}${fc}? Give me the hotel's name.`,
      `Find me the lowest-priced hotel in ${cityName(ctx.data, c.city)} that is exactly ${c.stars} stars and has ${AMENITY_PHRASE[c.amenity]}${fc}. Which one is it?`,
    ]);
    return {
      params: c,
      objective,
      startPath: `/hotels?city=${c.city}`,
      referenceLength: 6 + (c.freeCancellation ? 1 : 0),
      splitKey: key(c),
    };
  },
  verify(p, _s, answer, data) {
    return [
      nameCondition(
        'answer.name',
        answer,
        data.hotelById.get(p.answerId)!.name,
        cityHotelNames(data, p.city),
      ),
    ];
  },
  async solve(p, d, data) {
    await dismissOverlays(d);
    await d.click({ name: `${p.stars} stars`, tag: 'input' });
    await d.click({ name: p.amenity, tag: 'input' });
    if (p.freeCancellation) await d.click({ name: 'Free cancellation', tag: 'input' });
    await d.select({ name: 'Sort by', tag: 'select' }, 'Price (lowest first)');
    await d.click({ name: 'Apply filters', tag: 'button' });
    await d.done(data.hotelById.get(p.answerId)!.name);
  },
};

interface TopHotelParams {
  city: string;
  maxPrice: number;
  answerId: string;
}

const topHotelCombos = memoByData((data: TravelData) => {
  const out: TopHotelParams[] = [];
  for (const c of data.cities) {
    const bestOverall = filterHotels(data, { city: c.id, sort: 'rating' })[0];
    for (let maxPrice = 100; maxPrice <= 400; maxPrice += 25) {
      const s = filterHotels(data, { city: c.id, maxPrice, sort: 'rating' });
      if (s.length < 2 || s[0].guestRating === s[1].guestRating || s[0].id === bestOverall.id) continue;
      out.push({ city: c.id, maxPrice, answerId: s[0].id });
    }
  }
  return out;
});

export const topRatedHotel: TravelTemplate<TopHotelParams> = {
  id: 'travel.top-rated-hotel-under',
  description:
    'Information: the best-rated hotel of a city under a nightly price (price filter + rating sort).',
  generate(ctx) {
    const key = (c: TopHotelParams) => `${c.city}|${c.maxPrice}`;
    const pool = inSplit(topHotelCombos(ctx.data), ctx.split, key);
    if (!pool.length) return null;
    const c = ctx.rng.pick(pool);
    const objective = ctx.rng.pick([
      `Which hotel in ${cityName(ctx.data, c.city)} costing at most $${c.maxPrice} a night has the best guest rating?`,
      `My budget in ${cityName(ctx.data, c.city)} is $${c.maxPrice} per night. Which hotel within that has the highest guest rating?`,
    ]);
    return {
      params: c,
      objective,
      startPath: `/hotels?city=${c.city}`,
      referenceLength: 5,
      splitKey: key(c),
    };
  },
  verify(p, _s, answer, data) {
    return [
      nameCondition(
        'answer.name',
        answer,
        data.hotelById.get(p.answerId)!.name,
        cityHotelNames(data, p.city),
      ),
    ];
  },
  async solve(p, d, data) {
    await dismissOverlays(d);
    await d.input({ name: 'Max price per night ($)', tag: 'input' }, String(p.maxPrice));
    await d.select({ name: 'Sort by', tag: 'select' }, 'Guest rating (highest first)');
    await d.click({ name: 'Apply filters', tag: 'button' });
    await d.done(data.hotelById.get(p.answerId)!.name);
  },
};

/** Hotels per split, and those sharing a chain name with another hotel of their city (lookalikes). */
const hotelPools = memoByData((data: TravelData) => {
  const chain = (h: Hotel) => h.name.split(' ').slice(0, 2).join(' ');
  const pools = (split: 'train' | 'test') => {
    const all = inSplit(data.hotels, split, (h) => h.id);
    const twins = all.filter((h) =>
      data.hotels.some((o) => o.id !== h.id && o.city === h.city && chain(o) === chain(h)),
    );
    return { all, twins };
  };
  return { train: pools('train'), test: pools('test') };
});

export const hotelRating: TravelTemplate<{ hotelId: string; rating: number }> = {
  id: 'travel.hotel-rating',
  description: 'Information: the guest rating of a named hotel (lookalike chain hotels, maybe on page 2).',
  generate(ctx) {
    const { all, twins } = hotelPools(ctx.data)[ctx.split];
    const h = ctx.rng.bool(0.6) && twins.length ? ctx.rng.pick(twins) : ctx.rng.pick(all);
    const objective = ctx.rng.pick([
      `What guest rating does ${h.name} have?`,
      `How do guests rate ${h.name} (out of 10)?`,
    ]);
    const idx = filterHotels(ctx.data, { city: h.city }).findIndex((x) => x.id === h.id);
    return {
      params: { hotelId: h.id, rating: h.guestRating },
      objective,
      startPath: `/hotels?city=${h.city}`,
      referenceLength: 2 + Math.floor(idx / HOTEL_PAGE_SIZE),
      splitKey: h.id,
    };
  },
  verify(p, _s, answer) {
    // "8.7/10" states the scale too.
    return [
      numberCondition('answer.rating', answer?.replace(/(out of|\/)\s*10\b/gi, ' ') ?? null, p.rating, 0.05),
    ];
  },
  async solve(p, d, data) {
    const h = data.hotelById.get(p.hotelId)!;
    await dismissOverlays(d);
    await pageToHotel(d, data, h);
    await d.done(`${h.name} is rated ${h.guestRating.toFixed(1)} out of 10.`);
  },
};

interface BookHotelParams {
  hotelId: string;
  roomId: string;
  checkin: string;
  checkout: string;
  guests: number;
  first: string;
  last: string;
  email: string;
}

export const bookHotel: TravelTemplate<BookHotelParams> = {
  id: 'travel.book-hotel',
  description: 'Transaction: search hotels (tab, autocomplete, two date pickers), pick a room type, book it.',
  generate(ctx) {
    const h = ctx.rng.pick(hotelPools(ctx.data)[ctx.split].all);
    const room = ctx.rng.pick(h.rooms);
    const guests = ctx.rng.int(1, Math.min(4, room.maxGuests));
    const start = ctx.rng.int(3, 50);
    const checkin = new Date(Date.UTC(2027, 2, start)).toISOString().slice(0, 10);
    const checkout = new Date(Date.UTC(2027, 2, start + ctx.rng.int(1, 5))).toISOString().slice(0, 10);
    const c = drawCustomer(ctx.rng);
    const objective = ctx.rng.pick([
      `Book a ${room.name} at ${h.name} from ${longDate(checkin)} to ${longDate(checkout)} for ${guests} ${guests === 1 ? 'guest' : 'guests'}. Guest: ${c.fullName}, email ${c.email}.`,
      `Reserve the ${room.name} room at ${h.name}, checking in ${longDate(checkin)} and out ${longDate(checkout)}, ${guests} ${guests === 1 ? 'guest' : 'guests'}, under the name ${c.fullName} (${c.email}).`,
    ]);
    const idx = filterHotels(ctx.data, { city: h.city }).findIndex((x) => x.id === h.id);
    const ref = 16 + monthsAhead(checkin) + monthsAhead(checkout) + Math.floor(idx / HOTEL_PAGE_SIZE);
    return {
      params: {
        hotelId: h.id,
        roomId: room.id,
        checkin,
        checkout,
        guests,
        first: c.first,
        last: c.last,
        email: c.email,
      },
      objective,
      startPath: '/',
      referenceLength: ref,
      splitKey: h.id,
    };
  },
  verify(p, state) {
    const b = state.hotels.at(-1);
    const norm = (s: string | undefined) => (s ?? '').trim().toLowerCase();
    return [
      cond('booking.made', !!b, 'no hotel was booked'),
      cond('booking.hotel', b?.hotelId === p.hotelId, `booked ${b?.hotelId ?? 'nothing'}`),
      cond('booking.room', b?.roomId === p.roomId, `room ${b?.roomId ?? ''}`),
      cond('booking.checkin', b?.checkin === p.checkin, `check-in ${b?.checkin ?? ''}`),
      cond('booking.checkout', b?.checkout === p.checkout, `check-out ${b?.checkout ?? ''}`),
      cond('booking.guests', b?.guests === p.guests, `${b?.guests ?? 0} guests`),
      cond(
        'booking.name',
        norm(b?.first) === norm(p.first) && norm(b?.last) === norm(p.last),
        `name "${b?.first ?? ''} ${b?.last ?? ''}"`,
      ),
      cond('booking.email', norm(b?.email) === norm(p.email), `email "${b?.email ?? ''}"`),
    ];
  },
  async solve(p, d, data) {
    const h = data.hotelById.get(p.hotelId)!;
    const city = data.cities.find((c) => c.id === h.city)!;
    await dismissOverlays(d);
    await d.click({ name: 'Hotels', role: 'tab' });
    await chooseSuggestion(d, { name: 'Destination', tag: 'input' }, city.name, cityLabel(city));
    await pickDate(d, { name: 'Check-in', tag: 'input' }, p.checkin);
    await pickDate(d, { name: 'Check-out', tag: 'input' }, p.checkout);
    await d.select({ name: 'Guests', tag: 'select' }, `${p.guests} ${p.guests === 1 ? 'guest' : 'guests'}`);
    await d.click({ name: 'Search hotels', tag: 'button' });
    await openHotelFromList(d, data, h);
    const nth = h.rooms.findIndex((r) => r.id === p.roomId);
    await d.click({ name: 'Reserve', tag: 'a', nth });
    await d.input({ name: 'First name', tag: 'input' }, p.first);
    await d.input({ name: 'Last name', tag: 'input' }, p.last);
    await d.input({ name: 'Email', tag: 'input' }, p.email);
    await d.click({ name: 'Confirm booking', tag: 'button' });
    await d.waitFor((o) => o.url.includes('/trips?booked='), 'the booking confirmation');
  },
};
