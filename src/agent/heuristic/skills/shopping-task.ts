import type { TaskGoal } from '../goal.ts';
import { subjectOf } from './domain-kit.ts';

/** What a shopping task asks, read from its text the way a shopper reads it. */
export interface ShopTask {
  /** The product the task names. */
  product: string | null;
  /** A second product to add from the "frequently bought together" box. */
  companion: string | null;
  size: string | null;
  /** How many, from any wording ("Buy 2 of the", "I want two", "quantity 2"). */
  qty: number | null;
  /** How many, only where the task says "quantity N" (what a hurried shopper notices). */
  qtyStated: number | null;
  wishlist: boolean;
  /** Put the product in the cart (any buying task). */
  cart: boolean;
  /** Go on to check out and place the order. */
  checkout: boolean;
  coupon: string | null;
  /** Shipping speed word: standard, express, next-day. */
  shipping: string | null;
  address: { name: string; street: string; city: string; state: string; zip: string; email: string } | null;
  /** The fact asked: a price, a review, a count of results, or the name of the best result. */
  ask: 'price' | 'review' | 'count' | 'name' | null;
  reviewer: string | null;
  minPrice: number | null;
  /** A price cap the task states as one ("under $75"). */
  maxPrice: number | null;
  /** Money to spend ("I have $200 to spend"): a cap too, on a closer reading. */
  budget: number | null;
}

const WORD_NUM: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, a: 1, an: 1 };

function num(s: string | undefined): number | null {
  if (!s) return null;
  const n = WORD_NUM[s.toLowerCase()] ?? Number(s);
  return Number.isFinite(n) ? n : null;
}

const money = (s: string): number => Number(s.replace(/,/g, ''));

/** Parses a shopping task. Pure. */
export function readShopTask(goal: TaskGoal): ShopTask {
  const t = goal.text;
  const companion =
    t.match(/\bone of the\s+(.+?)\s+shown as frequently bought\b/i)?.[1] ??
    t.match(/\btogether with the\s+(.+?)\s+that'?s frequently bought\b/i)?.[1] ??
    null;
  const size =
    t.match(/\bsize\s+(\d+(?:\.\d+)?\s?mm|\d+(?:\.\d+)?|X{0,3}[SML]|XXL|One Size)\b/i)?.[1] ?? null;
  const qtyStated = num(t.match(/\b(?:quantity|qty)\s*:?\s*(\d+)\b/i)?.[1]);
  const qty =
    qtyStated ??
    num(
      t.match(/\b(?:add|buy|order|want|get me)\s+(\d+|one|two|three|four|five)\s+(?:of\s+the\s+)?[A-Z]/)?.[1],
    ) ??
    num(t.match(/\b(?:add|buy|order|want|get me)\s+(\d+|one|two|three|four|five)\b/i)?.[1]);
  const wishlist = /\bwish ?list\b/i.test(t);
  const checkout = /\b(check ?out|order|ship (?:it|them)|shipping|buy)\b/i.test(t) && /\d{5}\b/.test(t);
  const cart = !wishlist && (checkout || /\b(cart|basket)\b/i.test(t));
  const coupon = t.match(/\b(?:coupon|promo|discount)(?: code)?\s+([A-Z0-9]{4,})\b/)?.[1] ?? null;
  const shipping =
    t.match(
      /\b(standard|express|next-day|next day|overnight)\b(?:\s+\w+)?\s+(?:shipping|delivery)\b/i,
    )?.[1] ??
    t.match(/\bship (?:it|them) (standard|express|next-day|overnight)\b/i)?.[1] ??
    null;
  const addr = t.match(/(\d+ [A-Z][^,]+),\s*([A-Z][^,]+),\s*([A-Z][A-Za-z .]+?)\s+(\d{5})\b/);
  const email = t.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/)?.[0] ?? '';
  const person =
    t.match(/\b(?:for|to)\s+([A-Z][a-z'-]+(?:\s[A-Z][a-z'-]+){1,2})(?=\s*[,.(])/)?.[1] ??
    t.match(/\bname:?\s+([A-Z][a-z'-]+(?:\s[A-Z][a-z'-]+){1,2})/)?.[1] ??
    '';
  const between = t.match(/\$(\d[\d,]*(?:\.\d+)?)\s+(?:to|and|-|–)\s+\$(\d[\d,]*(?:\.\d+)?)/) ?? null;
  const max =
    t.match(/\b(?:under|below|less than|at most|up to|no more than)\s+\$(\d[\d,]*(?:\.\d+)?)/i)?.[1] ??
    t.match(/\$(\d[\d,]*(?:\.\d+)?)\s+(?:or less|and under|max)\b/i)?.[1] ??
    null;
  const budget =
    t.match(/\$(\d[\d,]*(?:\.\d+)?)\s+to spend\b/i)?.[1] ??
    t.match(/\bbudget\b.*?\$(\d[\d,]*)/i)?.[1] ??
    null;
  let ask: ShopTask['ask'] = null;
  if (/\breview\b/i.test(t) && /\b(stars?|title|rating)\b/i.test(t) && goal.question) ask = 'review';
  else if (/\b(count|how many)\b/i.test(t)) ask = 'count';
  else if (/\bhow much (?:does|do|is|are)\b|\bprice of\b|\bwhat does .+ cost\b|\bcost\?/i.test(t))
    ask = 'price';
  else if (goal.question) ask = 'name';
  const reviewer =
    t.match(/\bfind\s+([A-Z][\w'-]+(?:\s[A-Z][\w'-]*\.?)?)'s review\b/)?.[1] ??
    t.match(/\bdid\s+([A-Z][\w'-]+(?:\s[A-Z][\w'-]*\.?)?)\s+give\b/)?.[1] ??
    t.match(/\b([A-Z][\w'-]+\s[A-Z]\.)/)?.[1] ??
    null;
  return {
    product: ask === 'review' ? reviewProduct(t) : subjectOf(goal),
    companion,
    size,
    qty,
    qtyStated,
    wishlist,
    cart,
    checkout,
    coupon,
    shipping: shipping ? shipping.toLowerCase().replace(' ', '-') : null,
    address: addr
      ? {
          name: person,
          street: addr[1].trim(),
          city: addr[2].trim(),
          state: addr[3].trim(),
          zip: addr[4],
          email,
        }
      : null,
    ask,
    reviewer,
    minPrice: between ? money(between[1]) : null,
    maxPrice: between ? money(between[2]) : max ? money(max) : null,
    budget: budget ? money(budget) : null,
  };
}

/** "On the X page, ..." / "... give the X in their review" names the product of a review question. */
function reviewProduct(t: string): string | null {
  return (
    t.match(/\bon the\s+(.+?)\s+page\b/i)?.[1] ??
    t.match(/\bgive the\s+(.+?)\s+in (?:their|his|her) review\b/i)?.[1] ??
    null
  );
}
