import type { TaskTemplate } from '../../site.ts';
import type { TravelData } from './data.ts';
import type { TravelState } from './state.ts';
import {
  bookFlight,
  cheapestNonstop,
  earliestNonstopUnder,
  fareRules,
  fastestFlight,
} from './templates-flights.ts';
import { bookHotel, cheapestHotel, hotelRating, topRatedHotel } from './templates-hotels.ts';

/** The travel site's task templates: six information tasks and three bookings. */
export const TRAVEL_TEMPLATES: TaskTemplate<any, TravelState, TravelData>[] = [
  cheapestNonstop,
  fastestFlight,
  earliestNonstopUnder,
  fareRules,
  bookFlight,
  cheapestHotel,
  topRatedHotel,
  hotelRating,
  bookHotel,
];
