import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import { mentionedOption } from '../fields.ts';
import { bestByText, type Choice, SORT_OPTION } from '../kit.ts';
import { isChecked, isClickable, isEditable, isSelect, isToggle, labelOf, optionsOf } from '../page.ts';
import {
  applyButton,
  asksFor,
  buttonMatching,
  type ControlWant,
  carefulReading,
  click,
  finish,
  formDirty,
  headingOf,
  namesThing,
  resultLinks,
  searchStep,
  selectLabelled,
  setControls,
  sortFor,
  textMatching,
} from './domain-kit.ts';
import type { Skill, SkillContext } from './index.ts';
import { readShopTask, type ShopTask } from './shopping-task.ts';

/**
 * How a person shops: find the product by name (the search box and its suggestions, or a result
 * link), read its price or a review, pick the size, color and quantity the task gives and add it
 * to the cart (or the wishlist), then go through the cart (coupon) and checkout (address,
 * delivery speed, terms). Questions about "the cheapest / best-rated / how many" are answered from
 * a listing after setting the brand, price, rating and stock filters and the sort the task states.
 */
export const shoppingSkill: Skill = {
  id: 'shopping',
  applies: (goal, obs) => SHOPPING.test(goal.text) && isStore(obs),
  decide: decideShopping,
};

const SHOPPING =
  /\b(cart|basket|wish ?list|order|buy|check ?out|purchase|price[ds]?|cost|product|item|review|in stock|coupon|brand|category|spend|rated|rating)\b/i;

/** A store has a cart. */
function isStore(obs: Observation): boolean {
  return obs.elements.some(
    (e) => /^(cart|basket|bag)\b/i.test(labelOf(e).trim()) || /^add to cart$/i.test(labelOf(e).trim()),
  );
}

const PLACED_RE = /\b(order\b.*\b(?:has been placed|is confirmed)|thank you for your order)\b/i;
const ADDED_RE = /\badded to your cart\b/i;

function decideShopping(ctx: SkillContext): Choice | null {
  const { goal, obs } = ctx;
  const task = readShopTask(goal);
  const placed = textMatching(obs, PLACED_RE);
  if (placed && task.checkout) return finish(placed.trim(), 'Report the placed order');
  if (task.checkout && obs.elements.some((e) => /^place order$/i.test(labelOf(e).trim())))
    return fillCheckout(ctx, task);
  if (task.checkout && buttonMatching(ctx.usable, /^proceed to checkout$/i)) return cartStep(ctx, task);
  const heading = headingOf(obs);
  if (task.companion && textMatching(obs, ADDED_RE) && namesThing(task.companion, heading, ctx.rules))
    return finish(
      `Added the ${task.product ?? 'item'} and the ${task.companion} to the cart.`,
      'Report the cart',
    );
  if (task.product) {
    if (isProductPage(obs) && namesThing(task.product, heading, ctx.rules)) return productStep(ctx, task);
    if (task.ask === 'price' && !carefulReading(ctx.rules)) {
      const quick = priceOnList(ctx, task.product);
      if (quick) return quick;
    }
    return findProduct(ctx, task.product);
  }
  if (task.ask === 'name' || task.ask === 'count') return listingStep(ctx, task);
  return null;
}

function isProductPage(obs: Observation): boolean {
  // The buy box: its own "Add to cart" (or "Out of stock") and a save-for-later button.
  return obs.elements.some(
    (e) =>
      /^(add to cart|out of stock)$/i.test(labelOf(e).trim()) ||
      /(add to|remove from) wish ?list/i.test(e.attributes['aria-label'] ?? ''),
  );
}

/** Opens the named product: a listed link with its name, else the search box. */
function findProduct(ctx: SkillContext, name: string): Choice | null {
  const links = ctx.usable.filter((e) => (e.tag === 'a' || e.role === 'link') && !ctx.acted(e));
  const listed = resultLinks(ctx.obs, links);
  const best = bestByText(listed.length ? listed : links, name, ctx.rules);
  if (best) return click(best, `Open "${labelOf(best)}"`);
  return searchStep(ctx, name);
}

