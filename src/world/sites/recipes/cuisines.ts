/** Cuisine blueprints: flavors and dish patterns the recipe generator combines with MAINS. */

export interface Dish {
  /** Name pattern: {flavor} and {main} are filled in. */
  pattern: string;
  mains: string[];
  /** Ingredients for 4 servings, besides the main. */
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

/**
 * A dish from compact text: mains are space-separated MAINS keys, the base is "name qty; ...",
 * times are "min-max" minutes.
 */
function dish(
  pattern: string,
  mains: string,
  base: string,
  method: Dish['method'],
  prep: string,
  cook: string,
  temp?: number,
): Dish {
  const range = (s: string) => s.split('-').map(Number) as [number, number];
  return {
    pattern,
    mains: mains.split(' '),
    base: base.split('; ').map((x) => {
      const i = x.lastIndexOf(' ');
      return [x.slice(0, i), Number(x.slice(i + 1))] as [string, number];
    }),
    method,
    prep: range(prep),
    cook: range(cook),
    ...(temp ? { temp } : {}),
  };
}

export const CUISINES: Cuisine[] = [
  {
    id: 'italian',
    name: 'Italian',
    flavors: ['Lemon Garlic', 'Creamy Tuscan', 'Pesto', 'Roasted Tomato', 'Spicy Arrabbiata'],
    dishes: [
      dish(
        '{flavor} {main} Pasta',
        'chicken shrimp mushroom eggplant chickpea',
        'spaghetti 340; olive oil 2; garlic 3; parmesan 0.5; fresh basil 0.25; salt 1',
        'stovetop',
        '10-15',
        '15-25',
      ),
      dish(
        '{flavor} {main} Risotto',
        'mushroom shrimp chicken sweetpotato',
        'arborio rice 1.5; vegetable broth 5; onion 1; butter 2; parmesan 0.75; salt 1',
        'stovetop',
        '10-15',
        '30-40',
      ),
      dish(
        '{flavor} {main} Bake',
        'chicken eggplant cauliflower beef',
        'canned tomatoes 28; mozzarella 1.5; penne 340; dried oregano 1; garlic 2; olive oil 1',
        'oven',
        '15-20',
        '25-45',
        400,
      ),
    ],
  },
  {
    id: 'mexican',
    name: 'Mexican',
    flavors: ['Chipotle', 'Lime Cilantro', 'Smoky', 'Salsa Verde'],
    dishes: [
      dish(
        '{flavor} {main} Tacos',
        'chicken fish bean shrimp cauliflower pork',
        'corn tortillas 8; lime 1; cilantro 0.5; red onion 0.5; ground cumin 1; salt 0.5',
        'stovetop',
        '10-20',
        '10-20',
      ),
      dish(
        '{flavor} {main} Enchiladas',
        'chicken bean sweetpotato beef',
        'flour tortillas 8; canned tomatoes 15; cheddar 1.5; chili powder 2; onion 1; sour cream 0.5',
        'oven',
        '20-25',
        '20-30',
        375,
      ),
      dish(
        '{flavor} {main} Burrito Bowls',
        'chicken bean tofu beef',
        'jasmine rice 1.5; lime 2; avocado 1; cherry tomatoes 1; cilantro 0.25; chili powder 1',
        'stovetop',
        '10-15',
        '20-25',
      ),
    ],
  },
  {
    id: 'indian',
    name: 'Indian',
    flavors: ['Butter', 'Coconut', 'Spiced', 'Masala', 'Kerala'],
    dishes: [
      dish(
        '{flavor} {main} Curry',
        'chicken chickpea lentil cauliflower paneer shrimp',
        'coconut milk 1.5; onion 1; garlic 4; fresh ginger 1; garam masala 2; turmeric 1; canned tomatoes 14',
        'stovetop',
        '15-20',
        '25-40',
      ),
      dish(
        '{flavor} {main} Biryani',
        'chicken lamb cauliflower paneer',
        'basmati rice 2; onion 2; greek yogurt 0.5; garam masala 2; saffron 1; fresh ginger 1',
        'oven',
        '25-30',
        '40-55',
        350,
      ),
      dish(
        '{flavor} {main} Dal',
        'lentil sweetpotato chickpea',
        'red lentils 1; onion 1; ground cumin 1; turmeric 1; garlic 3; spinach 2',
        'stovetop',
        '10-15',
        '25-35',
      ),
    ],
  },
  {
    id: 'thai',
    name: 'Thai',
    flavors: ['Green Curry', 'Peanut', 'Thai Basil', 'Lemongrass', 'Red Curry'],
    dishes: [
      dish(
        '{flavor} {main} Noodles',
        'chicken shrimp tofu beef',
        'rice noodles 225; peanut butter 3; tamari 3; lime 1; green onions 3; bell pepper 1',
        'stovetop',
        '15-20',
        '10-15',
      ),
      dish(
        '{flavor} {main} Stir-Fry',
        'chicken tofu shrimp beef eggplant',
        'jasmine rice 1.5; curry paste 2; coconut milk 1; bell pepper 2; fresh basil 0.5; brown sugar 1',
        'stovetop',
        '15-20',
        '12-18',
      ),
      dish(
        '{flavor} {main} Soup',
        'chicken shrimp tofu mushroom',
        'coconut milk 2; vegetable broth 3; curry paste 2; lime 2; mushrooms 6; cilantro 0.25',
        'stovetop',
        '10-15',
        '20-30',
      ),
    ],
  },
  {
    id: 'japanese',
    name: 'Japanese',
    flavors: ['Teriyaki', 'Miso Glazed', 'Ginger Sesame', 'Yuzu'],
    dishes: [
      dish(
        '{flavor} {main} Rice Bowls',
        'salmon chicken tofu beef',
        'jasmine rice 1.5; soy sauce 3; honey 2; fresh ginger 1; sesame seeds 1; edamame 1',
        'stovetop',
        '10-15',
        '15-25',
      ),
      dish(
        '{flavor} {main} Ramen',
        'pork chicken mushroom tofu',
        'ramen noodles 300; miso paste 3; vegetable broth 6; green onions 4; eggs 2; sesame oil 1',
        'stovetop',
        '15-20',
        '25-40',
      ),
      dish(
        'Sheet-Pan {flavor} {main}',
        'salmon chicken tofu eggplant',
        'miso paste 2; maple syrup 2; rice vinegar 1; carrots 3; sesame oil 1; green onions 2',
        'oven',
        '10-15',
        '18-30',
        425,
      ),
    ],
  },
  {
    id: 'chinese',
    name: 'Chinese',
    flavors: ['Kung Pao', 'Garlic Black Bean', 'Sweet and Sour', 'Sichuan', 'Orange'],
    dishes: [
      dish(
        '{flavor} {main}',
        'chicken tofu shrimp pork cauliflower',
        'soy sauce 3; rice vinegar 2; garlic 3; fresh ginger 1; bell pepper 1; jasmine rice 1.5',
        'stovetop',
        '15-20',
        '10-15',
      ),
      dish(
        '{flavor} {main} Fried Rice',
        'chicken shrimp tofu pork',
        'jasmine rice 3; eggs 2; frozen peas 1; soy sauce 2; green onions 3; sesame oil 1',
        'stovetop',
        '10-15',
        '10-15',
      ),
      dish(
        '{flavor} {main} Lo Mein',
        'chicken beef mushroom tofu',
        'ramen noodles 340; soy sauce 3; sesame oil 1; carrots 2; bell pepper 1; garlic 2',
        'stovetop',
        '15-20',
        '10-15',
      ),
    ],
  },
  {
    id: 'french',
    name: 'French',
    flavors: ['Herbed', 'Provençal', 'Dijon', 'Rustic'],
    dishes: [
      dish(
        '{flavor} {main} Gratin',
        'cauliflower sweetpotato mushroom',
        'heavy cream 1.5; potatoes 2; garlic 2; thyme 1; butter 2; parmesan 1',
        'oven',
        '20-25',
        '45-60',
        375,
      ),
      dish(
        '{flavor} {main} Stew',
        'beef chicken lentil mushroom lamb',
        'carrots 3; onion 2; vegetable broth 4; thyme 2; all-purpose flour 0.25; dijon mustard 1',
        'stovetop',
        '20-25',
        '60-120',
      ),
      dish(
        '{flavor} {main} Quiche',
        'mushroom chicken sweetpotato',
        'eggs 4; heavy cream 1; all-purpose flour 1.5; butter 8; cheddar 1; spinach 1',
        'oven',
        '25-30',
        '35-45',
        350,
      ),
    ],
  },
  {
    id: 'greek',
    name: 'Greek',
    flavors: ['Lemon Oregano', 'Mediterranean', 'Garlic Herb', 'Feta'],
    dishes: [
      dish(
        '{flavor} {main} Souvlaki',
        'chicken pork lamb tofu',
        'lemon 2; dried oregano 2; olive oil 3; garlic 3; pita bread 4; greek yogurt 1',
        'grill',
        '20-30',
        '10-15',
      ),
      dish(
        '{flavor} {main} Salad',
        'chickpea chicken shrimp lentil',
        'cucumber 1; cherry tomatoes 2; red onion 0.5; kalamata olives 0.5; feta 0.5; olive oil 3',
        'no-cook',
        '15-20',
        '0-0',
      ),
      dish(
        '{flavor} {main} Moussaka',
        'lamb beef eggplant lentil',
        'eggplant 2; canned tomatoes 14; greek yogurt 1; eggs 2; onion 1; parmesan 0.5',
        'oven',
        '30-35',
        '45-60',
        375,
      ),
    ],
  },
  {
    id: 'american',
    name: 'American',
    flavors: ['Smoky BBQ', 'Honey Mustard', 'Cajun', 'Classic', 'Buffalo'],
    dishes: [
      dish(
        '{flavor} {main} Chili',
        'beef bean chicken sweetpotato lentil',
        'canned tomatoes 28; black beans 1.5; onion 1; chili powder 2; ground cumin 1; cheddar 0.5',
        'stovetop',
        '15-20',
        '35-60',
      ),
      dish(
        'Sheet-Pan {flavor} {main}',
        'chicken salmon cauliflower sweetpotato tofu',
        'potatoes 1.5; olive oil 3; smoked paprika 2; garlic 3; honey 2; dijon mustard 2',
        'oven',
        '10-15',
        '25-35',
        425,
      ),
      dish(
        '{flavor} {main} Casserole',
        'chicken beef bean cauliflower',
        'penne 340; cheddar 2; heavy cream 1; breadcrumbs 0.5; onion 1; frozen peas 1',
        'oven',
        '20-25',
        '30-40',
        350,
      ),
    ],
  },
  {
    id: 'middle-eastern',
    name: 'Middle Eastern',
    flavors: ["Za'atar", 'Harissa', 'Shawarma-Spiced', 'Sumac Lemon'],
    dishes: [
      dish(
        '{flavor} {main} Bowls',
        'chicken chickpea lamb cauliflower',
        'basmati rice 1.5; tahini 3; lemon 1; cucumber 1; cherry tomatoes 1; ground cumin 2',
        'stovetop',
        '15-20',
        '20-30',
      ),
      dish(
        '{flavor} {main} Flatbreads',
        'lamb chicken eggplant mushroom',
        'pita bread 4; greek yogurt 0.5; red onion 1; olive oil 2; pine nuts 2; feta 0.5',
        'oven',
        '15-20',
        '12-18',
        450,
      ),
      dish(
        '{flavor} {main} Stew',
        'chickpea lamb chicken lentil sweetpotato',
        'canned tomatoes 14; onion 1; ground cumin 2; smoked paprika 1; vegetable broth 3; lemon 1',
        'stovetop',
        '15-20',
        '35-50',
      ),
    ],
  },
  {
    id: 'korean',
    name: 'Korean',
    flavors: ['Gochujang', 'Bulgogi-Style', 'Spicy Kimchi', 'Sesame Garlic'],
    dishes: [
      dish(
        '{flavor} {main} Bibimbap',
        'beef tofu chicken mushroom',
        'jasmine rice 2; gochujang 2; spinach 2; carrots 2; eggs 4; sesame oil 2',
        'stovetop',
        '20-25',
        '20-25',
      ),
      dish(
        '{flavor} {main} Stew',
        'pork tofu mushroom chicken',
        'kimchi 2; gochujang 1; vegetable broth 4; green onions 3; garlic 3; onion 1',
        'stovetop',
        '10-15',
        '25-35',
      ),
      dish(
        '{flavor} {main} Fried Rice',
        'pork tofu shrimp beef',
        'jasmine rice 3; kimchi 1; eggs 2; sesame oil 1; green onions 2; soy sauce 1',
        'stovetop',
        '10-15',
        '10-15',
      ),
    ],
  },
  {
    id: 'spanish',
    name: 'Spanish',
    flavors: ['Saffron', 'Smoky Paprika', 'Garlic', 'Valencian'],
    dishes: [
      dish(
        '{flavor} {main} Paella',
        'shrimp chicken mushroom cauliflower',
        'arborio rice 1.5; saffron 1; vegetable broth 4; bell pepper 1; frozen peas 0.5; smoked paprika 1',
        'stovetop',
        '20-25',
        '35-45',
      ),
      dish(
        '{flavor} {main} Skillet',
        'chicken chickpea shrimp',
        'potatoes 1; chorizo 6; onion 1; smoked paprika 2; garlic 3; olive oil 2',
        'stovetop',
        '10-15',
        '20-30',
      ),
      dish(
        '{flavor} {main} Tortilla',
        'mushroom sweetpotato cauliflower',
        'eggs 6; potatoes 1; onion 1; olive oil 4; salt 1; spinach 1',
        'stovetop',
        '15-20',
        '20-25',
      ),
    ],
  },
];
