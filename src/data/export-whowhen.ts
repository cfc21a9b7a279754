import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type CriticalState,
  elementAt,
  formatAction,
  InputError,
  type Step,
  type Trajectory,
  type VerificationLabel,
} from '../core/index.ts';
import { RunStore, writeFileAtomic } from '../store/index.ts';
import { NoteScrubber } from './note-scrub.ts';
import { readCriticalStates } from './read-critical.ts';

/** Formats `rmsweb export critical` writes. */
export const CRITICAL_FORMATS = ['whowhen'] as const;
export type CriticalFormat = (typeof CRITICAL_FORMATS)[number];

export function parseCriticalFormat(s: string): CriticalFormat {
  if ((CRITICAL_FORMATS as readonly string[]).includes(s)) return s as CriticalFormat;
  throw new InputError(
    `unknown critical-state export format "${s}"; use one of ${CRITICAL_FORMATS.join(', ')}`,
    {
      field: 'format',
    },
  );
}

/** The agent named as responsible: a web agent is one agent, so "who" is always this one. */
export const WHOWHEN_AGENT = 'WebSurfer';

/** One turn of a Who&When `history`: who spoke and what, in order. */
export interface WhoWhenTurn {
  role: 'user' | 'assistant';
  name: string;
  content: string;
}

/**
 * One failure in the shape of the Who&When failure-attribution dataset (Zhang et al., 2025): the
 * failed run's history, the responsible agent, the decisive step (an index into `history`) and the
 * reason. `rmsweb` adds what a causal check can say beside it (the verification label, the action
 * that would have succeeded) under its own key, so readers of the standard fields are unaffected.
 */
export interface WhoWhenRecord {
  question_ID: string;
  question: string;
  level: string;
  ground_truth: string;
  history: WhoWhenTurn[];
  mistake_agent: string;
  /** Index into `history` of the decisive step, as a string (Who&When's own type). */
  mistake_step: string;
  mistake_reason: string;
  rmsweb: {
    criticalStateId: string;
    site: string;
    failureTrajectoryId: string;
    failureStepIndex: number;
    successTrajectoryId: string;
    taxonomyLabel: string;
    responsibleAction: string;
    correctAction: string;
    verification: VerificationLabel | 'unverified';
    verificationReason: string;
  };
}

function describeAction(step: Pick<Step, 'action' | 'observation'>): string {
  const a = step.action;
  const text = formatAction(a);
  if (!('index' in a) || typeof a.index !== 'number') return text;
  const e = elementAt(step.observation, a.index);
  if (!e) return text;
  const label = (e.name || e.text || e.attributes['aria-label'] || '').trim().slice(0, 80);
  return `${text} on ${e.role || e.tag}${label ? ` "${label}"` : ''}`;
}

function turnOf(step: Step, scrub: NoteScrubber): WhoWhenTurn {
  const o = step.output;
  const evaluation = scrub.scrub(o.evaluation_previous_goal);
  const next = scrub.scrub(o.next_goal);
  const lines = [
    `Page: ${step.observation.url}`,
    ...(evaluation ? [`Evaluation: ${evaluation}`] : []),
    ...(next ? [`Next goal: ${next}`] : []),
    `Action: ${describeAction(step)}`,
    ...(step.result.error ? [`Error: ${step.result.error}`] : []),
  ];
  return { role: 'assistant', name: WHOWHEN_AGENT, content: lines.join('\n') };
}

/** The reason a state is the decisive one, in words a reader of the dataset can check. */
function reasonOf(cs: CriticalState): string {
  const parts = [
    `At step ${cs.failure.stepIndex} the agent chose ${describeAction(cs.failure)} where a successful run of the same task chose ${describeAction(cs.success)} (${cs.label}${cs.labelReason ? `: ${cs.labelReason}` : ''}).`,
  ];
  const v = cs.verification;
  if (v?.label === 'confirmed')
    parts.push(
      'Checked causally: replayed to this state, the correct action led to success and this action to failure, with the same policy finishing both.',
    );
  else if (v) parts.push(`Causal check: ${v.label} (${v.reason}).`);
  return parts.join(' ');
}

/** The Who&When record of one critical state, from its failure run. Notes are never exported. */
export function toWhoWhen(cs: CriticalState, failure: Trajectory): WhoWhenRecord {
  const step = failure.steps.findIndex((s) => s.index === cs.failure.stepIndex);
  if (step < 0)
    throw new InputError(
      `critical state ${cs.id}: step ${cs.failure.stepIndex} is not in run ${failure.id}`,
      {
        field: 'failure.stepIndex',
      },
    );
  // Reflection notes never leave rmsweb: the agent's own words are scrubbed of any they quote.
  const scrub = new NoteScrubber(failure.notes);
  // history[0] is the task as the user gave it; the agent's steps follow, so step k is history[k + 1].
  const history: WhoWhenTurn[] = [
    { role: 'user', name: 'human', content: cs.task.objective },
    ...failure.steps.map((s) => turnOf(s, scrub)),
  ];
  return {
    question_ID: `${cs.task.id}#${failure.id}`,
    question: cs.task.objective,
    level: cs.task.level ?? '',
    ground_truth: failure.verdict?.reason ?? '',
    history,
    mistake_agent: WHOWHEN_AGENT,
    mistake_step: String(step + 1),
    mistake_reason: reasonOf(cs),
    rmsweb: {
      criticalStateId: cs.id,
      site: cs.task.site,
      failureTrajectoryId: failure.id,
      failureStepIndex: cs.failure.stepIndex,
      successTrajectoryId: cs.success.trajectoryId,
      taxonomyLabel: cs.label,
      responsibleAction: formatAction(cs.failure.action),
      correctAction: formatAction(cs.success.action),
      verification: cs.verification?.label ?? 'unverified',
      verificationReason: cs.verification?.reason ?? '',
    },
  };
}

export interface ExportCriticalOptions {
  runs: string[];
  critical: string;
  format: CriticalFormat;
  out: string;
  /** Only states the causal check confirmed (`mine --verify`). */
  confirmedOnly?: boolean;
}

export interface ExportCriticalSummary {
  format: CriticalFormat;
  out: string;
  states: number;
  rows: number;
  skippedUnconfirmed: number;
  /** States whose failure run is in none of the runs given. */
  missingRuns: number;
}

/**
 * Writes critical states as failure-attribution records (JSONL, one failure a line). Failure runs
 * are read from the run stores; a state whose run is missing is counted, not fatal.
 */
export function exportCritical(o: ExportCriticalOptions): ExportCriticalSummary {
  const states = readCriticalStates(o.critical).map((r) => r.state);
  const stores = o.runs.map((dir) => RunStore.open(dir, { create: false, readonly: true }));
  const rows: string[] = [];
  let skippedUnconfirmed = 0;
  let missingRuns = 0;
  try {
    for (const cs of states) {
      if (o.confirmedOnly && cs.verification?.label !== 'confirmed') {
        skippedUnconfirmed++;
        continue;
      }
      let failure: Trajectory | null = null;
      for (const s of stores) {
        failure = s.getTrajectory(cs.failure.trajectoryId);
        if (failure) break;
      }
      if (!failure) {
        missingRuns++;
        continue;
      }
      rows.push(JSON.stringify(toWhoWhen(cs, failure)));
    }
  } finally {
    for (const s of stores) s.close();
  }
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileAtomic(o.out, rows.length ? `${rows.join('\n')}\n` : '');
  return {
    format: o.format,
    out: o.out,
    states: states.length,
    rows: rows.length,
    skippedUnconfirmed,
    missingRuns,
  };
}
