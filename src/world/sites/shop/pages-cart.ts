import { esc } from '../../../core/text.ts';
import { queryParam } from '../../form.ts';
import type { SiteRequest } from '../../site.ts';
import { money } from '../../ui/html.ts';
import type { ShopData } from './data.ts';
import { shopPage } from './layout.ts';
import { type Order, SHIPPING_METHODS, type ShippingAddress, type ShopState, totalsOf } from './state.ts';

function lineName(data: ShopData, id: string): string {
  return data.byId.get(id)?.name ?? id;
}

export function cartPage(
  req: SiteRequest,
  state: ShopState,
  data: ShopData,
  o: { couponError?: string; couponValue?: string; notice?: string } = {},
): string {
  if (state.cart.length === 0) {
    return shopPage(req, state, {
      title: 'Your cart',
      body: `<h1>Your cart</h1>${o.notice ? `<div class="notice" role="status">${esc(o.notice)}</div>` : ''}<p>Your cart is empty.</p><p><a href="${req.base}/">Continue shopping</a></p>`,
    });
  }
  const t = totalsOf(data, state.cart, state.coupon);
  const rows = state.cart
    .map((l, i) => {
      const p = data.byId.get(l.productId);
      const name = lineName(data, l.productId);
      const variant = [l.size && `Size ${l.size}`, l.color].filter(Boolean).join(', ');
      return `<tr><td><a href="${req.base}/p/${esc(l.productId)}">${esc(name)}</a><div class="muted">${esc(variant)}</div></td>
<td>${money(p?.price ?? 0)}</td>
<td><form method="post" action="${req.base}/cart/update" class="row"><input type="hidden" name="line" value="${i}"><label for="qty-${i}" class="hidden">Quantity for ${esc(name)}</label><input id="qty-${i}" name="qty" type="number" min="0" max="20" value="${l.qty}" style="width:70px" aria-label="Quantity for ${esc(name)}"><button class="btn btn-secondary" type="submit">Update</button></form></td>
<td>${money((p?.price ?? 0) * l.qty)}</td>
<td><form method="post" action="${req.base}/cart/remove"><input type="hidden" name="line" value="${i}"><button class="link-btn" type="submit" aria-label="Remove ${esc(name)}">Remove</button></form></td></tr>`;
    })
    .join('');
  const couponBox = `<form method="post" action="${req.base}/cart/coupon" class="field${o.couponError ? ' invalid' : ''}">
<label for="coupon">Coupon code</label><div class="row"><input id="coupon" name="code" value="${esc(o.couponError ? (o.couponValue ?? '') : '')}" placeholder="Enter code"><button class="btn btn-secondary" type="submit">Apply</button></div>
${o.couponError ? `<div class="error" role="alert">${esc(o.couponError)}</div>` : ''}</form>
${state.coupon ? `<p>Coupon <strong>${esc(state.coupon)}</strong> applied. <form method="post" action="${req.base}/cart/coupon/remove" style="display:inline"><button class="link-btn" type="submit">Remove coupon</button></form></p>` : ''}`;
  const body = `<h1>Your cart</h1>${o.notice ? `<div class="notice" role="status">${esc(o.notice)}</div>` : ''}
<div class="two-col"><table><thead><tr><th>Item</th><th>Price</th><th>Quantity</th><th>Total</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<div class="summary"><h2>Order summary</h2><p>Subtotal: ${money(t.subtotal)}</p>${t.discount ? `<p>Discount: -${money(t.discount)}</p>` : ''}
<p class="muted">Shipping is calculated at checkout.</p><p><strong>Estimated total: ${money(t.subtotal - t.discount)}</strong></p>
${couponBox}<a class="btn" href="${req.base}/checkout">Proceed to checkout</a></div></div>`;
  return shopPage(req, state, { title: 'Your cart', body });
}

const FIELDS: Array<{ key: keyof ShippingAddress; label: string; optional?: boolean; type?: string }> = [
  { key: 'fullName', label: 'Full name' },
  { key: 'email', label: 'Email', type: 'email' },
  { key: 'street', label: 'Street address' },
  { key: 'apartment', label: 'Apartment, suite (optional)', optional: true },
  { key: 'city', label: 'City' },
  { key: 'zip', label: 'ZIP code' },
  { key: 'phone', label: 'Phone (optional)', optional: true, type: 'tel' },
];

