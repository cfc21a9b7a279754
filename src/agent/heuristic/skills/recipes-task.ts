import type { TaskGoal } from '../goal.ts';
import { subjectOf } from './domain-kit.ts';

/** What a cooking task asks, read from its text the way a person reads it. */
export interface RecipeTask {
  /** The recipe the task names, when it names one. */
  name: string | null;
  /** The fact asked for, or `name` when the answer is the recipe found by filters. */
  ask: 'time' | 'calories' | 'oven' | 'which' | 'amount' | 'name' | null;
  /** Servings to scale the recipe to, and whether the task says "servings" or "people". */
  servings: number | null;
  servingsWord: 'servings' | 'people' | null;
  /** The ingredient whose amount is asked for or added at a scaled amount. */
  ingredient: string | null;
  /** Candidate ingredients of a "which of these" question. */
  options: string[];
  /** Ingredients to put on the shopping list. */
  items: string[];
  /** Collection to save into, and whether it is a new one. */
  collection: string | null;
  newCollection: boolean;
  save: boolean;
  list: boolean;
}

const splitList = (s: string): string[] =>
  s
    .split(/\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+/i)
    .map((x) => x.replace(/^(?:the|some|a|an)\s+/i, '').trim())
    .filter(Boolean);

/** Parses a cooking task. Pure. */
export function readRecipeTask(goal: TaskGoal): RecipeTask {
  const t = goal.text;
  // "for 4 servings" names the scaler's unit; "for 10 people" says the same thing less literally.
  const servings =
    t.match(/\b(\d{1,2})\s+(servings|portions)\b/i) ??
    t.match(/\b(?:for|to|serves?|serving)\s+(\d{1,2})\s+(people|persons|guests)\b/i);
  const amount =
    t.match(
      /\bhow much\s+(.+?)\s+(?:do i need|should i use|should i buy|is needed|goes into|does it take|do i use)\b/i,
    ) ?? t.match(/\badd the\s+(.+?)\s+(?:for\s+.+?\s+)?to my shopping list\b/i);
  const which = t.match(/\b(?:call for|use|contain|need)s?\s*:\s*(.+?)\??$/i);
  const except = t.match(/\bexcept\s+(.+?)(?:\.\s|\.$|;|$)/i);
  const list = /\bshopping list\b/i.test(t);
  const quotedColl =
    t.match(/collection\s+(?:called|named)\s+["\u201c]([^"\u201d]+)["\u201d]/i) ??
    t.match(/["\u201c]([^"\u201d]+)["\u201d]\s+collection/i);
  const plainColl = t.match(/\bto my\s+([A-Za-z][\w' -]{1,40}?)\s+collection\b/i);
  const collection = quotedColl?.[1] ?? plainColl?.[1]?.replace(/^["\u201c]|["\u201d]$/g, '') ?? null;
  const save = !!collection || /\bsave\b/i.test(t);
  const timeLimit =
    /\bminutes?\s+or\s+(?:less|under|fewer)\b|\b(?:at most|under|within|no more than)\s+\d{1,3}\s+min/i.test(
      t,
    );
  let ask: RecipeTask['ask'] = null;
  if (/\bcalorie/i.test(t)) ask = 'calories';
  else if (/\b(oven|preheat|temperature)\b/i.test(t)) ask = 'oven';
  else if (which) ask = 'which';
  else if (/\bhow much\b/i.test(t) && !list) ask = 'amount';
  else if (/\bhow (?:many minutes|long)\b|\btotal time\b|\bfrom start to finish\b/i.test(t) && !timeLimit)
    ask = 'time';
  else if (goal.question && !list && !save) ask = 'name';
  return {
    name: subjectOf(goal),
    ask,
    servings: servings ? Number(servings[1]) : null,
    servingsWord: servings ? (/servings|portions/i.test(servings[2]) ? 'servings' : 'people') : null,
    ingredient: amount ? amount[1].replace(/^(?:the|some)\s+/i, '').trim() : null,
    options: which ? splitList(which[1]) : [],
    items: list && except ? splitList(except[1]) : [],
    collection,
    newCollection: /\bnew collection\b/i.test(t),
    save,
    list,
  };
}
