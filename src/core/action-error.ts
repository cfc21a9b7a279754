import { z } from 'zod';

/**
 * What kind of failure an action ran into. The browser sets it where the failure is detected, so
 * the teacher, the miner's taxonomy, the reflector and the viewer branch on the kind, never on
 * the wording of the message (which is for people and language models).
 *
 * - `covered`: another element (an overlay, banner or modal) covers the target's click point.
 * - `detached`: the target left the page, or a new document replaced the observed one.
 * - `timeout`: the action (or a step of it) ran past its deadline.
 * - `not_found`: no such element, option or tab.
 * - `navigation`: a navigation failed, did not load in time, or the allowlist blocked it.
 * - `invalid`: the action itself was malformed (it failed its schema).
 * - `other`: anything else (a disabled or read-only control, a value the input rejected, ...).
 */
export const ACTION_ERROR_KINDS = [
  'covered',
  'detached',
  'timeout',
  'not_found',
  'navigation',
  'invalid',
  'other',
] as const;
export const ActionErrorKind = z.enum(ACTION_ERROR_KINDS);
export type ActionErrorKind = z.infer<typeof ActionErrorKind>;

/** A failed action: the message reported to the agent and its kind. */
export interface ActionError {
  message: string;
  kind: ActionErrorKind;
}

/** How people read each kind (the viewer's wording). */
export const ACTION_ERROR_LABELS: Readonly<Record<ActionErrorKind, string>> = {
  covered: 'covered by an overlay',
  detached: 'element detached',
  timeout: 'timed out',
  not_found: 'not found',
  navigation: 'navigation failed',
  invalid: 'invalid action',
  other: 'failed',
};