/** Validates the shipping form; returns field errors (empty when valid). */
export function checkoutErrors(
  data: ShopData,
  a: ShippingAddress,
  method: string,
  terms: boolean,
): Record<string, string> {
  const e: Record<string, string> = {};
  for (const f of FIELDS) if (!f.optional && !a[f.key]) e[f.key] = `${f.label} is required.`;
  if (a.email && !/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(a.email)) e.email = 'Enter a valid email address.';
  if (a.zip && !/^\d{5}$/.test(a.zip)) e.zip = 'ZIP code must be 5 digits.';
  if (!data.states.includes(a.state)) e.state = 'Choose a state.';
  if (!SHIPPING_METHODS.some((m) => m.id === method)) e.method = 'Choose a shipping method.';
  if (!terms) e.terms = 'You must accept the Terms of Sale.';
  return e;
}

export function checkoutPage(
  req: SiteRequest,
  state: ShopState,
  data: ShopData,
  o: { values?: ShippingAddress; method?: string; errors?: Record<string, string> } = {},
): string {
  if (state.cart.length === 0) {
    return shopPage(req, state, {
      title: 'Checkout',
      body: `<h1>Checkout</h1><p>Your cart is empty. <a href="${req.base}/">Continue shopping</a></p>`,
    });
  }
  const errors = o.errors ?? {};
  const v = o.values;
  const method = o.method ?? 'standard';
  const t = totalsOf(data, state.cart, state.coupon);
  const field = (f: (typeof FIELDS)[number]) =>
    `<div class="field${errors[f.key] ? ' invalid' : ''}"><label for="f-${f.key}">${esc(f.label)}</label><input id="f-${f.key}" name="${f.key}" type="${f.type ?? 'text'}" value="${esc(v?.[f.key] ?? '')}"${f.optional ? '' : ' required'} style="width:100%">${errors[f.key] ? `<div class="error">${esc(errors[f.key])}</div>` : ''}</div>`;
  const stateSelect = `<div class="field${errors.state ? ' invalid' : ''}"><label for="f-state">State</label><select id="f-state" name="state"><option value="">Select a state</option>${data.states
    .map((s) => `<option${v?.state === s ? ' selected' : ''}>${esc(s)}</option>`)
    .join('')}</select>${errors.state ? `<div class="error">${esc(errors.state)}</div>` : ''}</div>`;
  const radios = SHIPPING_METHODS.map((m) => {
    const free = m.freeOver !== null ? ` (free over $${m.freeOver})` : '';
    return `<div><input type="radio" id="ship-${m.id}" name="method" value="${m.id}"${m.id === method ? ' checked' : ''}> <label for="ship-${m.id}" style="display:inline">${esc(m.label)} — ${money(m.price)}${free}</label></div>`;
  }).join('');
  const fields = FIELDS.map((f) => (f.key === 'zip' ? stateSelect + field(f) : field(f))).join('');
  const lines = state.cart
    .map(
      (l) =>
        `<li>${l.qty} × ${esc(lineName(data, l.productId))}${l.size ? `, size ${esc(l.size)}` : ''}, ${esc(l.color)}</li>`,
    )
    .join('');
  const errCount = Object.keys(errors).length;
  const body = `<h1>Checkout</h1>${errCount ? `<div class="alert" role="alert">Please fix ${errCount} ${errCount === 1 ? 'problem' : 'problems'} below.</div>` : ''}
<form method="post" action="${req.base}/checkout" novalidate><div class="two-col"><div>
<h2>Shipping address</h2>${fields}
<h2>Shipping method</h2><fieldset class="field${errors.method ? ' invalid' : ''}"><legend>Delivery speed</legend>${radios}</fieldset>
<div class="field${errors.terms ? ' invalid' : ''}"><input type="checkbox" id="terms" name="terms" value="1" data-enables="place-order"> <label for="terms" style="display:inline">I agree to the Terms of Sale and Return Policy</label>${errors.terms ? `<div class="error">${esc(errors.terms)}</div>` : ''}</div>
<button class="btn" id="place-order" type="submit" disabled>Place order</button></div>
<div class="summary"><h2>Order summary</h2><ul>${lines}</ul><p>Subtotal: ${money(t.subtotal)}</p>${t.discount ? `<p>Discount (${esc(state.coupon)}): -${money(t.discount)}</p>` : ''}<p class="muted">Shipping and total are confirmed on the next page.</p></div></div></form>`;
  return shopPage(req, state, { title: 'Checkout', body });
}

