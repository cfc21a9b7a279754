import type { Action } from '../../../core/action.ts';
import type { Element, Observation } from '../../../core/observation.ts';
import type { HistoryEntry } from '../../agent.ts';
import type { TaskGoal } from '../goal.ts';
import type { Choice, Rules } from '../kit.ts';
import { formsSkill } from './forms.ts';
import { homesSkill } from './homes.ts';
import { mailSkill } from './mail.ts';
import { recipesSkill } from './recipes.ts';
import { shoppingSkill } from './shopping.ts';
import { travelSkill } from './travel.ts';

/** What a skill sees: the parsed task, the page, the history and the note rules. */
export interface SkillContext {
  goal: TaskGoal;
  obs: Observation;
  history: HistoryEntry[];
  rules: Rules;
  /** Elements that are enabled and not excluded by an avoid rule. */
  usable: Element[];
  /** Whether an element (by node key) was already acted on, successfully, on this page. */
  acted: (e: Element, type?: Action['type']) => boolean;
  /** Path + query of the current URL. */
  here: string;
}

/**
 * A domain skill of the heuristic teacher: how a person goes about one kind of task (shopping,
 * booking a flight, answering from a recipe, sending an email, filing a form, finding a home).
 * It reads only the task text, the observation, its history and the notes. `decide` returns null
 * to hand over to the generic steps (forms, targets, flow buttons, search, scroll, give up).
 */
export interface Skill {
  id: string;
  applies(goal: TaskGoal, obs: Observation): boolean;
  decide(ctx: SkillContext): Choice | null;
}

/** Skills in priority order; the first that applies and returns a choice acts. */
export const SKILLS: Skill[] = [recipesSkill, shoppingSkill, travelSkill, mailSkill, formsSkill, homesSkill];
