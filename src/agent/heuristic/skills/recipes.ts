import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import { phraseMatch, type TaskGoal } from '../goal.ts';
import { bestByText, type Choice, SORT_OPTION } from '../kit.ts';
import { isChecked, isClickable, isSelect, isToggle, labelOf, optionsOf } from '../page.ts';
import {
  applyButton,
  asksFor,
  buttonMatching,
  type ControlWant,
  carefulReading,
  click,
  exactMode,
  finish,
  formDirty,
  headingOf,
  labeledValue,
  lastClicked,
  namesThing,
  resultLinks,
  searchStep,
  selectLabelled,
  setControls,
  sortFor,
  textMatching,
} from './domain-kit.ts';
import type { Skill, SkillContext } from './index.ts';
import { type RecipeTask, readRecipeTask } from './recipes-task.ts';

/**
 * How a person uses a recipe site: find the recipe by name (search, then the result whose name
 * matches), read facts off its page (total time, calories, the oven temperature in the steps),
 * scale the servings with the +/- buttons before reading or adding amounts, tick ingredients
 * and add them to the shopping list, save the recipe to a collection; or, for "the best recipe
 * that ...", set the filters the task states, sort, and take the first result.
 */
export const recipesSkill: Skill = {
  id: 'recipes',
  applies: (goal, obs) => isCookingTask(goal, obs),
  decide: decideRecipe,
};

const COOKING =
  /\b(recipes?|servings?|ingredients?|calories|calorie count|oven|preheat|cooking|shopping list|bake[ds]?)\b/i;

function isCookingTask(goal: TaskGoal, obs: Observation): boolean {
  // A recipe site: its search box or navigation is about recipes, or this is a recipe page.
  const site =
    onRecipePage(obs) ||
    obs.elements.some(
      (e) => /^recipes$/i.test(labelOf(e).trim()) || /search recipes/i.test(e.attributes.placeholder ?? ''),
    );
  if (!site) return false;
  return COOKING.test(goal.text) || /\bcollection\b/i.test(goal.text);
}

const SAVED_RE = /^(saved to\b|added \d+ items? to your shopping list)/i;
const SUBMIT_RE = /^(save recipe|save|add selected to shopping list|add to shopping list|add to list)$/i;

function decideRecipe(ctx: SkillContext): Choice | null {
  const { goal, obs, history } = ctx;
  const task = readRecipeTask(goal);
  const notice = textMatching(obs, SAVED_RE);
  if (notice && lastClicked(history, SUBMIT_RE)) return finish(notice.trim(), 'Report that it is saved');
  if (task.name) {
    if (onRecipePage(obs) && namesThing(task.name, headingOf(obs), ctx.rules)) return onRecipe(ctx, task);
    return findRecipe(ctx, task.name);
  }
  if (task.ask === 'name' || task.save) {
    if (onRecipePage(obs) && task.save) return onRecipe(ctx, task);
    return bestRecipe(ctx, task);
  }
  return null;
}

/** A recipe page: a servings count and a list of ingredients to tick. */
function onRecipePage(obs: Observation): boolean {
  return (
    obs.texts.some((t) => /^\d+ servings?$/i.test(t.text.trim())) ||
    /\bIngredients\b/.test(obs.elements.map((e) => labelOf(e)).join(' '))
  );
}

/** Opens the named recipe: its link when one is listed, else a search by name. */
function findRecipe(ctx: SkillContext, name: string): Choice | null {
  const links = ctx.usable.filter((e) => (e.tag === 'a' || e.role === 'link') && !ctx.acted(e));
  const best = bestByText(
    resultLinks(ctx.obs, links).length ? resultLinks(ctx.obs, links) : links,
    name,
    ctx.rules,
  );
  if (best) return click(best, `Open "${labelOf(best)}"`);
  return searchStep(ctx, name);
}

