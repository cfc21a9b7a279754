/** The ingredient catalog and cuisine blueprints the recipe generator combines. */

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
const EACH = ['', ''] as const;

/** Every ingredient with its unit and diet flags. */
export const INGREDIENTS: Record<string, IngredientInfo> = {
  'chicken breast': u(...LB, 'meat'), 'ground beef': u(...LB, 'meat'), 'pork shoulder': u(...LB, 'meat'), 'lamb': u(...LB, 'meat'),
  'chorizo': u(...OZ, 'meat'), 'shrimp': u(...LB, 'fish'), 'salmon fillet': u(...LB, 'fish'), 'white fish': u(...LB, 'fish'),
  'firm tofu': u(...OZ), 'chickpeas': u(...CUP), 'black beans': u(...CUP), 'red lentils': u(...CUP), 'mushrooms': u(...OZ),
  'eggplant': u('medium eggplant', 'medium eggplants'), 'cauliflower': u('head cauliflower', 'heads cauliflower'), 'paneer': u(...OZ, 'dairy'),
  'sweet potatoes': u(...LB), 'olive oil': u(...TBSP), 'garlic': u('clove garlic', 'cloves garlic'), 'onion': u('onion', 'onions'),
  'salt': u(...TSP), 'black pepper': u(...TSP), 'butter': u(...TBSP, 'dairy'), 'heavy cream': u(...CUP, 'dairy'),
  'parmesan': u(...CUP, 'dairy'), 'mozzarella': u(...CUP, 'dairy'), 'feta': u(...CUP, 'dairy'), 'greek yogurt': u(...CUP, 'dairy'),
  'eggs': u('egg', 'eggs', 'egg'), 'spaghetti': u(...G, 'gluten'), 'penne': u(...G, 'gluten'), 'arborio rice': u(...CUP),
  'all-purpose flour': u(...CUP, 'gluten'), 'soy sauce': u(...TBSP, 'gluten'), 'tamari': u(...TBSP), 'coconut milk': u(...CUP),
  'curry paste': u(...TBSP), 'garam masala': u(...TSP), 'ground cumin': u(...TSP), 'chili powder': u(...TSP),
  'corn tortillas': u('corn tortilla', 'corn tortillas'), 'flour tortillas': u('flour tortilla', 'flour tortillas', 'gluten'), 'lime': u('lime', 'limes'),
  'cilantro': u(...CUP), 'canned tomatoes': u(...OZ), 'cherry tomatoes': u(...CUP), 'jasmine rice': u(...CUP), 'basmati rice': u(...CUP),
  'fresh ginger': u(...TBSP), 'sesame oil': u(...TBSP), 'honey': u(...TBSP, 'honey'), 'maple syrup': u(...TBSP), 'lemon': u('lemon', 'lemons'),
  'fresh basil': u(...CUP), 'dried oregano': u(...TSP), 'smoked paprika': u(...TSP), 'bell pepper': u('bell pepper', 'bell peppers'),
  'zucchini': u('zucchini', 'zucchini'), 'potatoes': u(...LB), 'miso paste': u(...TBSP), 'ramen noodles': u(...G, 'gluten'),
  'rice noodles': u(...G), 'gochujang': u(...TBSP), 'kimchi': u(...CUP), 'pita bread': u('pita', 'pitas', 'gluten'), 'tahini': u(...TBSP),
  'saffron': u('pinch saffron', 'pinches saffron'), 'vegetable broth': u(...CUP), 'peanut butter': u(...TBSP), 'spinach': u(...CUP),
  'cucumber': u('cucumber', 'cucumbers'), 'red onion': u('red onion', 'red onions'), 'kalamata olives': u(...CUP), 'carrots': u('carrot', 'carrots'),
  'green onions': u('green onion', 'green onions'), 'rice vinegar': u(...TBSP), 'brown sugar': u(...TBSP), 'breadcrumbs': u(...CUP, 'gluten'),
  'cheddar': u(...CUP, 'dairy'), 'sour cream': u(...CUP, 'dairy'), 'frozen peas': u(...CUP), 'thyme': u(...TSP), 'dijon mustard': u(...TBSP),
  'turmeric': u(...TSP), 'edamame': u(...CUP), 'sesame seeds': u(...TBSP), 'pine nuts': u(...TBSP), 'avocado': u('avocado', 'avocados'),
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

export interface Dish {
  /** Name pattern: {flavor} and {main} are filled in. */
  pattern: string;
  mains: string[];
  base: Array<[string, number]>;
  method: 'stovetop' | 'oven' | 'grill' | 'no-cook';
  prep: [number, number];
  cook: [number, number];
  temp?: number;
}

export interface Cuisine {
  id: string;
  name: string;
  flavors: string[];
  dishes: Dish[];
}

export const CUISINES: Cuisine[] = [
  { id: 'italian', name: 'Italian', flavors: ['Lemon Garlic', 'Creamy Tuscan', 'Pesto', 'Roasted Tomato', 'Spicy Arrabbiata'], dishes: [
    { pattern: '{flavor} {main} Pasta', mains: ['chicken', 'shrimp', 'mushroom', 'eggplant', 'chickpea'], base: [['spaghetti', 340], ['olive oil', 2], ['garlic', 3], ['parmesan', 0.5], ['fresh basil', 0.25], ['salt', 1]], method: 'stovetop', prep: [10, 15], cook: [15, 25] },
    { pattern: '{flavor} {main} Risotto', mains: ['mushroom', 'shrimp', 'chicken', 'sweetpotato'], base: [['arborio rice', 1.5], ['vegetable broth', 5], ['onion', 1], ['butter', 2], ['parmesan', 0.75], ['salt', 1]], method: 'stovetop', prep: [10, 15], cook: [30, 40] },
    { pattern: '{flavor} {main} Bake', mains: ['chicken', 'eggplant', 'cauliflower', 'beef'], base: [['canned tomatoes', 28], ['mozzarella', 1.5], ['penne', 340], ['dried oregano', 1], ['garlic', 2], ['olive oil', 1]], method: 'oven', prep: [15, 20], cook: [25, 45], temp: 400 },
  ] },
  { id: 'mexican', name: 'Mexican', flavors: ['Chipotle', 'Lime Cilantro', 'Smoky', 'Salsa Verde'], dishes: [
    { pattern: '{flavor} {main} Tacos', mains: ['chicken', 'fish', 'bean', 'shrimp', 'cauliflower', 'pork'], base: [['corn tortillas', 8], ['lime', 1], ['cilantro', 0.5], ['red onion', 0.5], ['ground cumin', 1], ['salt', 0.5]], method: 'stovetop', prep: [10, 20], cook: [10, 20] },
    { pattern: '{flavor} {main} Enchiladas', mains: ['chicken', 'bean', 'sweetpotato', 'beef'], base: [['flour tortillas', 8], ['canned tomatoes', 15], ['cheddar', 1.5], ['chili powder', 2], ['onion', 1], ['sour cream', 0.5]], method: 'oven', prep: [20, 25], cook: [20, 30], temp: 375 },
    { pattern: '{flavor} {main} Burrito Bowls', mains: ['chicken', 'bean', 'tofu', 'beef'], base: [['jasmine rice', 1.5], ['lime', 2], ['avocado', 1], ['cherry tomatoes', 1], ['cilantro', 0.25], ['chili powder', 1]], method: 'stovetop', prep: [10, 15], cook: [20, 25] },
  ] },
  { id: 'indian', name: 'Indian', flavors: ['Butter', 'Coconut', 'Spiced', 'Masala', 'Kerala'], dishes: [
    { pattern: '{flavor} {main} Curry', mains: ['chicken', 'chickpea', 'lentil', 'cauliflower', 'paneer', 'shrimp'], base: [['coconut milk', 1.5], ['onion', 1], ['garlic', 4], ['fresh ginger', 1], ['garam masala', 2], ['turmeric', 1], ['canned tomatoes', 14]], method: 'stovetop', prep: [15, 20], cook: [25, 40] },
    { pattern: '{flavor} {main} Biryani', mains: ['chicken', 'lamb', 'cauliflower', 'paneer'], base: [['basmati rice', 2], ['onion', 2], ['greek yogurt', 0.5], ['garam masala', 2], ['saffron', 1], ['fresh ginger', 1]], method: 'oven', prep: [25, 30], cook: [40, 55], temp: 350 },
    { pattern: '{flavor} {main} Dal', mains: ['lentil', 'sweetpotato', 'chickpea'], base: [['red lentils', 1], ['onion', 1], ['ground cumin', 1], ['turmeric', 1], ['garlic', 3], ['spinach', 2]], method: 'stovetop', prep: [10, 15], cook: [25, 35] },
  ] },
  { id: 'thai', name: 'Thai', flavors: ['Green Curry', 'Peanut', 'Thai Basil', 'Lemongrass', 'Red Curry'], dishes: [
    { pattern: '{flavor} {main} Noodles', mains: ['chicken', 'shrimp', 'tofu', 'beef'], base: [['rice noodles', 225], ['peanut butter', 3], ['tamari', 3], ['lime', 1], ['green onions', 3], ['bell pepper', 1]], method: 'stovetop', prep: [15, 20], cook: [10, 15] },
    { pattern: '{flavor} {main} Stir-Fry', mains: ['chicken', 'tofu', 'shrimp', 'beef', 'eggplant'], base: [['jasmine rice', 1.5], ['curry paste', 2], ['coconut milk', 1], ['bell pepper', 2], ['fresh basil', 0.5], ['brown sugar', 1]], method: 'stovetop', prep: [15, 20], cook: [12, 18] },
    { pattern: '{flavor} {main} Soup', mains: ['chicken', 'shrimp', 'tofu', 'mushroom'], base: [['coconut milk', 2], ['vegetable broth', 3], ['curry paste', 2], ['lime', 2], ['mushrooms', 6], ['cilantro', 0.25]], method: 'stovetop', prep: [10, 15], cook: [20, 30] },
  ] },
  { id: 'japanese', name: 'Japanese', flavors: ['Teriyaki', 'Miso Glazed', 'Ginger Sesame', 'Yuzu'], dishes: [
    { pattern: '{flavor} {main} Rice Bowls', mains: ['salmon', 'chicken', 'tofu', 'beef'], base: [['jasmine rice', 1.5], ['soy sauce', 3], ['honey', 2], ['fresh ginger', 1], ['sesame seeds', 1], ['edamame', 1]], method: 'stovetop', prep: [10, 15], cook: [15, 25] },
    { pattern: '{flavor} {main} Ramen', mains: ['pork', 'chicken', 'mushroom', 'tofu'], base: [['ramen noodles', 300], ['miso paste', 3], ['vegetable broth', 6], ['green onions', 4], ['eggs', 2], ['sesame oil', 1]], method: 'stovetop', prep: [15, 20], cook: [25, 40] },
    { pattern: 'Sheet-Pan {flavor} {main}', mains: ['salmon', 'chicken', 'tofu', 'eggplant'], base: [['miso paste', 2], ['maple syrup', 2], ['rice vinegar', 1], ['carrots', 3], ['sesame oil', 1], ['green onions', 2]], method: 'oven', prep: [10, 15], cook: [18, 30], temp: 425 },
  ] },
  { id: 'chinese', name: 'Chinese', flavors: ['Kung Pao', 'Garlic Black Bean', 'Sweet and Sour', 'Sichuan', 'Orange'], dishes: [
    { pattern: '{flavor} {main}', mains: ['chicken', 'tofu', 'shrimp', 'pork', 'cauliflower'], base: [['soy sauce', 3], ['rice vinegar', 2], ['garlic', 3], ['fresh ginger', 1], ['bell pepper', 1], ['jasmine rice', 1.5]], method: 'stovetop', prep: [15, 20], cook: [10, 15] },
    { pattern: '{flavor} {main} Fried Rice', mains: ['chicken', 'shrimp', 'tofu', 'pork'], base: [['jasmine rice', 3], ['eggs', 2], ['frozen peas', 1], ['soy sauce', 2], ['green onions', 3], ['sesame oil', 1]], method: 'stovetop', prep: [10, 15], cook: [10, 15] },
    { pattern: '{flavor} {main} Lo Mein', mains: ['chicken', 'beef', 'mushroom', 'tofu'], base: [['ramen noodles', 340], ['soy sauce', 3], ['sesame oil', 1], ['carrots', 2], ['bell pepper', 1], ['garlic', 2]], method: 'stovetop', prep: [15, 20], cook: [10, 15] },
  ] },
  { id: 'french', name: 'French', flavors: ['Herbed', 'Provençal', 'Dijon', 'Rustic'], dishes: [
    { pattern: '{flavor} {main} Gratin', mains: ['cauliflower', 'sweetpotato', 'mushroom'], base: [['heavy cream', 1.5], ['potatoes', 2], ['garlic', 2], ['thyme', 1], ['butter', 2], ['parmesan', 1]], method: 'oven', prep: [20, 25], cook: [45, 60], temp: 375 },
    { pattern: '{flavor} {main} Stew', mains: ['beef', 'chicken', 'lentil', 'mushroom', 'lamb'], base: [['carrots', 3], ['onion', 2], ['vegetable broth', 4], ['thyme', 2], ['all-purpose flour', 0.25], ['dijon mustard', 1]], method: 'stovetop', prep: [20, 25], cook: [60, 120] },
    { pattern: '{flavor} {main} Quiche', mains: ['mushroom', 'chicken', 'sweetpotato'], base: [['eggs', 4], ['heavy cream', 1], ['all-purpose flour', 1.5], ['butter', 8], ['cheddar', 1], ['spinach', 1]], method: 'oven', prep: [25, 30], cook: [35, 45], temp: 350 },
  ] },
  { id: 'greek', name: 'Greek', flavors: ['Lemon Oregano', 'Mediterranean', 'Garlic Herb', 'Feta'], dishes: [
    { pattern: '{flavor} {main} Souvlaki', mains: ['chicken', 'pork', 'lamb', 'tofu'], base: [['lemon', 2], ['dried oregano', 2], ['olive oil', 3], ['garlic', 3], ['pita bread', 4], ['greek yogurt', 1]], method: 'grill', prep: [20, 30], cook: [10, 15] },
    { pattern: '{flavor} {main} Salad', mains: ['chickpea', 'chicken', 'shrimp', 'lentil'], base: [['cucumber', 1], ['cherry tomatoes', 2], ['red onion', 0.5], ['kalamata olives', 0.5], ['feta', 0.5], ['olive oil', 3]], method: 'no-cook', prep: [15, 20], cook: [0, 0] },
    { pattern: '{flavor} {main} Moussaka', mains: ['lamb', 'beef', 'eggplant', 'lentil'], base: [['eggplant', 2], ['canned tomatoes', 14], ['greek yogurt', 1], ['eggs', 2], ['onion', 1], ['parmesan', 0.5]], method: 'oven', prep: [30, 35], cook: [45, 60], temp: 375 },
  ] },
  { id: 'american', name: 'American', flavors: ['Smoky BBQ', 'Honey Mustard', 'Cajun', 'Classic', 'Buffalo'], dishes: [
    { pattern: '{flavor} {main} Chili', mains: ['beef', 'bean', 'chicken', 'sweetpotato', 'lentil'], base: [['canned tomatoes', 28], ['black beans', 1.5], ['onion', 1], ['chili powder', 2], ['ground cumin', 1], ['cheddar', 0.5]], method: 'stovetop', prep: [15, 20], cook: [35, 60] },
    { pattern: 'Sheet-Pan {flavor} {main}', mains: ['chicken', 'salmon', 'cauliflower', 'sweetpotato', 'tofu'], base: [['potatoes', 1.5], ['olive oil', 3], ['smoked paprika', 2], ['garlic', 3], ['honey', 2], ['dijon mustard', 2]], method: 'oven', prep: [10, 15], cook: [25, 35], temp: 425 },
    { pattern: '{flavor} {main} Casserole', mains: ['chicken', 'beef', 'bean', 'cauliflower'], base: [['penne', 340], ['cheddar', 2], ['heavy cream', 1], ['breadcrumbs', 0.5], ['onion', 1], ['frozen peas', 1]], method: 'oven', prep: [20, 25], cook: [30, 40], temp: 350 },
  ] },
  { id: 'middle-eastern', name: 'Middle Eastern', flavors: ["Za'atar", 'Harissa', 'Shawarma-Spiced', 'Sumac Lemon'], dishes: [
    { pattern: '{flavor} {main} Bowls', mains: ['chicken', 'chickpea', 'lamb', 'cauliflower'], base: [['basmati rice', 1.5], ['tahini', 3], ['lemon', 1], ['cucumber', 1], ['cherry tomatoes', 1], ['ground cumin', 2]], method: 'stovetop', prep: [15, 20], cook: [20, 30] },
    { pattern: '{flavor} {main} Flatbreads', mains: ['lamb', 'chicken', 'eggplant', 'mushroom'], base: [['pita bread', 4], ['greek yogurt', 0.5], ['red onion', 1], ['olive oil', 2], ['pine nuts', 2], ['feta', 0.5]], method: 'oven', prep: [15, 20], cook: [12, 18], temp: 450 },
    { pattern: '{flavor} {main} Stew', mains: ['chickpea', 'lamb', 'chicken', 'lentil', 'sweetpotato'], base: [['canned tomatoes', 14], ['onion', 1], ['ground cumin', 2], ['smoked paprika', 1], ['vegetable broth', 3], ['lemon', 1]], method: 'stovetop', prep: [15, 20], cook: [35, 50] },
  ] },
  { id: 'korean', name: 'Korean', flavors: ['Gochujang', 'Bulgogi-Style', 'Spicy Kimchi', 'Sesame Garlic'], dishes: [
    { pattern: '{flavor} {main} Bibimbap', mains: ['beef', 'tofu', 'chicken', 'mushroom'], base: [['jasmine rice', 2], ['gochujang', 2], ['spinach', 2], ['carrots', 2], ['eggs', 4], ['sesame oil', 2]], method: 'stovetop', prep: [20, 25], cook: [20, 25] },
    { pattern: '{flavor} {main} Stew', mains: ['pork', 'tofu', 'mushroom', 'chicken'], base: [['kimchi', 2], ['gochujang', 1], ['vegetable broth', 4], ['green onions', 3], ['garlic', 3], ['onion', 1]], method: 'stovetop', prep: [10, 15], cook: [25, 35] },
    { pattern: '{flavor} {main} Fried Rice', mains: ['pork', 'tofu', 'shrimp', 'beef'], base: [['jasmine rice', 3], ['kimchi', 1], ['eggs', 2], ['sesame oil', 1], ['green onions', 2], ['soy sauce', 1]], method: 'stovetop', prep: [10, 15], cook: [10, 15] },
  ] },
  { id: 'spanish', name: 'Spanish', flavors: ['Saffron', 'Smoky Paprika', 'Garlic', 'Valencian'], dishes: [
    { pattern: '{flavor} {main} Paella', mains: ['shrimp', 'chicken', 'mushroom', 'cauliflower'], base: [['arborio rice', 1.5], ['saffron', 1], ['vegetable broth', 4], ['bell pepper', 1], ['frozen peas', 0.5], ['smoked paprika', 1]], method: 'stovetop', prep: [20, 25], cook: [35, 45] },
    { pattern: '{flavor} {main} Skillet', mains: ['chicken', 'chickpea', 'shrimp'], base: [['potatoes', 1], ['chorizo', 6], ['onion', 1], ['smoked paprika', 2], ['garlic', 3], ['olive oil', 2]], method: 'stovetop', prep: [10, 15], cook: [20, 30] },
    { pattern: '{flavor} {main} Tortilla', mains: ['mushroom', 'sweetpotato', 'cauliflower'], base: [['eggs', 6], ['potatoes', 1], ['onion', 1], ['olive oil', 4], ['salt', 1], ['spinach', 1]], method: 'stovetop', prep: [15, 20], cook: [20, 25] },
  ] },
];
