import type { SiteFactory } from '../site.ts';
import { createMailSite } from './mail/index.ts';
import { createShopSite } from './shop/index.ts';
import { createTravelSite } from './travel/index.ts';

/**
 * Every site of the offline world. Each site lives in its own folder and adds one line here.
 */
export const SITE_FACTORIES: SiteFactory[] = [
  createShopSite,
  createTravelSite,
  createMailSite,
];
