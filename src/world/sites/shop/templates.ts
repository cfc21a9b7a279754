import type { TaskTemplate } from '../../site.ts';
import type { ShopData } from './data.ts';
import type { ShopState } from './state.ts';
import { addVariantToCart, checkoutOrder, couponCheckout, fbtBundle, wishlistAdd } from './templates-cart.ts';
import {
  cheapestFiltered,
  countFiltered,
  productPrice,
  reviewTemplate,
  topRatedUnderPrice,
} from './templates-info.ts';

/** The shop's task templates: five information tasks and five transactions. */
export function shopTemplates(seed: number): TaskTemplate<any, ShopState, ShopData>[] {
  return [
    productPrice,
    cheapestFiltered,
    topRatedUnderPrice,
    countFiltered,
    reviewTemplate(seed),
    addVariantToCart,
    wishlistAdd,
    fbtBundle,
    checkoutOrder,
    couponCheckout,
  ];
}
