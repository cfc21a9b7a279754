import type { Rng } from '../../../core/rng.ts';
import type { RawQuery, Site, SiteFactory } from '../../site.ts';
import { buildMailData, type MailData } from './data.ts';
import { mailRawQueries } from './queries.ts';
import { handleMail } from './routes.ts';
import { initialMailState, type MailState } from './state.ts';
import { MAIL_TEMPLATES } from './templates.ts';

/** Postbox, the webmail site: a seeded mailbox of several hundred messages. */
export const createMailSite: SiteFactory = (seed: number): Site<MailState, MailData> => {
  const data = buildMailData(seed);
  return {
    id: 'mail',
    title: 'Postbox Mail',
    data,
    initialState: initialMailState,
    handle: (req, state) => handleMail(data, req, state),
    templates: MAIL_TEMPLATES,
    rawQueries: (rng: Rng): RawQuery[] => mailRawQueries(rng, data),
  };
};
