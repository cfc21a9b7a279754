import type { Rng } from '../../../core/rng.ts';
import type { Site, SiteFactory } from '../../site.ts';
import { buildTravelData, type TravelData } from './data.ts';
import { handleTravel } from './handler.ts';
import { TRAVEL_BRAND } from './layout.ts';
import { travelRawQueries } from './queries.ts';
import { initialTravelState, type TravelState } from './state.ts';
import { TRAVEL_TEMPLATES } from './templates.ts';

/** The travel site (`/travel/`): flight and hotel search, fare rules, bookings, My trips. */
export const createTravelSite: SiteFactory = (seed: number): Site<TravelState, TravelData> => {
  const data = buildTravelData(seed);
  return {
    id: 'travel',
    title: TRAVEL_BRAND,
    data,
    initialState: initialTravelState,
    handle: (req, state) => handleTravel(req, state, data),
    templates: TRAVEL_TEMPLATES,
    rawQueries: (rng: Rng) => travelRawQueries(rng, data),
  };
};

export type { TravelData, TravelState };
