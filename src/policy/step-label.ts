import { type Action, isGiveUp } from '../core/action.ts';
import { POLICY_ACTION_TYPES } from './action-space.ts';
import { relabelAnswer, relabelInput } from './answer-span.ts';
import { actionTargets, type FeaturizerConfig, type StateStructure, stateStructure } from './featurizer.ts';
import type { PolicyState } from './types.ts';

/** Why a recorded step did not become a training label. */
export type SkipReason = 'unsupported-type' | 'gave-up' | 'type-unavailable' | 'element-not-kept';

/** A recorded step as a training label, or why it cannot be one. */
export type StepLabel =
  | {
      ok: true;
      /** The label: the recorded action, or its composed `done` answer replaced by the span it contains. */
      action: Action;
      /** The `done` answer was relabelled to its candidate span (answer-span.ts). */
      relabeled: boolean;
      /** Only type (and element) are targets: the argument is not among the candidates. */
      partial: boolean;
    }
  | { ok: false; reason: SkipReason };

/**
 * The one way a recorded step's action becomes the label of its state, for SFT and RL alike: a
 * composed `done` answer the policy cannot spell ("775 calories per serving") becomes the candidate
 * span it contains ("775"); an action whose type the policy cannot emit, a give-up, or a click on an
 * element the featurizer did not keep is no label at all. Pass `st` when the state is already
 * structured.
 */
export function labelStep(
  state: PolicyState,
  action: Action,
  featurizer: FeaturizerConfig,
  st: StateStructure = stateStructure(state, featurizer),
): StepLabel {
  let label = action;
  let relabeled = false;
  let tg = actionTargets(st, label);
  if (tg.type >= 0 && !tg.representable) {
    const answer = relabelAnswer(st, label, state.task.objective) ?? relabelInput(st, label);
    if (answer) {
      label = answer;
      tg = actionTargets(st, answer);
      relabeled = true;
    }
  }
  if (tg.type < 0) {
    if (!(POLICY_ACTION_TYPES as readonly string[]).includes(label.type))
      return { ok: false, reason: 'unsupported-type' };
    if (isGiveUp(label)) return { ok: false, reason: 'gave-up' };
    return { ok: false, reason: 'type-unavailable' };
  }
  if (tg.element < 0 && ['click', 'input', 'select_dropdown'].includes(label.type))
    return { ok: false, reason: 'element-not-kept' };
  return { ok: true, action: label, relabeled, partial: !tg.representable };
}
