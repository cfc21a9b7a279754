import { describe, expect, it } from 'vitest';
import { parseGoal } from '../goal.ts';
import { readRecipeTask } from './recipes-task.ts';
import { readShopTask } from './shopping-task.ts';
import { cityQueries } from './travel-search.ts';
import { readTravelTask } from './travel-task.ts';

const recipe = (s: string) => readRecipeTask(parseGoal(s));
const shop = (s: string) => readShopTask(parseGoal(s));
const travel = (s: string) => readTravelTask(parseGoal(s));

describe('readRecipeTask', () => {
  it('reads a scaled amount question', () => {
    const r = recipe("I'm cooking Sichuan Shrimp for 10 people. How much fresh ginger should I use?");
    expect(r).toMatchObject({
      name: 'Sichuan Shrimp',
      ask: 'amount',
      servings: 10,
      ingredient: 'fresh ginger',
    });
  });

  it('reads the candidates of a which-ingredient question', () => {
    const r = recipe(
      'Which of these ingredients does Sichuan Tofu Fried Rice call for: frozen peas, fresh ginger or lime?',
    );
    expect(r.ask).toBe('which');
    expect(r.name).toBe('Sichuan Tofu Fried Rice');
    expect(r.options).toEqual(['frozen peas', 'fresh ginger', 'lime']);
  });

  it('reads shopping-list items and the recipe name', () => {
    const r = recipe(
      'I already have everything for Easy Red Curry Eggplant Stir-Fry except the jasmine rice and coconut milk. Put just those on my shopping list.',
    );
    expect(r.name).toBe('Easy Red Curry Eggplant Stir-Fry');
    expect(r.list).toBe(true);
    expect(r.items).toEqual(['jasmine rice', 'coconut milk']);
  });

  it('reads collections, quoted or not, and strips the command word from the name', () => {
    const a = recipe('Save Dijon Chicken Stew to my "Weeknight dinners" collection.');
    expect(a).toMatchObject({
      name: 'Dijon Chicken Stew',
      collection: 'Weeknight dinners',
      newCollection: false,
      save: true,
    });
    const b = recipe('Add the Dijon Chicken Stew recipe to my Weeknight dinners collection.');
    expect(b.collection).toBe('Weeknight dinners');
    const c = recipe('Save Garlic Herb Chickpea Salad to a new collection called "Meatless Mondays".');
    expect(c).toMatchObject({ collection: 'Meatless Mondays', newCollection: true });
  });

  it('reads the filters of a best-recipe task', () => {
    const r = recipe(
      'Find the quickest vegan Mexican recipe rated 4 stars or higher and save it to a new collection called "Sunday batch cooking".',
    );
    expect(r).toMatchObject({ name: null, save: true, ask: null, newCollection: true });
    const q = recipe(
      "Find me the top-rated Thai recipe that is vegan and ready in at most 60 minutes. What's it called?",
    );
    expect(q).toMatchObject({ name: null, ask: 'name' });
    expect(
      recipe('How many minutes does Masala Chickpea Dal take in total, prep and cooking included?').ask,
    ).toBe('time');
  });

  it('reads the ingredient of a scaled shopping-list task', () => {
    const r = recipe(
      'Add the canned tomatoes for Smoky BBQ Sweet Potato Chili to my shopping list, with the amount for 10 servings.',
    );
    expect(r).toMatchObject({
      ingredient: 'canned tomatoes',
      servings: 10,
      name: 'Smoky BBQ Sweet Potato Chili',
      list: true,
    });
  });
});

describe('parseGoal superlatives', () => {
  it('knows only the common one-word superlatives; rarer wordings need a note', () => {
    expect(parseGoal('Find the cheapest Vortexa blender.').sort).toBe('price-asc');
    expect(parseGoal('Which is the fastest flight to Denver?').sort).toBe('shortest');
    expect(parseGoal('Which is the lowest-priced Northpeak jacket?').sort).toBeNull();
    expect(parseGoal("What's the least expensive house in Raleigh?").sort).toBeNull();
    expect(parseGoal("What's the highest-rated Thai recipe?").sort).toBeNull();
    expect(parseGoal('Find the quickest vegan Mexican recipe.').sort).toBeNull();
  });
});

