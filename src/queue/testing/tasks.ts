import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import { generateWorldTasks } from '../../world/tasks.ts';

/** A seeded sample of n world train tasks (world seed 1), sorted by id, mixed over sites. */
export function sampleWorldTasks(n: number, seed = 7): Task[] {
  const all = generateWorldTasks({ split: 'train', seed: 1 });
  return new Rng(`queue-tests:${seed}`)
    .shuffle(all)
    .slice(0, n)
    .sort((a, b) => a.id.localeCompare(b.id));
}
