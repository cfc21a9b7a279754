import type { Element } from '../../../core/observation.ts';
import type { SolverDriver } from '../../site.ts';
import type { Person } from './data.ts';

/** Reference-solver steps shared by the mail templates. */

export const hrefEnds = (suffix: string) => (e: Element) =>
  (e.attributes.href ?? '').split('?')[0].endsWith(suffix);

const visible = (d: SolverDriver, name: string) =>
  d.obs.elements.some((e) => e.name.trim() === name || e.text.trim() === name);

/** Closes the promo modal when it is showing (costs one action). */
export async function dismissPromo(d: SolverDriver): Promise<void> {
  if (visible(d, 'No thanks')) await d.click({ name: 'No thanks', tag: 'button' });
}

/** Searches the mailbox (two actions: type, press the Search button). */
export async function search(d: SolverDriver, q: string): Promise<void> {
  await d.input({ name: 'Search mail', tag: 'input' }, q);
  await d.click({ name: 'Search', tag: 'button' });
}

/** Opens a message from the current list, following "Next" pages until its row shows up. */
export async function openFromList(d: SolverDriver, id: string): Promise<void> {
  for (let i = 0; i < 6; i++) {
    if (d.obs.elements.some(hrefEnds(`/message/${id}`))) {
      await d.click(hrefEnds(`/message/${id}`));
      return;
    }
    await d.click({ name: 'Next', tag: 'a' });
  }
  throw new Error(`message ${id} not found in the list`);
}

/** Ticks the row checkbox of one message in a list. */
export async function tick(d: SolverDriver, id: string): Promise<void> {
  await d.click((e) => e.tag === 'input' && e.attributes.type === 'checkbox' && e.attributes.value === id);
}

/** Types the start of a contact's name in To and picks the exact contact from the suggestions. */
export async function pickContact(d: SolverDriver, c: Person): Promise<void> {
  const [first, ...rest] = c.name.split(' ');
  await d.input({ name: 'To', tag: 'input' }, `${first} ${rest.join(' ').slice(0, 3)}`);
  const label = `${c.name} <${c.email}>`;
  const isOption = (e: Element) =>
    e.role === 'option' && (e.text.trim() === label || e.name.trim() === label);
  await d.waitFor((o) => o.elements.some(isOption), `suggestion ${label}`);
  await d.click(isOption);
}

/** Number of actions pickContact and the other helpers take, for reference lengths. */
export const STEPS = { promo: 1, search: 2, open: 1, pick: 3 } as const;

/** Switches to the tab whose URL contains `part` (attachments open in a new tab). */
export async function switchToTab(d: SolverDriver, part: string): Promise<void> {
  if (d.obs.url.includes(part)) return;
  const o = await d.waitFor((x) => x.tabs.some((t) => t.url.includes(part)), `a tab with ${part}`);
  const tab = o.tabs.find((t) => t.url.includes(part))!;
  await d.switchTab(tab.id);
}
