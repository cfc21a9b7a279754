import { hashString, Rng } from '../../../core/rng.ts';
import { slug } from '../../../core/text.ts';
import { CATEGORIES, type Category } from './categories.ts';

/** One product; `name` is brand + model, the string shown on every page. */
export interface Product {
  id: string;
  name: string;
  brand: string;
  model: string;
  /** Products of one family differ only by suffix: the lookalikes. */
  family: string;
  category: string;
  price: number;
  /** Price before a sale, when on sale. */
  listPrice: number | null;
  rating: number;
  reviewCount: number;
  sizes: string[];
  soldOutSizes: string[];
  colors: string[];
  inStock: boolean;
  /** ISO date the product was added, for "newest" sorting. */
  added: string;
  description: string;
  features: string[];
  /** Product id shown under "Frequently bought together". */
  fbt: string | null;
}

export interface Review {
  author: string;
  rating: number;
  title: string;
  text: string;
  date: string;
  verified: boolean;
}

/** A coupon the checkout accepts (or rejects with a reason). */
export interface Coupon {
  code: string;
  kind: 'percent' | 'freeship';
  value: number;
  minSubtotal: number;
  expired: boolean;
  label: string;
}

export interface ShopData {
  categories: Category[];
  products: Product[];
  byId: Map<string, Product>;
  coupons: Coupon[];
  states: string[];
}

const FEATURE_WORDS = [
  'Lightweight build for all-day comfort',
  'Recycled materials',
  'Two-year warranty',
  'Free returns within 30 days',
  'Water-resistant finish',
  'Machine washable',
  'Tested by our gear team',
  'Reinforced stitching',
  'Low-energy standby',
  'Breathable mesh',
  'Dishwasher-safe parts',
  'Quiet operation',
  'Includes travel pouch',
  'Reflective details',
];

const SUFFIX_PREMIUM: Record<string, number> = {
  ' GTX': 25,
  ' Wide': 5,
  ' Lite': -12,
  ' Mid': 10,
  ' Mid GTX': 35,
  ' Low': -8,
  ' Pro': 40,
  ' Hooded': 15,
  ' Long Sleeve': 8,
  ' Slim Fit': 0,
  ' Plus': 20,
  ' Ultralight': 30,
  ' SE': -20,
  ' Max': 80,
  ' LTE': 70,
  ' Solar': 110,
  ' Thermal': 25,
  ' Compact': -15,
  ' LED': 10,
  ' Dimmable': 15,
  ' Travel': -5,
  ' 3-Pack': 12,
  ' Cushioned': 4,
};

function round99(n: number): number {
  return Math.max(4.99, Math.round(n) - 0.01);
}

function isoDay(rng: Rng, from: number, to: number): string {
  const t = from + Math.floor(rng.next() * (to - from));
  return new Date(t).toISOString().slice(0, 10);
}

/** Builds the shop's catalog from the world seed: about 450 products in 12 categories. */
export function buildShopData(seed: number): ShopData {
  const rng = new Rng(`${seed}:shop:catalog`);
  const products: Product[] = [];
  const names = new Set<string>();
  const from = Date.UTC(2025, 0, 1);
  const to = Date.UTC(2026, 11, 20);
  for (const cat of CATEGORIES) {
    const target = cat.id === 'accessories' ? 44 : 38;
    let guard = 0;
    while (products.filter((p) => p.category === cat.id).length < target && guard++ < 400) {
      const brand = rng.pick(cat.brands);
      const model = rng.pick(cat.models);
      // Shoes and electronics come in numbered generations; socks and lamps mostly do not.
      const versioned = ['accessories', 'fitness', 'lighting', 'kitchen', 'coffee-makers'].includes(cat.id)
        ? 0.25
        : 0.7;
      const version = rng.bool(versioned) ? ` ${rng.int(1, 5)}` : '';
      const family = `${model}${version}`;
      if (names.has(`${brand} ${family}`)) continue;
      const base = rng.int(cat.priceRange[0], Math.round((cat.priceRange[0] + cat.priceRange[1]) * 0.6));
      const extra = rng.shuffle(cat.suffixes.filter((s) => s !== '')).slice(0, rng.int(0, 2));
      for (const suffix of ['', ...extra]) {
        const modelName = `${family}${suffix}`;
        const name = `${brand} ${modelName}`;
        if (names.has(name)) continue;
        names.add(name);
        const price = round99(
          Math.min(cat.priceRange[1], base + (SUFFIX_PREMIUM[suffix] ?? 0) + rng.int(0, 6)),
        );
        const onSale = rng.bool(0.2);
        const colors = rng.shuffle(cat.colors).slice(0, rng.int(2, 4));
        const sizes = cat.sizes.length > 0 ? cat.sizes.slice() : [];
        // At least one size stays available: a product with every size sold out is out of stock.
        const soldOutSizes = sizes.length
          ? rng.shuffle(sizes).slice(0, rng.int(0, Math.min(2, sizes.length - 1)))
          : [];
        const rating = Math.round((3 + rng.next() * 1.5 + rng.next() * 0.5) * 10) / 10;
        products.push({
          // `&` reads "and" in product ids (the world's URLs and recorded runs use them).
          id: slug(name.replace(/&/g, 'and')),
          name,
          brand,
          model: modelName,
          family: `${brand} ${family}`,
          category: cat.id,
          price,
          listPrice: onSale ? round99(price * (1.15 + rng.next() * 0.25)) : null,
          rating: Math.min(5, rating),
          reviewCount: Math.floor(Math.exp(rng.next() * 7.5)),
          sizes,
          soldOutSizes,
          colors,
          inStock: rng.bool(0.84),
          added: isoDay(rng, from, to),
          description: `The ${name} is a ${cat.noun} from ${brand}${suffix ? ` in its${suffix} edition` : ''}, made for people who use their gear every day.`,
          features: rng.shuffle(FEATURE_WORDS).slice(0, 4),
          fbt: null,
        });
      }
    }
  }
  const accessories = products.filter((p) => p.category === 'accessories');
  for (const p of products) {
    if (p.category === 'accessories') continue;
    const pool = accessories.filter((a) => a.brand === p.brand);
    const r = new Rng(`${seed}:shop:fbt:${p.id}`);
    p.fbt = r.pick(pool.length ? pool : accessories).id;
  }
  return {
    categories: CATEGORIES,
    products,
    byId: new Map(products.map((p) => [p.id, p])),
    coupons: [
      {
        code: 'SAVE10',
        kind: 'percent',
        value: 10,
        minSubtotal: 0,
        expired: false,
        label: '10% off your order',
      },
      {
        code: 'WELCOME15',
        kind: 'percent',
        value: 15,
        minSubtotal: 100,
        expired: false,
        label: '15% off orders of $100 or more',
      },
      {
        code: 'FREESHIP',
        kind: 'freeship',
        value: 0,
        minSubtotal: 0,
        expired: false,
        label: 'Free standard shipping',
      },
      {
        code: 'SPRING20',
        kind: 'percent',
        value: 20,
        minSubtotal: 0,
        expired: true,
        label: '20% off (spring sale)',
      },
    ],
    states: US_STATES,
  };
}