/** On the product's page: read a fact, save it, or choose the variant and add it to the cart. */
function productStep(ctx: SkillContext, task: ShopTask): Choice | null {
  const { obs, usable } = ctx;
  if (task.ask === 'price') {
    const price = priceOf(obs);
    return price ? finish(`The ${headingOf(obs)} costs ${price}.`, 'Answer with the price') : null;
  }
  if (task.ask === 'review') return readReview(ctx, task);
  if (task.wishlist) {
    const saved = obs.elements.some((e) =>
      /remove from wish ?list|^♥|^saved$/i.test(`${e.attributes['aria-label'] ?? ''} ${labelOf(e)}`.trim()),
    );
    if (saved && ctx.history.length > 0)
      return finish(`Saved the ${headingOf(obs)} to the wishlist.`, 'Report the wishlist');
    const save = usable.find(
      (e) =>
        isClickable(e) &&
        /add to wish ?list|^♡|^save$/i.test(`${e.attributes['aria-label'] ?? ''} ${labelOf(e)}`.trim()),
    );
    return save ? click(save, 'Save it to the wishlist') : null;
  }
  if (!task.cart) return null;
  if (textMatching(obs, ADDED_RE)) {
    if (task.companion) return addCompanion(ctx, task.companion);
    if (task.checkout) {
      const view = buttonMatching(usable, /^(view cart|cart\b.*|go to cart)$/i);
      return view ? click(view, 'Open the cart') : null;
    }
    return finish(`Added the ${headingOf(obs)} to the cart.`, 'Report the cart');
  }
  const wants: ControlWant[] = [];
  const size = selectLabelled(usable, /^size/i);
  if (size && task.size) {
    const o = optionsOf(size).find((x) => normalizeText(x) === normalizeText(task.size!));
    if (o) wants.push({ el: size, kind: 'select', option: o });
  }
  // A hurried shopper picks the size (the page insists) but leaves the colour at its default
  // unless the task says "color", and sets the quantity only where the task says "quantity N".
  // A note's select/input rule (or a careful reading) makes it set both as the task gives them.
  const careful = carefulReading(ctx.rules);
  const color = selectLabelled(usable, /^colou?r/i);
  if (color) {
    const noted = notedValue(ctx, color);
    const o = noted
      ? optionsOf(color).find((x) => normalizeText(x) === normalizeText(noted))
      : careful || /\bcolou?r\b/i.test(ctx.goal.text)
        ? mentionedOption(optionsOf(color), ctx.goal.text)
        : undefined;
    if (o) wants.push({ el: color, kind: 'select', option: o });
  }
  const qty = usable.find(
    (e) => isEditable(e) && /quantity|qty/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`),
  );
  const n = qty ? (notedValue(ctx, qty) ?? (careful ? task.qty : task.qtyStated)) : null;
  if (qty && n && !task.companion) wants.push({ el: qty, kind: 'type', value: String(n) });
  const step = setControls(ctx, wants);
  if (step) return step;
  const add = usable.find((e) => isClickable(e) && /^add to (cart|bag|basket)$/i.test(labelOf(e).trim()));
  return add ? click(add, 'Add it to the cart') : null;
}

/** The value a note's select or input rule gives for a control, matched by its label. */
function notedValue(ctx: SkillContext, el: Element): string | null {
  const l = normalizeText(labelOf(el));
  const r = ctx.rules.prefer.find(
    (x) =>
      (x.kind === 'select' || x.kind === 'input') &&
      x.target &&
      x.value &&
      (normalizeText(x.target) === l || l.startsWith(normalizeText(x.target))),
  );
  return r?.value ?? null;
}

/** The "Add to cart" that belongs to the companion item (the one after its name). */
function addCompanion(ctx: SkillContext, companion: string): Choice | null {
  const link = bestByText(
    ctx.usable.filter((e) => e.tag === 'a'),
    companion,
    ctx.rules,
  );
  if (!link) return null;
  const add = ctx.usable.find(
    (e) => e.index > link.index && isClickable(e) && /^add to (cart|bag|basket)$/i.test(labelOf(e).trim()),
  );
  return add ? click(add, `Add the ${labelOf(link)} too`) : null;
}

/**
 * A hurried shopper reads the price off the result list: the first card whose name has all the
 * task's words, and the first amount printed below it. A note sends it to the product's own page.
 */
function priceOnList(ctx: SkillContext, name: string): Choice | null {
  const card = bestByText(resultLinks(ctx.obs, ctx.usable), name, ctx.rules);
  if (!card) return null;
  // The card's own price: below its name and in its column (cards sit side by side in a grid).
  const below = ctx.obs.texts.find(
    (t) =>
      t.bbox &&
      t.bbox.y > card.bbox.y &&
      Math.abs(t.bbox.x - card.bbox.x) < 40 &&
      /^\$\d/.test(t.text.trim()),
  );
  const price = below?.text.trim().match(/^\$\d[\d,]*(?:\.\d{2})?/)?.[0];
  return price ? finish(`The ${labelOf(card).trim()} costs ${price}.`, 'Answer with the listed price') : null;
}

/** The product's price: the first amount printed after its heading. */
function priceOf(obs: Observation): string | null {
  const at = obs.texts.findIndex((t) => t.tag === 'h1');
  for (const t of obs.texts.slice(Math.max(0, at))) {
    const m = t.text.match(/^\s*(\$\d[\d,]*(?:\.\d{2})?)/);
    if (m) return m[1];
  }
  return null;
}

/** Opens the Reviews tab and reads the named reviewer's stars and title. */
function readReview(ctx: SkillContext, task: ShopTask): Choice | null {
  const { obs } = ctx;
  const who = task.reviewer;
  const at = who ? obs.texts.findIndex((t) => t.text.includes(who)) : -1;
  if (at >= 0) {
    const block = obs.texts[at].text;
    const stars =
      block.match(/(\d(?:\.\d)?)\s*(?:out of 5|\/\s*5)/i)?.[1] ?? block.match(/[★☆]+\s*(\d(?:\.\d)?)/)?.[1];
    const title = obs.texts.slice(at + 1).find((t) => /^h[2-4]$/.test(t.tag))?.text;
    if (stars && title)
      return finish(`${who} gave ${Number(stars)} stars: "${title.trim()}"`, 'Answer with the review');
  }
  const tab = ctx.usable.find((e) => e.role === 'tab' && /^reviews?\b/i.test(labelOf(e).trim()));
  if (tab && tab.attributes['aria-selected'] !== 'true') {
    // A tab the task names is opened ("the review's title" names Reviews); "in their review"
    // does not, and the teacher answers from the rating in view until a note makes it look closer.
    if (asksFor(ctx.goal, labelOf(tab), ctx.rules)) return click(tab, 'Open the reviews');
    const shown = obs.texts.map((t) => t.text.match(/[★☆]+\s*(\d(?:\.\d)?)/)?.[1]).find(Boolean);
    if (shown) return finish(`${who ?? 'They'} gave ${shown} stars.`, 'Answer with the rating in view');
  }
  return null;
}

/** In the cart: apply the coupon the task gives, then go to checkout. */
function cartStep(ctx: SkillContext, task: ShopTask): Choice | null {
  const { usable, obs } = ctx;
  if (task.coupon && !textMatching(obs, new RegExp(`\\b${task.coupon}\\b.*\\bapplied\\b`, 'i'))) {
    const box = usable.find(
      (e) => isEditable(e) && /coupon|promo|code/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`),
    );
    const tried = ctx.history.some(
      (h) => h.action.type === 'click' && h.url === obs.url && /apply/i.test(h.output.next_goal),
    );
    if (box && !tried) {
      const step = setControls(ctx, [{ el: box, kind: 'type', value: task.coupon }]);
      if (step) return step;
      const apply = usable.find(
        (e) => isClickable(e) && /^apply$/i.test(labelOf(e).trim()) && e.index > box.index,
      );
      if (apply) return click(apply, `Apply the coupon ${task.coupon}`);
    }
  }
  const go = buttonMatching(usable, /^proceed to checkout$/i);
  return go ? click(go, 'Proceed to checkout') : null;
}

