import { formField, queryParam } from '../../form.ts';
import type { SiteRequest, SiteResponse } from '../../site.ts';
import { suggest } from './catalog.ts';
import { orderNumber, type ShopData } from './data.ts';
import { errorPage, shopPage } from './layout.ts';
import {
  cartPage,
  checkoutErrors,
  checkoutPage,
  infoPage,
  orderPage,
  ordersPage,
  wishlistPage,
} from './pages-cart.ts';
import { categoriesPage, homePage, listingPage, productPage } from './pages-catalog.ts';
import {
  addToCart,
  couponProblem,
  findCoupon,
  SHIPPING_METHODS,
  type ShippingAddress,
  type ShippingMethodId,
  type ShopState,
  subtotalOf,
  totalsOf,
} from './state.ts';

/** Routes one request of the shop site. */
export function handleShop(req: SiteRequest, state: ShopState, data: ShopData, seed: number): SiteResponse {
  const parts = req.path.split('/').filter(Boolean).map(decodeURIComponent);
  const [head, arg] = parts;
  if (req.method === 'POST') return handlePost(req, state, data, seed, parts);
  const notFound = (what: string): SiteResponse => ({
    status: 404,
    html: errorPage(req, state, 'Page not found', what),
  });
  switch (head) {
    case undefined:
      return { html: homePage(req, state, data) };
    case 'categories':
      return { html: categoriesPage(req, state, data) };
    case 'c': {
      const cat = data.categories.find((c) => c.id === arg);
      if (!cat) return notFound(`We could not find the category "${arg ?? ''}".`);
      return { html: listingPage(req, state, data, { title: cat.name, category: cat.id }) };
    }
    case 'search': {
      const q = queryParam(req, 'q');
      return { html: listingPage(req, state, data, { title: q ? `Results for "${q}"` : 'All products' }) };
    }
    case 'deals':
      return { html: listingPage(req, state, data, { title: 'Deals', dealsOnly: true }) };
    case 'p': {
      const p = data.byId.get(arg ?? '');
      if (!p) return notFound('That product is no longer available.');
      return { html: productPage(req, state, data, seed, p) };
    }
    case 'api':
      if (arg === 'suggest') return { json: suggest(data, queryParam(req, 'q')) };
      return { status: 404, json: { error: 'unknown endpoint' } };
    case 'cart':
      return { html: cartPage(req, state, data) };
    case 'checkout':
      return { html: checkoutPage(req, state, data) };
    case 'orders': {
      if (!arg) return { html: ordersPage(req, state, data) };
      const o = state.orders.find((x) => x.id === arg);
      return o ? { html: orderPage(req, state, data, o) } : notFound(`No order ${arg} in your account.`);
    }
    case 'wishlist':
      return { html: wishlistPage(req, state, data) };
    case 'help':
      return {
        html: infoPage(req, state, 'Help center', [
          'Orders ship within 1-2 business days. Standard shipping is free on orders over $75.',
          'You can return unworn items within 30 days. Coupon codes are entered in your cart.',
        ]),
      };
    case 'privacy':
      return {
        html: infoPage(req, state, 'Privacy', ['We use cookies for analytics and to remember your cart.']),
      };
    default:
      return notFound(`No page at ${req.path}.`);
  }
}

function lineIndex(req: SiteRequest, state: ShopState): number {
  const i = Number(formField(req, 'line'));
  return Number.isInteger(i) && i >= 0 && i < state.cart.length ? i : -1;
}

