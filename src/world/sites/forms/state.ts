import { hashString } from '../../../core/rng.ts';

/** An application in progress: answers so far and how far the wizard got. */
export interface ApplicationDraft {
  answers: Record<string, string>;
  /** Highest step (1-based) completed. */
  completed: number;
  /** Saved with "Save and finish later". */
  saved: boolean;
}

export interface Submission {
  service: string;
  confirmation: string;
  answers: Record<string, string>;
  /** Order of submission in the session (1-based). */
  seq: number;
}

/** Per-session state of the government services site. */
export interface FormsState {
  drafts: Record<string, ApplicationDraft>;
  submitted: Submission[];
  /** Confirmation numbers looked up on the status page. */
  lookups: string[];
}

export function initialFormsState(): FormsState {
  return { drafts: {}, submitted: [], lookups: [] };
}

/** A confirmation number, unique per session and submission: `PPR-2027-483920`. */
export function confirmationNumber(prefix: string, sessionId: string, seq: number): string {
  return `${prefix}-2027-${String(100000 + (hashString(`${sessionId}:${prefix}:${seq}`) % 900000))}`;
}
