import type { Action } from '../../core/action.ts';
import type { Element, Observation } from '../../core/observation.ts';
import type { Rng } from '../../core/rng.ts';
import type { SteppableEnv } from '../solver-kit.ts';

const WORDS = [
  'blue',
  'size',
  'cheap',
  'hello',
  'test',
  'order',
  'Paris',
  'chicken',
  'March',
  'yes',
  'pasta',
  'best',
];
const TEXT_TYPES = new Set(['', 'text', 'search', 'email', 'number', 'tel', 'url', 'password']);

function randomText(rng: Rng): string {
  return rng.bool(0.4)
    ? String(rng.int(1, 500))
    : `${rng.pick(WORDS)}${rng.bool(0.5) ? ` ${rng.pick(WORDS)}` : ''}`;
}

/** One random action on an observation: mostly clicks, some typing, selecting, scrolling, going back. */
export function randomAction(obs: Observation, rng: Rng): Action {
  const roll = rng.next();
  if (obs.elements.length === 0 || roll < 0.08) return { type: 'scroll', down: rng.bool(0.7), pages: 1 };
  if (roll < 0.12) return { type: 'go_back' };
  const e: Element = rng.pick(obs.elements);
  const type = e.attributes.type ?? '';
  if ((e.tag === 'input' && TEXT_TYPES.has(type)) || e.tag === 'textarea') {
    return { type: 'input', index: e.index, text: randomText(rng), clear: true };
  }
  if (e.tag === 'select' && e.attributes.options) {
    const options = e.attributes.options.split('|').filter((o) => !o.startsWith('\u2026'));
    if (options.length) return { type: 'select_dropdown', index: e.index, text: rng.pick(options) };
  }
  return { type: 'click', index: e.index };
}

/**
 * The random floor: `steps` seeded random actions, then `done` with a random answer (a visible
 * element's text or a random number). Returns the number of actions taken.
 */
export async function randomPlay(
  env: SteppableEnv,
  first: Observation,
  rng: Rng,
  steps: number,
): Promise<number> {
  let obs = first;
  for (let i = 0; i < steps; i++) obs = await env.step(randomAction(obs, rng));
  const texts = obs.elements.map((e) => e.text || e.name).filter((t) => t.length > 0);
  const answer = texts.length && rng.bool(0.6) ? rng.pick(texts) : String(rng.int(1, 300));
  await env.step({ type: 'done', text: answer, success: true });
  return steps + 1;
}