function handlePost(
  req: SiteRequest,
  state: ShopState,
  data: ShopData,
  seed: number,
  parts: string[],
): SiteResponse {
  const route = parts.join('/');
  const b = req.base;
  switch (route) {
    case 'cart/add': {
      const p = data.byId.get(formField(req, 'id'));
      if (!p)
        return {
          status: 404,
          html: errorPage(req, state, 'Product not found', 'That product is no longer available.'),
        };
      const size = formField(req, 'size');
      const color = formField(req, 'color') || p.colors[0];
      const qty = Math.floor(Number(formField(req, 'qty') || '1'));
      let error = '';
      if (!p.inStock) error = 'This product is out of stock.';
      else if (p.sizes.length && !size) error = 'Please select a size.';
      else if (p.sizes.length && (!p.sizes.includes(size) || p.soldOutSizes.includes(size)))
        error = `Size ${size} is sold out.`;
      else if (!p.colors.includes(color)) error = 'Please choose a color.';
      else if (!Number.isFinite(qty) || qty < 1 || qty > 10) error = 'Quantity must be between 1 and 10.';
      if (error) {
        const values = { size, color, qty: formField(req, 'qty') };
        return { status: 400, html: productPage(req, state, data, seed, p, { error, values }) };
      }
      addToCart(state, { productId: p.id, size: p.sizes.length ? size : '', color, qty });
      return { redirect: `${b}/p/${encodeURIComponent(p.id)}?added=1` };
    }
    case 'cart/update': {
      const i = lineIndex(req, state);
      const qty = Math.floor(Number(formField(req, 'qty')));
      if (i < 0 || !Number.isFinite(qty) || qty < 0)
        return {
          status: 400,
          html: cartPage(req, state, data, { notice: 'Enter a quantity of 0 or more.' }),
        };
      if (qty === 0) state.cart.splice(i, 1);
      else state.cart[i].qty = Math.min(20, qty);
      return { redirect: `${b}/cart` };
    }
    case 'cart/remove': {
      const i = lineIndex(req, state);
      if (i >= 0) state.cart.splice(i, 1);
      return { redirect: `${b}/cart` };
    }
    case 'cart/coupon': {
      const code = formField(req, 'code');
      const problem = couponProblem(data, code, subtotalOf(data, state.cart));
      if (problem)
        return { status: 400, html: cartPage(req, state, data, { couponError: problem, couponValue: code }) };
      state.coupon = findCoupon(data, code)?.code ?? null;
      return { html: cartPage(req, state, data, { notice: `Coupon ${state.coupon} applied.` }) };
    }
    case 'cart/coupon/remove':
      state.coupon = null;
      return { redirect: `${b}/cart` };
    case 'checkout': {
      const address: ShippingAddress = {
        fullName: formField(req, 'fullName'),
        email: formField(req, 'email'),
        street: formField(req, 'street'),
        apartment: formField(req, 'apartment'),
        city: formField(req, 'city'),
        state: formField(req, 'state'),
        zip: formField(req, 'zip'),
        phone: formField(req, 'phone'),
      };
      const method = formField(req, 'method');
      if (state.cart.length === 0) return { redirect: `${b}/cart` };
      const errors = checkoutErrors(data, address, method, formField(req, 'terms') === '1');
      if (Object.keys(errors).length) {
        return { status: 400, html: checkoutPage(req, state, data, { values: address, method, errors }) };
      }
      const m = SHIPPING_METHODS.find((x) => x.id === method)?.id as ShippingMethodId;
      const t = totalsOf(data, state.cart, state.coupon, m);
      const order = {
        id: orderNumber(req.sessionId, state.orders.length),
        lines: state.cart.map((l) => ({ ...l })),
        address,
        shippingMethod: m,
        coupon: state.coupon,
        ...t,
        placedAt: new Date().toISOString(),
      };
      state.orders.push(order);
      state.cart = [];
      state.coupon = null;
      return { redirect: `${b}/orders/${order.id}?placed=1` };
    }
    case 'wishlist/add':
    case 'wishlist/remove': {
      const id = formField(req, 'id');
      if (!data.byId.has(id))
        return {
          status: 404,
          html: errorPage(req, state, 'Product not found', 'That product is no longer available.'),
        };
      if (route === 'wishlist/add' && !state.wishlist.includes(id)) state.wishlist.push(id);
      if (route === 'wishlist/remove') state.wishlist = state.wishlist.filter((x) => x !== id);
      return {
        redirect:
          formField(req, 'back') === 'wishlist' ? `${b}/wishlist` : `${b}/p/${encodeURIComponent(id)}`,
      };
    }
    case '__promo':
      state.newsletter = formField(req, 'email') || 'subscribed';
      return {
        html: shopPage(req, state, {
          title: 'Thanks',
          body: `<h1>You're on the list</h1><p>Use code SAVE10 for 10% off. <a href="${b}/">Keep shopping</a></p>`,
        }),
      };
    default:
      return { status: 404, html: errorPage(req, state, 'Not found', `No action at ${req.path}.`) };
  }
}
