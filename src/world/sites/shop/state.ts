import type { Coupon, ShopData } from './data.ts';

export interface CartLine {
  productId: string;
  size: string;
  color: string;
  qty: number;
}

export interface ShippingAddress {
  fullName: string;
  email: string;
  street: string;
  apartment: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
}

export interface Order {
  id: string;
  lines: CartLine[];
  address: ShippingAddress;
  shippingMethod: ShippingMethodId;
  coupon: string | null;
  subtotal: number;
  discount: number;
  shipping: number;
  total: number;
  placedAt: string;
}

/** A session's shop state: what the verifier reads. */
export interface ShopState {
  cart: CartLine[];
  coupon: string | null;
  orders: Order[];
  wishlist: string[];
  newsletter: string | null;
}

export function initialShopState(): ShopState {
  return { cart: [], coupon: null, orders: [], wishlist: [], newsletter: null };
}

export const SHIPPING_METHODS = [
  { id: 'standard', label: 'Standard (5-7 business days)', price: 5.99, freeOver: 75 },
  { id: 'express', label: 'Express (2-3 business days)', price: 14.99, freeOver: null },
  { id: 'nextday', label: 'Next-day delivery', price: 29.99, freeOver: null },
] as const;
export type ShippingMethodId = (typeof SHIPPING_METHODS)[number]['id'];

function cents(n: number): number {
  return Math.round(n * 100) / 100;
}

export function subtotalOf(data: ShopData, lines: CartLine[]): number {
  return cents(lines.reduce((s, l) => s + (data.byId.get(l.productId)?.price ?? 0) * l.qty, 0));
}

export function findCoupon(data: ShopData, code: string): Coupon | undefined {
  return data.coupons.find((c) => c.code === code.trim().toUpperCase());
}

/** Why a coupon cannot be applied to a cart, or null when it can. */
export function couponProblem(data: ShopData, code: string, subtotal: number): string | null {
  if (!code.trim()) return 'Please enter a coupon code.';
  const c = findCoupon(data, code);
  if (!c) return `"${code.trim()}" is not a valid coupon code.`;
  if (c.expired) return `The coupon ${c.code} has expired.`;
  if (subtotal < c.minSubtotal) return `${c.code} needs a subtotal of $${c.minSubtotal} or more.`;
  return null;
}

/** Totals of a cart with a coupon and a shipping method (shipping is estimated as standard before checkout). */
export function totalsOf(
  data: ShopData,
  lines: CartLine[],
  couponCode: string | null,
  method: ShippingMethodId = 'standard',
): { subtotal: number; discount: number; shipping: number; total: number } {
  const subtotal = subtotalOf(data, lines);
  const coupon = couponCode ? findCoupon(data, couponCode) : undefined;
  const valid = coupon && !couponProblem(data, coupon.code, subtotal);
  const discount = valid && coupon.kind === 'percent' ? cents((subtotal * coupon.value) / 100) : 0;
  const m = SHIPPING_METHODS.find((x) => x.id === method) ?? SHIPPING_METHODS[0];
  let shipping: number = lines.length === 0 ? 0 : m.price;
  if (m.freeOver !== null && subtotal - discount >= m.freeOver) shipping = 0;
  if (valid && coupon.kind === 'freeship' && m.id === 'standard') shipping = 0;
  return { subtotal, discount, shipping, total: cents(subtotal - discount + shipping) };
}

/** Adds to the cart, merging a line of the same product, size and color. */
export function addToCart(state: ShopState, line: CartLine): void {
  const same = state.cart.find(
    (l) => l.productId === line.productId && l.size === line.size && l.color === line.color,
  );
  if (same) same.qty = Math.min(20, same.qty + line.qty);
  else state.cart.push({ ...line });
}
