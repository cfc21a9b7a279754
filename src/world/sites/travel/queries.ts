import type { Rng } from '../../../core/rng.ts';
import type { RawQuery } from '../../site.ts';
import { messy } from '../messy.ts';
import { AMENITIES, type TravelData } from './data.ts';

/**
 * About 230 messy traveller queries, each grounded in a travel template and its parameter values
 * (airport codes, dates, hotels) so the offline rewriter can make a precise task of it.
 */
export function travelRawQueries(rng: Rng, data: TravelData): RawQuery[] {
  const out: RawQuery[] = [];
  const add = (text: string, template: string, params: Record<string, unknown>) =>
    out.push({ site: 'travel', text: messy(rng, text), grounding: { template, params } });
  const day = () => new Date(Date.UTC(2027, 2, rng.int(2, 59))).toISOString().slice(0, 10);
  const monthDay = (iso: string) =>
    new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-US', {
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    });
  for (let i = 0; i < 150; i++) {
    const a = rng.pick(data.airports);
    const b = rng.pick(data.airports.filter((x) => x.city !== a.city));
    const date = day();
    const params = { from: a.code, to: b.code, date };
    const kind = i % 5;
    if (kind === 0)
      add(
        rng.pick([
          `cheap nonstop ${a.city} to ${b.city} ${monthDay(date)}`,
          `${a.code}-${b.code} direct flight price ${monthDay(date)}`,
        ]),
        'travel.cheapest-nonstop',
        params,
      );
    else if (kind === 1)
      add(
        rng.pick([
          `fastest flight ${a.city} ${b.city} on ${monthDay(date)}`,
          `quickest way to fly ${a.code} to ${b.code}`,
        ]),
        'travel.fastest-flight',
        params,
      );
    else if (kind === 2)
      add(
        rng.pick([
          `early morning nonstop ${a.city} to ${b.city} under 300`,
          `first direct flight out of ${a.city} to ${b.city} ${monthDay(date)}`,
        ]),
        'travel.earliest-nonstop-under',
        params,
      );
    else if (kind === 3)
      add(
        rng.pick([
          `book me on the cheapest flight to ${b.city} from ${a.city} ${monthDay(date)}`,
          `need a ticket ${a.code} ${b.code} window seat`,
        ]),
        'travel.book-flight',
        params,
      );
    else
      add(
        rng.pick([
          `what does it cost to change my ${a.code}-${b.code} flight`,
          `bag fee on flights ${a.city} to ${b.city}?`,
        ]),
        'travel.fare-rules',
        params,
      );
  }
  for (const c of data.cities) {
    const am = rng.pick(AMENITIES).toLowerCase();
    add(
      rng.pick([
        `cheap 4 star hotel ${c.name} with ${am}`,
        `${c.name} hotels ${am} free cancelation cheapest`,
      ]),
      'travel.cheapest-hotel-filtered',
      { city: c.id, amenity: am },
    );
    add(
      rng.pick([`best rated hotel in ${c.name} under 200`, `top hotel ${c.name} cheap-ish`]),
      'travel.top-rated-hotel-under',
      { city: c.id },
    );
  }
  for (const h of rng.shuffle(data.hotels).slice(0, 40)) {
    add(rng.pick([`${h.name} reviews score`, `is ${h.name} any good`]), 'travel.hotel-rating', {
      hotelId: h.id,
    });
    if (rng.bool(0.6))
      add(
        rng.pick([
          `book ${h.rooms[0].name.toLowerCase()} at ${h.name}`,
          `room at ${h.name} next weekend 2 ppl`,
        ]),
        'travel.book-hotel',
        { hotelId: h.id, roomId: h.rooms[0].id },
      );
  }
  return out;
}
