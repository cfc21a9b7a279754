import type { Rng } from '../../../core/rng.ts';
import type { RawQuery } from '../../site.ts';
import { messy } from '../messy.ts';
import type { ShopData } from './data.ts';

/**
 * About 240 messy shopper queries, each grounded in a shop template and catalog values so the
 * offline rewriter can turn it into a precise task.
 */
export function shopRawQueries(rng: Rng, data: ShopData): RawQuery[] {
  const out: RawQuery[] = [];
  const add = (text: string, template: string, params: Record<string, unknown>) =>
    out.push({ site: 'shop', text: messy(rng, text), grounding: { template, params } });
  const products = rng.shuffle(data.products);
  for (const p of products.slice(0, 50)) {
    add(
      rng.pick([`how much is ${p.name}`, `${p.model} price?`, `price of the ${p.brand} ${p.model}`]),
      'shop.product-price',
      { productId: p.id },
    );
  }
  for (const p of products.slice(50, 100).filter((x) => x.inStock)) {
    const size = p.sizes.find((s) => !p.soldOutSizes.includes(s)) ?? '';
    const color = p.colors[0];
    add(
      rng.pick([
        `add ${p.model} ${size ? `size ${size} ` : ''}${color} to cart`,
        `i need the ${p.name} in ${color.toLowerCase()}${size ? ` sz ${size}` : ''}`,
        `buy ${p.brand} ${p.model}${size ? ` ${size}` : ''}`,
      ]),
      'shop.add-variant-to-cart',
      { productId: p.id, size, color, qty: 1 },
    );
  }
  for (const c of data.categories) {
    const brands = [...new Set(data.products.filter((p) => p.category === c.id).map((p) => p.brand))];
    for (const brand of brands) {
      add(
        rng.pick([
          `cheapest ${brand} ${c.name.toLowerCase()} 4 stars`,
          `${brand} ${c.noun} cheap good reviews`,
          `lowest price ${brand} ${c.name.toLowerCase()}`,
        ]),
        'shop.cheapest-filtered',
        { category: c.id, brand, minRating: 4 },
      );
      add(
        rng.pick([
          `how many ${brand} ${c.name.toLowerCase()} in stock under 100`,
          `${brand} ${c.noun}s available between 50 and 150`,
        ]),
        'shop.count-filtered',
        { category: c.id, brand },
      );
    }
    for (const max of [50, 100, 200]) {
      add(
        rng.pick([
          `best rated ${c.noun} under ${max}`,
          `top ${c.name.toLowerCase()} below $${max}`,
          `good ${c.noun} less than ${max} dollars`,
        ]),
        'shop.top-rated-under-price',
        { category: c.id, maxPrice: max },
      );
    }
  }
  for (const p of products.slice(100, 140)) {
    add(
      rng.pick([`save ${p.model} for later`, `wishlist ${p.name}`, `remember the ${p.brand} ${p.model}`]),
      'shop.wishlist-add',
      { productId: p.id },
    );
  }
  for (const p of products.slice(140, 170).filter((x) => x.fbt)) {
    const f = data.byId.get(p.fbt!)!;
    add(`${p.model} plus the ${f.model} that goes with it`, 'shop.fbt-bundle', {
      productId: p.id,
      fbtId: f.id,
    });
  }
  for (const p of products.slice(170, 200).filter((x) => x.reviewCount >= 3)) {
    add(rng.pick([`what do reviews say about ${p.name}`, `${p.model} reviews`]), 'shop.review-lookup', {
      productId: p.id,
    });
  }
  for (const p of products.slice(200, 230).filter((x) => x.inStock)) {
    add(
      rng.pick([
        `order ${p.model} ship express`,
        `checkout ${p.name} fast shipping to my place`,
        `buy ${p.model} w/ code SAVE10`,
      ]),
      rng.bool(0.5) ? 'shop.checkout' : 'shop.coupon-checkout',
      { productId: p.id },
    );
  }
  return out;
}
