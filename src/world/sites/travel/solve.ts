import type { Observation } from '../../../core/observation.ts';
import type { SolverDriver } from '../../site.ts';
import { chooseSuggestion, pickDate } from '../../solver-steps.ts';
import { airportLabel, type TravelData } from './data.ts';

/** Reference-solver steps of the travel site. */

/** Months the date picker must page forward from the world's today to show `iso`. */
export function monthsAhead(iso: string, from = '2027-03'): number {
  const [y, m] = iso.split('-').map(Number);
  const [fy, fm] = from.split('-').map(Number);
  return y * 12 + m - (fy * 12 + fm);
}

function hasResults(o: Observation): boolean {
  return o.elements.some((e) => /^Select flight /.test(e.name));
}

/** Waits for the delayed flight results to arrive. */
export async function waitForFlights(d: SolverDriver): Promise<void> {
  // One wait of about the loading time, as an agent would, then poll in case it ran slow.
  if (!hasResults(d.obs)) await d.wait(1.5);
  await d.waitFor(hasResults, 'the flight results to load', 10_000);
}

/** Fills the home page's flight search and submits it (7 actions + date paging). */
export async function searchFlights(
  d: SolverDriver,
  data: TravelData,
  from: string,
  to: string,
  date: string,
): Promise<void> {
  const a = data.airportByCode.get(from)!;
  const b = data.airportByCode.get(to)!;
  await chooseSuggestion(d, { name: 'From', tag: 'input' }, a.city, airportLabel(a));
  await chooseSuggestion(d, { name: 'To', tag: 'input' }, b.city, airportLabel(b));
  await pickDate(d, { name: 'Departure date', tag: 'input' }, date);
  await d.click({ name: 'Search flights', tag: 'button' });
  await waitForFlights(d);
}

/** Applies the results page's filter form and waits for the new results. */
export async function applyFlightFilters(
  d: SolverDriver,
  o: { sort?: string; nonstop?: boolean; airline?: string; maxPrice?: number },
): Promise<void> {
  if (o.nonstop) await d.click({ name: 'Nonstop only', tag: 'input' });
  if (o.airline) await d.click({ name: o.airline, tag: 'input' });
  if (o.maxPrice !== undefined) await d.input({ name: 'Max price ($)', tag: 'input' }, String(o.maxPrice));
  if (o.sort) await d.select({ name: 'Sort by', tag: 'select' }, o.sort);
  await d.click({ name: 'Apply', tag: 'button' });
  await waitForFlights(d);
}
