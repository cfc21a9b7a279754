import { longDate, MONTH_NAMES } from '../core/dates.ts';
import type { Element, Observation } from '../core/observation.ts';
import type { ElementTarget, SolverDriver } from './site.ts';
import { findAll } from './solver-kit.ts';

/**
 * Multi-action steps that reference solvers of several sites share: dismissing overlays, choosing
 * an autocomplete suggestion, picking a date. Each acts only through the SolverDriver.
 */

/** Whether an element with this exact name (or aria-label) is in the observation. */
export function has(obs: Observation, target: ElementTarget): boolean {
  return findAll(obs, target).length > 0;
}

/** Closes a promo modal (its "Close" button) and accepts the cookie banner, when they are shown. */
export async function dismissOverlays(d: SolverDriver): Promise<void> {
  if (has(d.obs, { name: 'Close', tag: 'button' })) await d.click({ name: 'Close', tag: 'button' });
  if (has(d.obs, { name: 'Accept all', tag: 'button' })) await d.click({ name: 'Accept all', tag: 'button' });
}

function isOption(label: string): (e: Element) => boolean {
  const want = label.replace(/\s+/g, ' ').trim().toLowerCase();
  return (e) => e.role === 'option' && (e.name || e.text).replace(/\s+/g, ' ').trim().toLowerCase() === want;
}

/** Types into an autocomplete field, waits for the suggestion with this label and clicks it. */
export async function chooseSuggestion(
  d: SolverDriver,
  field: ElementTarget,
  typed: string,
  label: string,
): Promise<void> {
  await d.input(field, typed);
  await d.waitFor((o) => o.elements.some(isOption(label)), `suggestion "${label}"`);
  try {
    await d.click(isOption(label));
  } catch (e) {
    // The list can re-render between observing and clicking (a slower answer for the full text).
    if (!/no longer in the page|changed since/.test((e as Error).message)) throw e;
    await d.waitFor((o) => o.elements.some(isOption(label)), `suggestion "${label}"`);
    await d.click(isOption(label));
  }
}

/** Opens a date picker field and clicks the day, paging months forward or back as needed. */
export async function pickDate(d: SolverDriver, field: ElementTarget, iso: string): Promise<void> {
  await d.click(field);
  const label = longDate(iso);
  const [y, m] = iso.split('-').map(Number);
  for (let i = 0; i < 24; i++) {
    if (has(d.obs, { name: label, tag: 'button' })) {
      await d.click({ name: label, tag: 'button' });
      return;
    }
    const shown = d.obs.elements.find(
      (e) => e.tag === 'button' && /^[A-Z][a-z]+ \d{1,2}, \d{4}$/.test(e.name),
    );
    const [sm, , sy] = (shown?.name ?? '').replace(',', '').split(' ');
    const showIdx = shown ? Number(sy) * 12 + MONTH_NAMES.indexOf(sm) : -1;
    await d.click({ name: showIdx > y * 12 + (m - 1) ? 'Previous month' : 'Next month', tag: 'button' });
  }
  throw new Error(`date picker never showed ${label}`);
}

/** The visible text of the page's elements plus the title, for solvers that read a value off a page. */
export function pageText(obs: Observation): string {
  return `${obs.title}\n${obs.text}`;
}