/** Fills the checkout form from the task, picks the delivery speed, accepts the terms and orders. */
function fillCheckout(ctx: SkillContext, task: ShopTask): Choice | null {
  const { usable } = ctx;
  const a = task.address;
  const wants: ControlWant[] = [];
  const field = (re: RegExp) =>
    usable.find((e) => isEditable(e) && re.test(`${labelOf(e)} ${e.attributes.name ?? ''}`.trim()));
  if (a) {
    const pairs: Array<[RegExp, string]> = [
      [/full ?name|^name\b/i, a.name],
      [/e-?mail/i, a.email],
      [/street|^address\b/i, a.street],
      [/^city\b/i, a.city],
      [/zip|postal/i, a.zip],
    ];
    for (const [re, v] of pairs) {
      const f = field(re);
      if (f && v) wants.push({ el: f, kind: 'type', value: v });
    }
    const st = selectLabelled(usable, /^state\b|province/i);
    const o = st && optionsOf(st).find((x) => normalizeText(x) === normalizeText(a.state));
    if (st && o) wants.push({ el: st, kind: 'select', option: o });
  }
  if (task.shipping) {
    const word = task.shipping.replace('-', '[- ]?');
    const radio = usable.find((e) => isToggle(e) && new RegExp(`^${word}`, 'i').test(labelOf(e).trim()));
    if (radio) wants.push({ el: radio, kind: 'tick' });
  }
  const terms = usable.find((e) => isToggle(e) && /\b(i agree|terms)\b/i.test(labelOf(e)));
  if (terms) wants.push({ el: terms, kind: 'tick' });
  const step = setControls(ctx, wants);
  if (step) return step;
  const place = usable.find((e) => isClickable(e) && /^place order$/i.test(labelOf(e).trim()));
  return place ? click(place, 'Place the order') : null;
}

