import type { SolverDriver } from '../../site.ts';
import { chooseSuggestion } from '../../solver-steps.ts';
import type { Customer as Person } from '../customer.ts';
import type { Product } from './data.ts';

/** Reference-solver steps of the shop (privileged: they know which product to pick). */

/** Opens a product page through the search box's autocomplete (2 actions). */
export async function openProduct(d: SolverDriver, p: Product): Promise<void> {
  await chooseSuggestion(d, { name: 'Search products', tag: 'input' }, p.name, p.name);
  await d.waitFor((o) => new URL(o.url).pathname.endsWith(`/p/${p.id}`), `product page of ${p.name}`);
}

/** Chooses size, color and quantity on a product page and adds it to the cart (1-4 actions). */
export async function addVariant(
  d: SolverDriver,
  p: Product,
  v: { size?: string; color?: string; qty?: number },
): Promise<void> {
  if (p.sizes.length && v.size) await d.select({ name: 'Size', tag: 'select' }, v.size);
  if (v.color) await d.select({ name: 'Color', tag: 'select' }, v.color);
  if (v.qty && v.qty !== 1) await d.input({ name: 'Quantity', tag: 'input' }, String(v.qty));
  await d.click({ name: 'Add to cart', tag: 'button', nth: 0 });
  await d.waitFor((o) => o.url.includes('added=1'), 'the added-to-cart notice');
}

/** Sets a listing's sort order (the select submits itself) and waits for the sorted page. */
export async function sortBy(d: SolverDriver, label: string, id: string): Promise<void> {
  await d.select({ name: 'Sort by', tag: 'select' }, label);
  await d.waitFor((o) => o.url.includes(`sort=${id}`), `listing sorted by ${label}`);
}

/** Fills the checkout's shipping address (6 actions). */
export async function fillAddress(d: SolverDriver, person: Person): Promise<void> {
  await d.input({ name: 'Full name', tag: 'input' }, person.fullName);
  await d.input({ name: 'Email', tag: 'input' }, person.email);
  await d.input({ name: 'Street address', tag: 'input' }, person.street);
  await d.input({ name: 'City', tag: 'input' }, person.city);
  await d.select({ name: 'State', tag: 'select' }, person.state);
  await d.input({ name: 'ZIP code', tag: 'input' }, person.zip);
}

/** Ticks the terms box and places the order (2 actions). */
export async function placeOrder(d: SolverDriver): Promise<void> {
  await d.click({ name: /^I agree to the Terms of Sale/, tag: 'input' });
  await d.click({ name: 'Place order', tag: 'button' });
  await d.waitFor((o) => o.url.includes('placed=1'), 'the order confirmation');
}
