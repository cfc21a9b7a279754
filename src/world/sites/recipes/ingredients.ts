/** The ingredient catalog (units and diet flags) and the main ingredients recipes are built around. */

export type DietFlag = 'meat' | 'fish' | 'dairy' | 'egg' | 'gluten' | 'honey';

export interface IngredientInfo {
  unit: string;
  /** Plural unit, or the same when uncountable. */
  units: string;
  flags: DietFlag[];
}

const u = (unit: string, units: string, ...flags: DietFlag[]): IngredientInfo => ({ unit, units, flags });
const CUP = ['cup', 'cups'] as const;
const TBSP = ['tbsp', 'tbsp'] as const;
const TSP = ['tsp', 'tsp'] as const;
const G = ['g', 'g'] as const;
const LB = ['lb', 'lb'] as const;
const OZ = ['oz', 'oz'] as const;

/** Every ingredient with its unit and diet flags. */
export const INGREDIENTS: Record<string, IngredientInfo> = {
  'chicken breast': u(...LB, 'meat'),
  'ground beef': u(...LB, 'meat'),
  'pork shoulder': u(...LB, 'meat'),
  lamb: u(...LB, 'meat'),
  chorizo: u(...OZ, 'meat'),
  shrimp: u(...LB, 'fish'),
  'salmon fillet': u(...LB, 'fish'),
  'white fish': u(...LB, 'fish'),
  'firm tofu': u(...OZ),
  chickpeas: u(...CUP),
  'black beans': u(...CUP),
  'red lentils': u(...CUP),
  mushrooms: u(...OZ),
  eggplant: u('medium eggplant', 'medium eggplants'),
  cauliflower: u('head cauliflower', 'heads cauliflower'),
  paneer: u(...OZ, 'dairy'),
  'sweet potatoes': u(...LB),
  'olive oil': u(...TBSP),
  garlic: u('clove garlic', 'cloves garlic'),
  onion: u('onion', 'onions'),
  salt: u(...TSP),
  'black pepper': u(...TSP),
  butter: u(...TBSP, 'dairy'),
  'heavy cream': u(...CUP, 'dairy'),
  parmesan: u(...CUP, 'dairy'),
  mozzarella: u(...CUP, 'dairy'),
  feta: u(...CUP, 'dairy'),
  'greek yogurt': u(...CUP, 'dairy'),
  eggs: u('egg', 'eggs', 'egg'),
  spaghetti: u(...G, 'gluten'),
  penne: u(...G, 'gluten'),
  'arborio rice': u(...CUP),
  'all-purpose flour': u(...CUP, 'gluten'),
  'soy sauce': u(...TBSP, 'gluten'),
  tamari: u(...TBSP),
  'coconut milk': u(...CUP),
  'curry paste': u(...TBSP),
  'garam masala': u(...TSP),
  'ground cumin': u(...TSP),
  'chili powder': u(...TSP),
  'corn tortillas': u('corn tortilla', 'corn tortillas'),
  'flour tortillas': u('flour tortilla', 'flour tortillas', 'gluten'),
  lime: u('lime', 'limes'),
  cilantro: u(...CUP),
  'canned tomatoes': u(...OZ),
  'cherry tomatoes': u(...CUP),
  'jasmine rice': u(...CUP),
  'basmati rice': u(...CUP),
  'fresh ginger': u(...TBSP),
  'sesame oil': u(...TBSP),
  honey: u(...TBSP, 'honey'),
  'maple syrup': u(...TBSP),
  lemon: u('lemon', 'lemons'),
  'fresh basil': u(...CUP),
  'dried oregano': u(...TSP),
  'smoked paprika': u(...TSP),
  'bell pepper': u('bell pepper', 'bell peppers'),
  zucchini: u('zucchini', 'zucchini'),
  potatoes: u(...LB),
  'miso paste': u(...TBSP),
  'ramen noodles': u(...G, 'gluten'),
  'rice noodles': u(...G),
  gochujang: u(...TBSP),
  kimchi: u(...CUP),
  'pita bread': u('pita', 'pitas', 'gluten'),
  tahini: u(...TBSP),
  saffron: u('pinch saffron', 'pinches saffron'),
  'vegetable broth': u(...CUP),
  'peanut butter': u(...TBSP),
  spinach: u(...CUP),
  cucumber: u('cucumber', 'cucumbers'),
  'red onion': u('red onion', 'red onions'),
  'kalamata olives': u(...CUP),
  carrots: u('carrot', 'carrots'),
  'green onions': u('green onion', 'green onions'),
  'rice vinegar': u(...TBSP),
  'brown sugar': u(...TBSP),
  breadcrumbs: u(...CUP, 'gluten'),
  cheddar: u(...CUP, 'dairy'),
  'sour cream': u(...CUP, 'dairy'),
  'frozen peas': u(...CUP),
  thyme: u(...TSP),
  'dijon mustard': u(...TBSP),
  turmeric: u(...TSP),
  edamame: u(...CUP),
  'sesame seeds': u(...TBSP),
  'pine nuts': u(...TBSP),
  avocado: u('avocado', 'avocados'),
};

export interface Main {
  label: string;
  ingredient: string;
  qty: number;
}

export const MAINS: Record<string, Main> = {
  chicken: { label: 'Chicken', ingredient: 'chicken breast', qty: 1.5 },
  beef: { label: 'Beef', ingredient: 'ground beef', qty: 1 },
  pork: { label: 'Pork', ingredient: 'pork shoulder', qty: 1.5 },
  lamb: { label: 'Lamb', ingredient: 'lamb', qty: 1 },
  shrimp: { label: 'Shrimp', ingredient: 'shrimp', qty: 1 },
  salmon: { label: 'Salmon', ingredient: 'salmon fillet', qty: 1 },
  fish: { label: 'Fish', ingredient: 'white fish', qty: 1 },
  tofu: { label: 'Tofu', ingredient: 'firm tofu', qty: 14 },
  chickpea: { label: 'Chickpea', ingredient: 'chickpeas', qty: 2 },
  bean: { label: 'Black Bean', ingredient: 'black beans', qty: 2 },
  lentil: { label: 'Lentil', ingredient: 'red lentils', qty: 1 },
  mushroom: { label: 'Mushroom', ingredient: 'mushrooms', qty: 12 },
  eggplant: { label: 'Eggplant', ingredient: 'eggplant', qty: 2 },
  cauliflower: { label: 'Cauliflower', ingredient: 'cauliflower', qty: 1 },
  paneer: { label: 'Paneer', ingredient: 'paneer', qty: 8 },
  sweetpotato: { label: 'Sweet Potato', ingredient: 'sweet potatoes', qty: 1.5 },
};
