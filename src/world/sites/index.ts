import type { SiteFactory } from '../site.ts';

/**
 * Every site of the offline world. Each site lives in its own folder and adds one line here.
 */
export const SITE_FACTORIES: SiteFactory[] = [];
