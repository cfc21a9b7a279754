import type { Element } from '../../../core/observation.ts';
import type { SolverDriver } from '../../site.ts';
import { dismissOverlays, pickDate } from '../../solver-steps.ts';

/** One thing the reference solver does on a wizard step. */
export type FillOp =
  | { kind: 'input'; label: string; value: string }
  | { kind: 'select'; label: string; option: string }
  | { kind: 'radio'; name: string; value: string }
  | { kind: 'check'; name: string }
  /** Date picker field; `months` = times "Next month" is pressed (for the reference length). */
  | { kind: 'date'; label: string; iso: string; months: number };

/** Actions a fill op takes. */
export function opCost(op: FillOp): number {
  return op.kind === 'date' ? 2 + op.months : 1;
}

/** Reference length of a whole application: banner, start, the steps, declaration, submit, done. */
export function applyLength(steps: FillOp[][]): number {
  return 2 + steps.reduce((n, ops) => n + ops.reduce((k, op) => k + opCost(op), 0) + 1, 0) + 3;
}

const field = (name: string, value?: string) => (e: Element) =>
  e.tag === 'input' && e.attributes.name === name && (value === undefined || e.attributes.value === value);

async function runOp(d: SolverDriver, op: FillOp): Promise<void> {
  switch (op.kind) {
    case 'input':
      await d.input(
        (e) => (e.tag === 'input' || e.tag === 'textarea') && e.name.trim() === op.label,
        op.value,
      );
      return;
    case 'select':
      await d.select({ name: op.label, tag: 'select' }, op.option);
      return;
    case 'radio':
      await d.click(field(op.name, op.value));
      return;
    case 'check':
      await d.click(field(op.name));
      return;
    case 'date':
      await pickDate(d, { name: op.label, tag: 'input' }, op.iso);
      return;
  }
}

/** The confirmation number shown after submitting, read off the page like a user would. */
export function readConfirmation(text: string): string | null {
  return /\b[A-Z]{2,3}-2027-\d{6}\b/.exec(text)?.[0] ?? null;
}

/** Fills and submits an application from its service page, then reports the confirmation number. */
export async function solveApplication(d: SolverDriver, steps: FillOp[][]): Promise<void> {
  await dismissOverlays(d);
  await d.click({ name: 'Start application', tag: 'button' });
  for (const ops of steps) {
    for (const op of ops) await runOp(d, op);
    await d.click({ name: 'Continue', tag: 'button' });
  }
  await d.click(field('declare'));
  await d.click({ name: 'Submit application', tag: 'button' });
  const page = `${d.obs.text}\n${d.obs.texts.map((t) => t.text).join('\n')}`;
  const conf = readConfirmation(page);
  if (!conf) throw new Error(`no confirmation number on ${d.obs.url}`);
  await d.done(`Submitted. The confirmation number is ${conf}.`);
}
