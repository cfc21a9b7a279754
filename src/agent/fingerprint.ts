import { type Action, formatAction } from '../core/action.ts';
import { sha256 } from '../core/ids.ts';
import type { Observation } from '../core/observation.ts';

/** A page fingerprint: URL without fragment plus the set of visible element names and scroll position. */
export function pageFingerprint(obs: Observation): string {
  const url = obs.url.split('#')[0];
  const names = obs.elements
    .filter((e) => e.inViewport)
    .map((e) => `${e.tag}:${e.name || e.text}:${e.attributes.value ?? ''}`)
    .join('|');
  return sha256(`${url}\n${Math.round(obs.scroll.y)}\n${names}`).slice(0, 16);
}

/**
 * Counts repeats of the same action on the same page fingerprint. An agent stuck in a loop
 * (clicking a dead button, scrolling at the bottom) ends its episode with a reason instead of
 * burning the step budget.
 */
export class LoopDetector {
  private readonly counts = new Map<string, number>();
  constructor(private readonly k: number) {}

  /** Records an action taken on a page; returns true when it has now been seen k times. */
  record(obs: Observation, action: Action): boolean {
    if (action.type === 'done') return false;
    const key = `${pageFingerprint(obs)}::${formatAction(action)}`;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n >= this.k;
  }
}
