import { cond } from '../../match.ts';
import type { Condition, TaskTemplate } from '../../site.ts';
import { dismissOverlays } from '../../solver-steps.ts';
import { drawCustomer as drawPerson, type Customer as Person } from '../customer.ts';
import { lookalikesOf, type Product, type ShopData } from './data.ts';
import { addVariant, fillAddress, openProduct, placeOrder } from './solve.ts';
import { type CartLine, SHIPPING_METHODS, type ShippingMethodId, type ShopState } from './state.ts';
import { drawProduct } from './templates-info.ts';

type ShopTemplate<P> = TaskTemplate<P, ShopState, ShopData>;

interface Variant {
  productId: string;
  size: string;
  color: string;
  qty: number;
}

function drawVariant(
  rng: { pick<T>(x: readonly T[]): T; int(a: number, b: number): number },
  p: Product,
  maxQty = 3,
): Variant {
  const sizes = p.sizes.filter((s) => !p.soldOutSizes.includes(s));
  return {
    productId: p.id,
    size: sizes.length ? rng.pick(sizes) : '',
    color: rng.pick(p.colors),
    qty: rng.int(1, maxQty),
  };
}

function variantText(v: Variant): string {
  return [v.size && `size ${v.size}`, v.color].filter(Boolean).join(', ');
}

function variantConditions(prefix: string, lines: CartLine[], v: Variant, checkQty = true): Condition[] {
  const mine = lines.filter((l) => l.productId === v.productId);
  const exact = mine.find((l) => l.size === v.size && l.color === v.color);
  const out: Condition[] = [cond(`${prefix}.item`, mine.length > 0, `no ${v.productId} in the ${prefix}`)];
  if (v.size)
    out.push(
      cond(
        `${prefix}.size`,
        mine.some((l) => l.size === v.size),
        `size ${v.size} missing`,
      ),
    );
  out.push(
    cond(
      `${prefix}.color`,
      mine.some((l) => l.color === v.color),
      `color ${v.color} missing`,
    ),
  );
  if (checkQty) {
    const q = mine.reduce((s, l) => s + l.qty, 0);
    out.push(
      cond(
        `${prefix}.qty`,
        !!exact && exact.qty === v.qty && q === v.qty,
        exact
          ? `quantity ${q}, expected ${v.qty}`
          : `quantity ${v.qty} wanted of the ${v.size ? `${v.size}, ` : ''}${v.color} variant, which is not there`,
      ),
    );
  }
  return out;
}

function onlyThese(prefix: string, lines: CartLine[], ids: string[]): Condition {
  const extra = lines.filter((l) => !ids.includes(l.productId));
  return cond(
    `${prefix}.no-other-items`,
    extra.length === 0,
    `unexpected items: ${extra.map((l) => l.productId).join(', ')}`,
  );
}

export const addVariantToCart: ShopTemplate<Variant> = {
  id: 'shop.add-variant-to-cart',
  description:
    'Transaction: add a product in a given size, color and quantity to the cart (lookalikes, sold-out sizes).',
  generate(ctx) {
    const p = drawProduct(ctx, (x) => x.inStock);
    if (!p) return null;
    const v = drawVariant(ctx.rng, p, 4);
    const what = variantText(v);
    const objective = ctx.rng.pick([
      `Add ${v.qty} of the ${p.name} (${what}) to my cart.`,
      `Put the ${p.name} in ${what} in my cart — quantity ${v.qty}.`,
      `I want ${v.qty === 1 ? 'one' : v.qty} ${p.name}, ${what}. Add ${v.qty === 1 ? 'it' : 'them'} to the cart.`,
    ]);
    const ref = 6 + (v.size ? 1 : 0) + (v.qty > 1 ? 1 : 0);
    return { params: v, objective, startPath: '/', referenceLength: ref, splitKey: p.id };
  },
  verify(v, state) {
    return [...variantConditions('cart', state.cart, v), onlyThese('cart', state.cart, [v.productId])];
  },
  async solve(v, d, data) {
    const p = data.byId.get(v.productId)!;
    await dismissOverlays(d);
    await openProduct(d, p);
    await addVariant(d, p, v);
  },
};

