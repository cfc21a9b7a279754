import type { Rng } from '../../../core/rng.ts';
import type { RawQuery, Site, SiteFactory } from '../../site.ts';
import { buildFormsData, type FormsData } from './data.ts';
import { formsRawQueries } from './queries.ts';
import { handleForms } from './routes.ts';
import { type FormsState, initialFormsState } from './state.ts';
import { FORMS_TEMPLATES } from './templates.ts';

/** OneGov Services: multi-step government applications, a fee schedule and a status lookup. */
export const createFormsSite: SiteFactory = (seed: number): Site<FormsState, FormsData> => {
  const data = buildFormsData(seed);
  return {
    id: 'forms',
    title: 'OneGov Services',
    data,
    initialState: initialFormsState,
    handle: (req, state) => handleForms(data, req, state),
    templates: FORMS_TEMPLATES,
    rawQueries: (rng: Rng): RawQuery[] => formsRawQueries(rng, data),
  };
};