/**
 * "Which is the cheapest X with ...", "how many X ...": set the brand, price, rating and stock
 * filters the task states, apply them, sort, then read the first result or the result count.
 */
function listingStep(ctx: SkillContext, task: ShopTask): Choice | null {
  const { usable, goal, obs } = ctx;
  const sorter = selectLabelled(usable, /^sort/i);
  const apply = applyButton(usable);
  if (!sorter && !apply) return null;
  // Brand and stock boxes and the rating option the task mentions (see asksFor), typed prices.
  const wants: ControlWant[] = [];
  for (const e of usable) {
    if (isToggle(e) && !isChecked(e) && asksFor(goal, labelOf(e), ctx.rules))
      wants.push({ el: e, kind: 'tick' });
  }
  const minBox = usable.find(
    (e) =>
      isEditable(e) && /min(imum)? price|^min\b/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`.trim()),
  );
  const maxBox = usable.find(
    (e) =>
      isEditable(e) && /max(imum)? price|^max\b/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`.trim()),
  );
  if (minBox && task.minPrice !== null)
    wants.push({ el: minBox, kind: 'type', value: String(task.minPrice) });
  // "$200 to spend" is a cap only on a close reading; "under $75" always is.
  const cap = task.maxPrice ?? (carefulReading(ctx.rules) ? task.budget : null);
  if (maxBox && cap !== null) wants.push({ el: maxBox, kind: 'type', value: String(cap) });
  const rating = selectLabelled(usable, /rating/i);
  const o = rating && optionsOf(rating).find((x) => !/^any\b/i.test(x) && asksFor(goal, x, ctx.rules));
  if (rating && o) wants.push({ el: rating, kind: 'select', option: o });
  const step = setControls(ctx, wants);
  if (step) return step;
  if (apply && formDirty(ctx.history, obs.url)) return click(apply, 'Apply the filters');
  const sort = sortFor(goal, ctx.rules);
  if (sorter && sort && task.ask !== 'count') {
    const o = optionsOf(sorter).find((x) => SORT_OPTION[sort].test(x));
    const s = o && setControls(ctx, [{ el: sorter, kind: 'select', option: o }]);
    if (s) return s;
  }
  if (task.ask === 'count') {
    const line = textMatching(obs, /\bof\s+\d[\d,]*\s+results?\b|^\d[\d,]*\s+(results?|items?|products?)\b/i);
    const n = line?.match(/of\s+(\d[\d,]*)\s+results?/i)?.[1] ?? line?.match(/^(\d[\d,]*)/)?.[1];
    return n ? finish(`There are ${n} matching products.`, 'Answer with the count') : null;
  }
  const first = resultLinks(obs, usable).find((e: Element) => !isSelect(e));
  return first ? finish(labelOf(first).trim(), 'Answer with the first result') : null;
}