export const wishlistAdd: ShopTemplate<{ productId: string }> = {
  id: 'shop.wishlist-add',
  description: 'Transaction: save a named product (not its lookalike) to the wishlist.',
  generate(ctx) {
    const p = drawProduct(ctx);
    if (!p) return null;
    const objective = ctx.rng.pick([
      `Save the ${p.name} to my wishlist.`,
      `Add the ${p.name} to my wish list so I can buy it later — don't put it in the cart.`,
    ]);
    return { params: { productId: p.id }, objective, startPath: '/', referenceLength: 5, splitKey: p.id };
  },
  verify(params, state, _answer, data) {
    const p = data.byId.get(params.productId)!;
    const twins = lookalikesOf(data, p).map((x) => x.id);
    return [
      cond('wishlist.item', state.wishlist.includes(p.id), `${p.id} is not in the wishlist`),
      cond(
        'wishlist.no-lookalike',
        !state.wishlist.some((id) => twins.includes(id)),
        'a lookalike product was saved',
      ),
      cond('cart.untouched', state.cart.length === 0, 'the cart is not empty'),
    ];
  },
  async solve(params, d, data) {
    const p = data.byId.get(params.productId)!;
    await dismissOverlays(d);
    await openProduct(d, p);
    await d.click({ name: 'Add to wishlist', tag: 'button' });
  },
};

interface BundleParams {
  main: Variant;
  fbtId: string;
}

export const fbtBundle: ShopTemplate<BundleParams> = {
  id: 'shop.fbt-bundle',
  description:
    'Transaction: add a product and its "Frequently bought together" item (two Add to cart buttons).',
  generate(ctx) {
    const p = drawProduct(ctx, (x) => x.inStock && !!x.fbt && !!ctx.data.byId.get(x.fbt)?.inStock);
    if (!p) return null;
    const main = { ...drawVariant(ctx.rng, p, 1), color: p.colors[0] };
    const fbt = ctx.data.byId.get(p.fbt!)!;
    const objective = ctx.rng.pick([
      `Add the ${p.name}${main.size ? ` in size ${main.size}` : ''} to my cart, together with the ${fbt.name} that's frequently bought with it. One of each.`,
      `Get me one ${p.name}${main.size ? ` (size ${main.size})` : ''} and one of the ${fbt.name} shown as frequently bought together — add both to the cart.`,
    ]);
    return {
      params: { main, fbtId: fbt.id },
      objective,
      startPath: '/',
      referenceLength: 6 + (main.size ? 1 : 0),
      splitKey: p.id,
    };
  },
  verify(params, state) {
    const fbt = state.cart.filter((l) => l.productId === params.fbtId);
    return [
      ...variantConditions('cart', state.cart, params.main, false),
      cond('cart.fbt-item', fbt.length > 0, `${params.fbtId} is not in the cart`),
      cond(
        'cart.one-of-each',
        state.cart.filter((l) => l.productId === params.main.productId).reduce((s, l) => s + l.qty, 0) ===
          1 && fbt.reduce((s, l) => s + l.qty, 0) === 1,
        'expected exactly one of each',
      ),
      onlyThese('cart', state.cart, [params.main.productId, params.fbtId]),
    ];
  },
  async solve(params, d, data) {
    const p = data.byId.get(params.main.productId)!;
    await dismissOverlays(d);
    await openProduct(d, p);
    await addVariant(d, p, { size: params.main.size });
    await d.click({ name: 'Add to cart', tag: 'button', nth: 1 });
    await d.waitFor((o) => o.url.includes(`/p/${params.fbtId}?added=1`), 'the bundle item added');
  },
};

interface CheckoutParams {
  item: Variant;
  person: Person;
  method: ShippingMethodId;
  coupon: string | null;
}

