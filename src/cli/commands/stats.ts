import type { Command } from 'commander';
import { z } from 'zod';
import { computeRunStats, formatRunStats } from '../../collect/stats.ts';
import { InputError } from '../../core/errors.ts';
import { RunStore } from '../../store/run-store.ts';
import { parseOptions } from '../parse-options.ts';

const Options = z.object({
  run: z.string().min(1),
  json: z.boolean().default(false),
  tag: z.string().min(1).optional(),
});

const DEFAULT_TAGS = ['collect', 'rollout', 'eval'];

/** `rmsweb stats --run DIR`: the collection summary. */
export function registerStats(program: Command): void {
  program
    .command('stats')
    .description(
      'Summarize a run: tasks, attempts, successes, steps per site; success by round; reflection effect',
    )
    .requiredOption('--run <dir>', 'run folder')
    .option(
      '--tag <tag>',
      'which trajectories: collect (teacher collection), rollout, eval (default: the first of these the run holds)',
    )
    .option('--json', 'print JSON')
    .action((raw) => {
      const o = parseOptions(Options, raw, 'stats');
      const store = RunStore.open(o.run, { create: false, readonly: true });
      try {
        // A rollout or eval folder has no collection: by default summarize what the run holds.
        const tag = o.tag ?? DEFAULT_TAGS.find((t) => store.countTrajectories({ tag: t })) ?? 'collect';
        if (!store.countTrajectories({ tag })) {
          const tags = [...new Set(store.listTrajectorySummaries().flatMap((t) => t.tags))].sort();
          throw new InputError(
            `no trajectories tagged "${tag}" in ${o.run} (${tags.length ? `its tags: ${tags.join(', ')}` : 'it holds no trajectories'})`,
            { field: '--tag' },
          );
        }
        const s = computeRunStats(store, tag);
        process.stdout.write(o.json ? `${JSON.stringify(s, null, 2)}\n` : `${formatRunStats(s)}\n`);
      } finally {
        store.close();
      }
    });
}
