import type { SiteFactory } from '../site.ts';
import { createFormsSite } from './forms/index.ts';
import { createHomesSite } from './homes/index.ts';
import { createMailSite } from './mail/index.ts';
import { createRecipesSite } from './recipes/index.ts';
import { createShopSite } from './shop/index.ts';
import { createTravelSite } from './travel/index.ts';

/**
 * Every site of the offline world. Each site lives in its own folder and adds one line here.
 */
export const SITE_FACTORIES: SiteFactory[] = [
  createShopSite,
  createTravelSite,
  createRecipesSite,
  createMailSite,
  createFormsSite,
  createHomesSite,
];