/** What to do on the page of the recipe the task names. */
function onRecipe(ctx: SkillContext, task: RecipeTask): Choice | null {
  const { obs } = ctx;
  const careful = carefulReading(ctx.rules);
  if (task.ask === 'time') {
    // The question's own words pick the label: "in total" finds Total; "from start to finish"
    // does not, and the teacher takes the first duration printed (Prep) until it reads closely.
    const v =
      /\btotal\b/i.test(ctx.goal.text) || careful
        ? labeledValue(obs, /^total(?: time)?$/i)
        : firstDuration(obs);
    if (v)
      return finish(
        /min/i.test(v) ? v.replace(/\bmin\b/i, 'minutes') : `${v} minutes`,
        'Answer with the total time',
      );
  }
  if (task.ask === 'calories') {
    const v = labeledValue(obs, /^calories$/i);
    if (v)
      return finish(`${v.replace(/\s*per serving/i, '')} calories per serving`, 'Answer with the calories');
  }
  if (task.ask === 'oven') return ovenTemperature(ctx, careful);
  if (task.ask === 'which') {
    // Token recall, first option in the task's order: "lime" passes for a recipe's "lime juice"
    // until a note (or a rejected answer) makes the teacher compare whole ingredient names.
    const have = ingredientNames(obs);
    const exact = exactMode(ctx.rules);
    const rejected = (o: string) =>
      ctx.rules.avoid.some((r) => r.kind === 'done' && normalizeText(r.value ?? '') === normalizeText(o));
    const hit = task.options.find(
      (o) =>
        !rejected(o) &&
        have.some((h) => (exact ? normalizeText(h) === normalizeText(o) : phraseMatch(o, h).recall >= 0.99)),
    );
    return hit ? finish(hit, 'Answer with the ingredient the recipe lists') : null;
  }
  // The scaler counts servings; "for 10 people" is taken for a serving count only on a close reading.
  if (task.servings !== null && (task.servingsWord === 'servings' || careful)) {
    const scale = scaleTo(ctx, task.servings);
    if (scale) return scale;
  }
  if (task.ask === 'amount' && task.ingredient) {
    const line = ingredientLine(obs, task.ingredient);
    const shown = textMatching(obs, /^\d+ servings?$/i);
    if (line)
      return finish(
        shown && task.servings && Number.parseInt(shown, 10) === task.servings
          ? `${line} (for ${task.servings} servings)`
          : line,
        'Answer with the amount',
      );
    return null;
  }
  if (task.list) return addToList(ctx, task);
  if (task.save && task.collection) return saveToCollection(ctx, task.collection, task.newCollection);
  return null;
}

/**
 * The oven temperature is written in the steps. The teacher opens the Steps tab when the task
 * speaks of a step ("preheat") or names the tab; otherwise only once a note makes it look closer.
 */
function ovenTemperature(ctx: SkillContext, careful: boolean): Choice | null {
  const line = textMatching(ctx.obs, /\d{3}\s*°\s*[FC]\b|\d{3} degrees/i);
  if (line) {
    const m = line.match(/(\d{3})\s*°\s*([FC])\b|(\d{3}) degrees/i)!;
    return finish(
      m[1] ? `${m[1]}°${m[2].toUpperCase()}` : `${m[3]} degrees`,
      'Answer with the oven temperature',
    );
  }
  const tab = ctx.usable.find(
    (e) => e.role === 'tab' && /^(steps|directions|instructions|method)$/i.test(labelOf(e).trim()),
  );
  const look = careful || /\b(preheat|steps?|directions|instructions)\b/i.test(ctx.goal.text);
  if (look && tab && tab.attributes['aria-selected'] !== 'true' && !ctx.acted(tab))
    return click(tab, 'Open the steps to find the oven temperature');
  return null;
}

/** The first duration printed on the page ("20 min"). */
function firstDuration(obs: Observation): string | null {
  return obs.texts.map((t) => t.text.trim()).find((t) => /^\d+\s*(min|minutes|hr|hours?)\b/i.test(t)) ?? null;
}

/** Ingredient names of the page: the values of the ingredient checkboxes, else their labels. */
function ingredientNames(obs: Observation): string[] {
  const boxes = obs.elements.filter((e) => isToggle(e) && /^item|ingredient/i.test(e.attributes.name ?? ''));
  if (boxes.length) return boxes.map((e) => e.attributes.value ?? labelOf(e));
  return obs.texts.filter((t) => t.tag === 'li').map((t) => t.text);
}

/** The printed line of an ingredient ("2 1/2 tbsp fresh ginger"). */
function ingredientLine(obs: Observation, ingredient: string): string | null {
  const want = normalizeText(ingredient);
  const lines = [
    ...obs.texts.filter((t) => t.tag === 'li').map((t) => t.text),
    ...obs.elements.filter(isToggle).map((e) => labelOf(e)),
  ];
  return lines.find((l) => /\d/.test(l) && ` ${normalizeText(l)} `.includes(` ${want} `)) ?? null;
}

/** Clicks + or - until the servings count reads `n`. */
function scaleTo(ctx: SkillContext, n: number): Choice | null {
  const shown = textMatching(ctx.obs, /^\d+ servings?$/i);
  if (!shown) return null;
  const now = Number(shown.match(/\d+/)![0]);
  if (now === n) return null;
  const re = now < n ? /increase|^\+$|more servings/i : /decrease|^[−-]$|fewer servings/i;
  const btn = ctx.usable.find(
    (e) => isClickable(e) && (re.test(e.attributes['aria-label'] ?? '') || re.test(labelOf(e).trim())),
  );
  return btn ? click(btn, `Change the servings from ${now} to ${n}`) : null;
}