function orderBlock(req: SiteRequest, data: ShopData, o: Order): string {
  const m = SHIPPING_METHODS.find((x) => x.id === o.shippingMethod);
  const lines = o.lines
    .map(
      (l) =>
        `<li>${l.qty} × <a href="${req.base}/p/${esc(l.productId)}">${esc(lineName(data, l.productId))}</a>${l.size ? `, size ${esc(l.size)}` : ''}, ${esc(l.color)}</li>`,
    )
    .join('');
  return `<ul>${lines}</ul><p>Ship to: ${esc(o.address.fullName)}, ${esc(o.address.street)}${o.address.apartment ? `, ${esc(o.address.apartment)}` : ''}, ${esc(o.address.city)}, ${esc(o.address.state)} ${esc(o.address.zip)}</p>
<p>Shipping: ${esc(m?.label ?? o.shippingMethod)} — ${money(o.shipping)}</p>${o.coupon ? `<p>Coupon ${esc(o.coupon)}: -${money(o.discount)}</p>` : ''}<p><strong>Total: ${money(o.total)}</strong></p>`;
}

export function orderPage(req: SiteRequest, state: ShopState, data: ShopData, o: Order): string {
  const placed = queryParam(req, 'placed') === '1';
  const body = `${placed ? `<div class="notice" role="status">Thank you! Your order ${esc(o.id)} has been placed. A confirmation was sent to ${esc(o.address.email)}.</div>` : ''}
<h1>Order ${esc(o.id)}</h1><p class="muted">Placed ${esc(o.placedAt.slice(0, 10))} · Processing</p>${orderBlock(req, data, o)}<p><a href="${req.base}/orders">All orders</a></p>`;
  return shopPage(req, state, { title: `Order ${o.id}`, body });
}

export function ordersPage(req: SiteRequest, state: ShopState, data: ShopData): string {
  const rows = state.orders
    .slice()
    .reverse()
    .map(
      (o) =>
        `<tr><td><a href="${req.base}/orders/${esc(o.id)}">${esc(o.id)}</a></td><td>${esc(o.placedAt.slice(0, 10))}</td><td>${o.lines.map((l) => esc(lineName(data, l.productId))).join(', ')}</td><td>${money(o.total)}</td><td>Processing</td></tr>`,
    )
    .join('');
  const body = `<h1>Your orders</h1>${state.orders.length ? `<table><thead><tr><th>Order</th><th>Date</th><th>Items</th><th>Total</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>You have not placed any orders yet.</p>'}`;
  return shopPage(req, state, { title: 'Your orders', body });
}

export function wishlistPage(req: SiteRequest, state: ShopState, data: ShopData): string {
  const rows = state.wishlist
    .map((id) => {
      const p = data.byId.get(id);
      if (!p) return '';
      return `<li class="row"><a href="${req.base}/p/${esc(id)}">${esc(p.name)}</a> ${money(p.price)} <form method="post" action="${req.base}/wishlist/remove"><input type="hidden" name="id" value="${esc(id)}"><input type="hidden" name="back" value="wishlist"><button class="link-btn" type="submit" aria-label="Remove ${esc(p.name)} from wishlist">Remove</button></form></li>`;
    })
    .join('');
  const body = `<h1>Your wishlist</h1>${state.wishlist.length ? `<ul>${rows}</ul>` : '<p>Your wishlist is empty. Tap ♡ Save on a product to keep it here.</p>'}`;
  return shopPage(req, state, { title: 'Wishlist', body });
}

export function infoPage(req: SiteRequest, state: ShopState, title: string, paragraphs: string[]): string {
  return shopPage(req, state, {
    title,
    body: `<h1>${esc(title)}</h1>${paragraphs.map((p) => `<p>${esc(p)}</p>`).join('')}`,
  });
}
