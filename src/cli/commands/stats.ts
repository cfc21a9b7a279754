import type { Command } from 'commander';
import { z } from 'zod';
import { computeRunStats, formatRunStats } from '../../collect/stats.ts';
import { InputError } from '../../core/errors.ts';
import { RunStore } from '../../store/run-store.ts';
import { parseOptions } from '../parse-options.ts';

const Options = z.object({
  run: z.string().min(1),
  json: z.boolean().default(false),
  tag: z.string().default('collect'),
});

/** `rmsweb stats --run DIR`: the collection summary. */
export function registerStats(program: Command): void {
  program
    .command('stats')
    .description(
      'Summarize a run: tasks, attempts, successes, steps per site; success by round; reflection effect',
    )
    .requiredOption('--run <dir>', 'run folder')
    .option('--tag <tag>', 'which trajectories: collect (teacher collection), rollout, eval', 'collect')
    .option('--json', 'print JSON')
    .action((raw) => {
      const o = parseOptions(Options, raw, 'stats');
      const store = RunStore.open(o.run, { create: false, readonly: true });
      try {
        if (!store.countTrajectories({ tag: o.tag })) {
          const tags = [...new Set(store.listTrajectorySummaries().flatMap((t) => t.tags))].sort();
          throw new InputError(
            `no trajectories tagged "${o.tag}" in ${o.run} (${tags.length ? `its tags: ${tags.join(', ')}` : 'it holds no trajectories'})`,
            { field: '--tag' },
          );
        }
        const s = computeRunStats(store, o.tag);
        process.stdout.write(o.json ? `${JSON.stringify(s, null, 2)}\n` : `${formatRunStats(s)}\n`);
      } finally {
        store.close();
      }
    });
}