/** Ticks the task's ingredients (and only those), then adds them to the shopping list. */
function addToList(ctx: SkillContext, task: RecipeTask): Choice | null {
  const wanted = task.items.length ? task.items : task.ingredient ? [task.ingredient] : [];
  if (!wanted.length) return null;
  const boxes = ctx.usable.filter(isToggle);
  const matches = (e: Element, w: string) => {
    const v = normalizeText(e.attributes.value ?? '');
    const n = normalizeText(w);
    return v === n || ` ${normalizeText(labelOf(e))} `.endsWith(` ${n} `);
  };
  for (const w of wanted) {
    const box = boxes.find((e) => matches(e, w));
    if (box && !isChecked(box)) return click(box, `Tick ${w}`);
  }
  for (const box of boxes) {
    if (
      isChecked(box) &&
      !wanted.some((w) => matches(box, w)) &&
      /^item|ingredient/i.test(box.attributes.name ?? '')
    )
      return click(box, `Untick ${labelOf(box)}`);
  }
  const add = buttonMatching(ctx.usable, /^add( selected)? to (?:my )?(?:shopping )?list$/i);
  return add && !ctx.acted(add) ? click(add, 'Add the ticked ingredients to the shopping list') : null;
}

/** Chooses the collection (or a new one by name) in the save box and saves. */
function saveToCollection(ctx: SkillContext, collection: string, isNew: boolean): Choice | null {
  const select = selectLabelled(ctx.usable, /collection/i);
  if (!select) return null;
  const opts = optionsOf(select);
  const existing = opts.find((o) => normalizeText(o) === normalizeText(collection));
  const fresh = opts.find((o) => /^new collection/i.test(o));
  const wants: ControlWant[] = [];
  if (existing && !isNew) wants.push({ el: select, kind: 'select', option: existing });
  else if (fresh) {
    wants.push({ el: select, kind: 'select', option: fresh });
    const box = ctx.usable.find(
      (e) =>
        !isSelect(e) &&
        /new collection|collection name/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`) &&
        e.tag !== 'button',
    );
    if (box) wants.push({ el: box, kind: 'type', value: collection });
  } else if (existing) wants.push({ el: select, kind: 'select', option: existing });
  const step = setControls(ctx, wants);
  if (step) return step;
  const save = buttonMatching(ctx.usable, /^save( recipe)?$/i);
  return save ? click(save, `Save the recipe to "${collection}"`) : null;
}

/**
 * "The best recipe that ...": from a listing, set the cuisine, diet, time, rating and sort the
 * task states, apply, then answer with (or open) the first result.
 */
function bestRecipe(ctx: SkillContext, task: RecipeTask): Choice | null {
  const { usable, goal, obs } = ctx;
  const cuisine = selectLabelled(usable, /^cuisine/i);
  const sorter = selectLabelled(usable, /^sort/i);
  if (!cuisine && !sorter) {
    // Not on a listing yet: a cuisine tile the task names, else the list of all recipes.
    const tiles = usable.filter((e) => e.tag === 'a' && labelOf(e).trim().split(/\s+/).length <= 2);
    const tile = tiles.find(
      (e) =>
        new RegExp(`\\b${escapeRe(labelOf(e).trim())}\\b`, 'i').test(goal.text) &&
        !/recipes?/i.test(labelOf(e)),
    );
    if (tile) return click(tile, `Browse ${labelOf(tile)} recipes`);
    const all = buttonMatching(usable, /^(browse all recipes|all recipes|recipes)$/i);
    return all ? click(all, 'Open the recipe listing') : null;
  }
  // Filters whose label (or option) the task mentions; see asksFor for how closely it reads.
  const wants: ControlWant[] = [];
  for (const sel of [cuisine, selectLabelled(usable, /time/i), selectLabelled(usable, /^rating/i)]) {
    const o = sel && optionsOf(sel).find((x) => !/^(all|any)\b/i.test(x) && asksFor(goal, x, ctx.rules));
    if (sel && o) wants.push({ el: sel, kind: 'select', option: o });
  }
  for (const e of usable) {
    if (isToggle(e) && /diet/i.test(e.attributes.name ?? '') && asksFor(goal, labelOf(e), ctx.rules))
      wants.push({ el: e, kind: 'tick' });
  }
  const sort = sortFor(goal, ctx.rules);
  if (sorter && sort) {
    const o = optionsOf(sorter).find((x) => SORT_OPTION[sort].test(x));
    if (o) wants.push({ el: sorter, kind: 'select', option: o });
  }
  const step = setControls(ctx, wants);
  if (step) return step;
  const apply = applyButton(usable);
  if (apply && formDirty(ctx.history, obs.url)) return click(apply, 'Apply the filters');
  const first = resultLinks(obs, usable)[0];
  if (!first) return null;
  if (task.ask === 'name' && !task.save) return finish(labelOf(first).trim(), 'Answer with the first result');
  return click(first, `Open "${labelOf(first)}"`);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
