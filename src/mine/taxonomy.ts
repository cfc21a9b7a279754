import type { FailureLabel } from '../core/index.ts';
import type { Divergence } from './divergence.ts';

/**
 * The failure taxonomy: what each label means (for people and for the LLM tagger's prompt) and the
 * rule the offline tagger applies. Rules run in the order of this table; the first that fires wins.
 */
export const TAXONOMY: Readonly<Record<FailureLabel, { meaning: string; rule: string }>> = Object.freeze({
  'premature-done': {
    meaning: 'The failing agent declared the task finished while work remained.',
    rule: 'The failure side chose done and the success side did not.',
  },
  'blocked-by-overlay': {
    meaning: 'A modal, banner or overlay blocked the page and the failing agent did not deal with it.',
    rule:
      "The failure side's action error (or lastActionError before or after it) is of kind `covered` (another " +
      'element covered the click point); or a dialog (role dialog/alertdialog or aria-modal) is ' +
      'on the failure page and the success side clicks a dismiss control (close, accept, got it, no thanks, x).',
  },
  'input-error': {
    meaning: 'Right field, wrong value: a typo, the wrong option, or a wrong final answer.',
    rule:
      'Both sides input or select into equivalent elements with different normalized text, or both ' +
      'answer done with the same success flag and different normalized answers on the same page.',
  },
  'lookalike-element': {
    meaning: 'The failing agent acted on an element that looks like the right one but is not.',
    rule:
      'Both actions are of the same type and target an element, the elements are not equivalent ' +
      '(nodeKey, href, click target), and their names share most tokens (token F1 >= 0.5).',
  },
  'scroll-stall': {
    meaning: 'The failing agent kept scrolling instead of acting on what was on the page.',
    rule: 'The failure side scrolls at least twice in a row from this state while the success side clicks, types, selects or sends keys.',
  },
  'repetition-loop': {
    meaning: 'The failing agent repeated the same action on the same page without progress.',
    rule:
      "The failure side's action recurs (equivalent action, same page fingerprint: URL path + element set) " +
      "elsewhere in the failure run, or the failure run ended in a loop repeating the neighbouring step's action.",
  },
  'missed-constraint': {
    meaning: 'The failing agent skipped a sort, filter or option the task required.',
    rule:
      'The success side selects a dropdown option or acts on a checkbox/radio/option/combobox or a control ' +
      'named like sort / filter / price / rating / size / color / category / brand / apply, and the ' +
      'failure side never acts on an equivalent element from this state on; or both sides answer done ' +
      'differently from the same page path with different non-empty query parameters (sort, filters).',
  },
  'wrong-navigation': {
    meaning: 'The failing agent went to the wrong page, or left the right one.',
    rule:
      'Either side navigates / goes back / switches or closes a tab, or the two actions lead to different ' +
      'URL paths (the next states, or the clicked links, differ in path).',
  },
  other: {
    meaning: 'A divergence none of the labels above explains.',
    rule: 'No rule above fired.',
  },
});

/** The labels in rule order. */
export const LABEL_ORDER = Object.keys(TAXONOMY) as FailureLabel[];

/** A label with the reason it was given. */
export interface TagResult {
  label: FailureLabel;
  reason: string;
  /** Overrides the tagger's id as labelSource, e.g. when an LLM tagger fell back to the rules. */
  source?: string;
}

/**
 * Tags a candidate divergence with a failure label. `id` is recorded as the critical state's
 * labelSource ('rules', 'llm:<model>').
 */
export interface Tagger {
  readonly id: string;
  tag(d: Divergence): TagResult | Promise<TagResult>;
}