function orderConditions(params: CheckoutParams, state: ShopState, withQty: boolean): Condition[] {
  const o = state.orders.at(-1);
  const a = o?.address;
  const norm = (s: string | undefined) => (s ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  const out: Condition[] = [cond('order.placed', !!o, 'no order was placed')];
  out.push(...variantConditions('order', o?.lines ?? [], params.item, withQty));
  out.push(onlyThese('order', o?.lines ?? [], [params.item.productId]));
  out.push(
    cond(
      'order.shipping-method',
      o?.shippingMethod === params.method,
      `shipping ${o?.shippingMethod}, expected ${params.method}`,
    ),
  );
  if (params.coupon)
    out.push(cond('order.coupon', o?.coupon === params.coupon, `coupon ${o?.coupon ?? 'none'}`));
  out.push(
    cond('order.name', norm(a?.fullName) === norm(params.person.fullName), `name "${a?.fullName ?? ''}"`),
  );
  out.push(cond('order.email', norm(a?.email) === norm(params.person.email), `email "${a?.email ?? ''}"`));
  out.push(
    cond('order.street', norm(a?.street) === norm(params.person.street), `street "${a?.street ?? ''}"`),
  );
  out.push(cond('order.city', norm(a?.city) === norm(params.person.city), `city "${a?.city ?? ''}"`));
  out.push(cond('order.state', a?.state === params.person.state, `state "${a?.state ?? ''}"`));
  out.push(cond('order.zip', a?.zip === params.person.zip, `zip "${a?.zip ?? ''}"`));
  return out;
}

function addressText(p: Person): string {
  return `${p.fullName}, ${p.street}, ${p.city}, ${p.state} ${p.zip} (email ${p.email})`;
}

export const checkoutOrder: ShopTemplate<CheckoutParams> = {
  id: 'shop.checkout',
  description:
    'Transaction: buy a product variant and check out with an address and a shipping speed (validation, terms box).',
  generate(ctx) {
    const p = drawProduct(ctx, (x) => x.inStock && x.sizes.length > 0);
    if (!p) return null;
    const item = drawVariant(ctx.rng, p, 2);
    const person = drawPerson(ctx.rng);
    const method = ctx.rng.pick(SHIPPING_METHODS).id;
    const speed = SHIPPING_METHODS.find((m) => m.id === method)!
      .label.replace(/ \(.*\)/, '')
      .toLowerCase();
    const objective = ctx.rng.pick([
      `Buy ${item.qty} of the ${p.name} in ${variantText(item)} and ship ${item.qty === 1 ? 'it' : 'them'} to ${addressText(person)} with ${speed} shipping.`,
      `Order the ${p.name} (${variantText(item)}, quantity ${item.qty}) for ${person.fullName}. Address: ${person.street}, ${person.city}, ${person.state} ${person.zip}. Email: ${person.email}. Use ${speed} shipping.`,
    ]);
    const ref = 18 + (item.qty > 1 ? 1 : 0) + (method !== 'standard' ? 1 : 0);
    return {
      params: { item, person, method, coupon: null },
      objective,
      startPath: '/',
      referenceLength: ref,
      splitKey: p.id,
    };
  },
  verify(params, state) {
    return orderConditions(params, state, true);
  },
  async solve(params, d, data) {
    const p = data.byId.get(params.item.productId)!;
    await dismissOverlays(d);
    await openProduct(d, p);
    await addVariant(d, p, params.item);
    await d.click({ name: 'View cart', tag: 'a' });
    await d.click({ name: 'Proceed to checkout', tag: 'a' });
    await fillAddress(d, params.person);
    if (params.method !== 'standard') {
      const label = SHIPPING_METHODS.find((m) => m.id === params.method)!.label;
      await d.click({ name: new RegExp(`^${label.replace(/[()]/g, '\\$&')}`), tag: 'input' });
    }
    await placeOrder(d);
  },
};

export const couponCheckout: ShopTemplate<CheckoutParams> = {
  id: 'shop.coupon-checkout',
  description: 'Transaction: buy a product with a coupon code applied in the cart, standard shipping.',
  generate(ctx) {
    const p = drawProduct(ctx, (x) => x.inStock && x.sizes.length === 0);
    if (!p) return null;
    const item = { ...drawVariant(ctx.rng, p, 1), qty: 1 };
    const codes = p.price >= 100 ? ['SAVE10', 'FREESHIP', 'WELCOME15'] : ['SAVE10', 'FREESHIP'];
    const coupon = ctx.rng.pick(codes);
    const person = drawPerson(ctx.rng);
    const objective = ctx.rng.pick([
      `Order one ${p.name} in ${item.color} using the coupon code ${coupon}, standard shipping, to ${addressText(person)}.`,
      `Check out the ${p.name} (${item.color}) with coupon ${coupon} applied. Ship it standard to ${addressText(person)}.`,
    ]);
    return {
      params: { item, person, method: 'standard', coupon },
      objective,
      startPath: '/',
      referenceLength: 18,
      splitKey: p.id,
    };
  },
  verify(params, state) {
    return orderConditions(params, state, true);
  },
  async solve(params, d, data) {
    const p = data.byId.get(params.item.productId)!;
    await dismissOverlays(d);
    await openProduct(d, p);
    await addVariant(d, p, params.item);
    await d.click({ name: 'View cart', tag: 'a' });
    await d.input({ name: 'Coupon code', tag: 'input' }, params.coupon!);
    await d.click({ name: 'Apply', tag: 'button' });
    await d.click({ name: 'Proceed to checkout', tag: 'a' });
    await fillAddress(d, params.person);
    await placeOrder(d);
  },
};