/** Other products of the same family: the lookalikes an agent must not confuse with `p`. */
export function lookalikesOf(data: ShopData, p: Product): Product[] {
  return data.products.filter((o) => o.family === p.family && o.id !== p.id);
}

export type { Category };

export function categoryOf(data: ShopData, id: string): Category {
  const c = data.categories.find((x) => x.id === id);
  if (!c) throw new Error(`unknown shop category ${id}`);
  return c;
}

const FIRST = [
  'Dana',
  'Chris',
  'Priya',
  'Marco',
  'Aisha',
  'Tom',
  'Yuki',
  'Lena',
  'Omar',
  'Grace',
  'Ben',
  'Sofia',
  'Raj',
  'Ella',
  'Noah',
  'Mia',
];
const TITLES_GOOD = [
  'Love it',
  'Exactly as described',
  'Great value',
  'Would buy again',
  'Comfortable and solid',
  'Five stars',
];
const TITLES_MID = ['Decent, not perfect', 'Does the job', 'Okay for the price', 'Mixed feelings'];
const TITLES_BAD = ['Disappointed', 'Fell apart quickly', 'Not as pictured', 'Returned it'];

/** The reviews shown on a product page (up to 6), generated from the product id. */
export function reviewsOf(seed: number, p: Product): Review[] {
  const rng = new Rng(`${seed}:shop:reviews:${p.id}`);
  const n = Math.min(p.reviewCount, 6);
  const out: Review[] = [];
  const used = new Set<string>();
  for (let i = 0; i < n; i++) {
    let author = `${rng.pick(FIRST)} ${String.fromCharCode(65 + rng.int(0, 25))}.`;
    while (used.has(author)) author = `${rng.pick(FIRST)} ${String.fromCharCode(65 + rng.int(0, 25))}.`;
    used.add(author);
    const rating = Math.max(1, Math.min(5, Math.round(p.rating + (rng.next() - 0.5) * 2.4)));
    const title =
      rating >= 4 ? rng.pick(TITLES_GOOD) : rating === 3 ? rng.pick(TITLES_MID) : rng.pick(TITLES_BAD);
    out.push({
      author,
      rating,
      title,
      text: `${title}. I have used the ${p.model} for ${rng.int(2, 20)} weeks${rating >= 4 ? ' and it has held up well' : ', and I expected more'}.`,
      date: new Date(Date.UTC(2026, rng.int(0, 10), rng.int(1, 28))).toISOString().slice(0, 10),
      verified: rng.bool(0.8),
    });
  }
  return out;
}

/** Stable order number for the n-th order of a session. */
export function orderNumber(sessionId: string, n: number): string {
  return `NW-${100000 + ((hashString(sessionId) + n * 7919) % 900000)}`;
}

export const US_STATES = [
  'Alabama',
  'Alaska',
  'Arizona',
  'Arkansas',
  'California',
  'Colorado',
  'Connecticut',
  'Delaware',
  'Florida',
  'Georgia',
  'Hawaii',
  'Idaho',
  'Illinois',
  'Indiana',
  'Iowa',
  'Kansas',
  'Kentucky',
  'Louisiana',
  'Maine',
  'Maryland',
  'Massachusetts',
  'Michigan',
  'Minnesota',
  'Mississippi',
  'Missouri',
  'Montana',
  'Nebraska',
  'Nevada',
  'New Hampshire',
  'New Jersey',
  'New Mexico',
  'New York',
  'North Carolina',
  'North Dakota',
  'Ohio',
  'Oklahoma',
  'Oregon',
  'Pennsylvania',
  'Rhode Island',
  'South Carolina',
  'South Dakota',
  'Tennessee',
  'Texas',
  'Utah',
  'Vermont',
  'Virginia',
  'Washington',
  'West Virginia',
  'Wisconsin',
  'Wyoming',
];
