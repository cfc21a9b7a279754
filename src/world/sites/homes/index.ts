import type { Rng } from '../../../core/rng.ts';
import type { RawQuery, Site, SiteFactory } from '../../site.ts';
import { buildHomesData, type HomesData } from './data.ts';
import { homesRawQueries } from './queries.ts';
import { handleHomes } from './routes.ts';
import { type HomesState, initialHomesState } from './state.ts';
import { HOMES_TEMPLATES } from './templates.ts';

/** Nestfind, the real-estate listings site: about 600 homes in eight cities. */
export const createHomesSite: SiteFactory = (seed: number): Site<HomesState, HomesData> => {
  const data = buildHomesData(seed);
  return {
    id: 'homes',
    title: 'Nestfind Homes',
    data,
    initialState: initialHomesState,
    handle: (req, state) => handleHomes(data, req, state),
    templates: HOMES_TEMPLATES,
    rawQueries: (rng: Rng): RawQuery[] => homesRawQueries(rng, data),
  };
};