describe('readShopTask', () => {
  it('tells a stated "quantity N" from a count in passing', () => {
    expect(shop('Put the Velora Polo 3 in size M, Burgundy in my cart — quantity 3.')).toMatchObject({
      qty: 3,
      qtyStated: 3,
    });
    expect(shop('I want 2 Chronix Fit Solar, size 45 mm, Silver. Add them to the cart.')).toMatchObject({
      qty: 2,
      qtyStated: null,
    });
  });

  it('reads a variant, quantity and the product', () => {
    const t = shop('I want 2 Chronix Fit Solar, size 41 mm, Silver. Add them to the cart.');
    expect(t).toMatchObject({
      product: 'Chronix Fit Solar',
      size: '41 mm',
      qty: 2,
      cart: true,
      checkout: false,
    });
    expect(shop('Put the Velora Polo 3 in size M, Burgundy in my cart — quantity 1.')).toMatchObject({
      size: 'M',
      qty: 1,
    });
  });

  it('reads a checkout with address, speed and coupon', () => {
    const t = shop(
      'Buy 2 of the Stridex Cloud Stride in size 8.5, Grey and ship them to Hannah Wilson, 1843 Church Ln, Providence, Rhode Island 02903 (email hannah.wilson63@mail.example.org) with express shipping.',
    );
    expect(t).toMatchObject({
      product: 'Stridex Cloud Stride',
      size: '8.5',
      qty: 2,
      checkout: true,
      shipping: 'express',
    });
    expect(t.address).toEqual({
      name: 'Hannah Wilson',
      street: '1843 Church Ln',
      city: 'Providence',
      state: 'Rhode Island',
      zip: '02903',
      email: 'hannah.wilson63@mail.example.org',
    });
    const c = shop(
      'Check out the Nordlys Desk Lamp 4 Dimmable (Grey) with coupon FREESHIP applied. Ship it standard to Michael Scott, 3802 Mill Rd, Omaha, Nebraska 68102 (email michael.scott95@example.com).',
    );
    expect(c).toMatchObject({
      product: 'Nordlys Desk Lamp 4 Dimmable',
      coupon: 'FREESHIP',
      shipping: 'standard',
      checkout: true,
    });
  });

  it('reads a companion item and trims connectors off the product name', () => {
    const t = shop(
      'Get me one Auralis Fit 4 and one of the Velora Headlamp 3-Pack shown as frequently bought together — add both to the cart.',
    );
    expect(t).toMatchObject({ product: 'Auralis Fit 4', companion: 'Velora Headlamp 3-Pack', cart: true });
  });

  it('reads listing filters and the kind of question', () => {
    expect(
      shop(
        'Count the in-stock Sonique items in the headphones category that cost from $25 to $75. How many are there?',
      ),
    ).toMatchObject({
      ask: 'count',
      minPrice: 25,
      maxPrice: 75,
    });
    expect(
      shop(
        'Which is the lowest-priced Northpeak product in the jackets category with a customer rating of at least 3 stars? Give me its name.',
      ),
    ).toMatchObject({ ask: 'name', product: null });
    expect(
      shop("I have $200 to spend on lighting. What's the best-rated product below that price?").budget,
    ).toBe(200);
    expect(
      shop(
        "On the Alpenrock Scree 1 Low page, find Marco M.'s review. How many stars did they give, and what was the review's title?",
      ),
    ).toMatchObject({
      ask: 'review',
      reviewer: 'Marco M.',
      product: 'Alpenrock Scree 1 Low',
    });
  });
});

describe('readTravelTask', () => {
  it('reads a flight booking', () => {
    const t = travel(
      'Book the cheapest Summit Airways flight from Dallas (DAL) to Washington (DCA) on March 8, 2027 for Betty Williams, born March 10, 1970. Contact email betty.williams9@example.net, phone (646) 555-3388. Window seat, no checked bags.',
    );
    expect(t).toMatchObject({
      kind: 'flight',
      book: true,
      date: '2027-03-08',
      seat: 'window',
      bags: 0,
      earliest: false,
    });
    expect(t.from).toEqual({ text: 'Dallas (DAL)', city: 'Dallas', code: 'DAL' });
    expect(t.to?.code).toBe('DCA');
    expect(t.traveller).toEqual({
      first: 'Betty',
      last: 'Williams',
      email: 'betty.williams9@example.net',
      phone: '(646) 555-3388',
      dob: '03/10/1970',
    });
  });

  it('reads flight questions', () => {
    const a = travel(
      'I need a nonstop from Austin to Washington (IAD) on April 8, 2027 for $350 or less, leaving as early as possible. Which airline is it and when does it leave?',
    );
    expect(a).toMatchObject({ maxPrice: 350, earliest: true, ask: 'airline-time' });
    const f = travel(
      'For Atlantic Wings flight AW 931 from Nashville to Boston on April 6, 2027, what is the cancellation fee according to its fare rules?',
    );
    expect(f).toMatchObject({ flightNumber: 'AW 931', ask: 'fee', fee: 'cancellation' });
  });

  it('reads hotel tasks', () => {
    const b = travel(
      'Reserve the Studio room at Hotel Nova Cancun, checking in April 19, 2027 and out April 24, 2027, 1 guest, under the name Matthew Nguyen (matthew.nguyen43@example.net).',
    );
    expect(b).toMatchObject({
      kind: 'hotel',
      room: 'Studio',
      hotel: 'Hotel Nova Cancun',
      date: '2027-04-19',
      checkout: '2027-04-24',
      guests: 1,
    });
    expect(b.traveller?.last).toBe('Nguyen');
    expect(travel('What guest rating does The Wren Orlando Airport have?')).toMatchObject({
      ask: 'rating',
      hotel: 'The Wren Orlando Airport',
    });
    expect(
      travel(
        'Find me the lowest-priced hotel in Austin that is exactly 2 stars and has a restaurant. Which one is it?',
      ),
    ).toMatchObject({
      kind: 'hotel',
      ask: 'name',
    });
    expect(
      travel('My budget in London is $200 per night. Which hotel within that has the highest guest rating?'),
    ).toMatchObject({ maxPrice: null, budget: 200 });
    expect(
      travel('Which hotel in Rome costing at most $250 a night has the best guest rating?').maxPrice,
    ).toBe(250);
  });

  it('derives destination queries from a hotel name', () => {
    expect(cityQueries('Hotel Verde Los Angeles')).toEqual([
      'Verde Los',
      'Verde',
      'Los Angeles',
      'Los',
      'Angeles',
    ]);
  });
});
