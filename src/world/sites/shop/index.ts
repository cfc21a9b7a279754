import type { Rng } from '../../../core/rng.ts';
import type { Site, SiteFactory } from '../../site.ts';
import { buildShopData, type ShopData } from './data.ts';
import { handleShop } from './handler.ts';
import { SHOP_BRAND } from './layout.ts';
import { shopRawQueries } from './queries.ts';
import { initialShopState, type ShopState } from './state.ts';
import { shopTemplates } from './templates.ts';

/** The e-commerce site (`/shop/`): catalog, search, cart, checkout, orders, wishlist. */
export const createShopSite: SiteFactory = (seed: number): Site<ShopState, ShopData> => {
  const data = buildShopData(seed);
  return {
    id: 'shop',
    title: SHOP_BRAND,
    data,
    initialState: initialShopState,
    handle: (req, state) => handleShop(req, state, data, seed),
    templates: shopTemplates(seed),
    rawQueries: (rng: Rng) => shopRawQueries(rng, data),
  };
};

export type { ShopData, ShopState };
