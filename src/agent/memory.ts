import { formatAction } from '../core/action.ts';
import type { HistoryEntry } from './agent.ts';

/**
 * The memory string the offline agents write: how many actions succeeded and the last three.
 * The teacher and the student write it the same way, so the student sees at inference the same
 * kind of memory it was trained on.
 */
export function actionMemory(history: readonly HistoryEntry[]): string {
  const done = history.filter((h) => !h.result.error).map((h) => formatAction(h.action));
  return `Steps taken: ${done.length}. ${done.slice(-3).join('; ')}`.slice(0, 300);
}
