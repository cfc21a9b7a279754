import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { DEFAULT_MAX_STEPS } from '../agent/episode.ts';
import { DEFAULT_WORKERS } from '../collect/episode-pool.ts';
import { boundedInt, boundedNumber, positiveNumber } from '../core/bounded-number.ts';
import { DEFAULT_WORLD_SEED } from '../world/split.ts';

// One place for how a command-line option becomes a value: commander hands strings (or undefined
// when the option is absent), zod coerces, bounds and defaults them, and `parseOptions` names the
// flag in the error. Defaults come from the module that owns the behaviour, not from help strings.

/** An integer option in [min, max]; `.optional()` / `.default(n)` keep an absent option absent. */
export const intOption = boundedInt;

/** A finite number option in [min, max]. */
export const numberOption = boundedNumber;

/** A finite number option greater than 0 and at most `max` (learning rates, sizes). */
export const positiveNumberOption = positiveNumber;

/**
 * A file the command reads or writes. A directory there is refused where options are parsed, naming
 * the option (reading it would fail deep inside with EISDIR); a path that does not exist passes, for
 * the reader (or writer) to say what it needs.
 */
export function fileOption(required = 'give a file') {
  return z
    .string()
    .min(1, required)
    .superRefine((path, ctx) => {
      if (isDirectory(path))
        ctx.addIssue({ code: 'custom', message: `${path} is a directory, expected a file` });
    });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The seed options every command takes the same way. */
export const seedOption = intOption(0, 2 ** 31 - 1);

/** Options of the offline world (`--world-seed`, `--port`): collect, rollout, eval, demo, ablate. */
export const WorldOptions = {
  worldSeed: intOption().default(DEFAULT_WORLD_SEED),
  port: intOption(0, 65535).optional(),
};

/** Declares the world options on a command. */
export function addWorldOptions(
  cmd: Command,
  portHelp = 'world port (a running world is reused; else one starts in-process)',
): Command {
  return cmd
    .option('--world-seed <n>', `seed of the offline world (default ${DEFAULT_WORLD_SEED})`)
    .option('--port <n>', portHelp);
}

/** Parallel browser contexts; optional so a pipeline preset can supply its own. */
const workers = intOption(1, 32);

/** Browser options of the commands that run episodes: collect, rollout, eval. */
export const BrowserOptions = {
  workers: workers.default(DEFAULT_WORKERS),
  browserWs: z.string().min(1).optional(),
};

/** Declares the browser options on a command. */
export function addBrowserOptions(cmd: Command): Command {
  return cmd
    .option('--workers <k>', `parallel browser contexts (default ${DEFAULT_WORKERS})`)
    .option('--browser-ws <url>', 'connect to a remote browser instead of launching Chromium');
}

/** `--workers` of demo and ablate: absent means the preset's. */
export const PipelineWorkersOption = { workers: workers.optional() };

/** Declares `--workers` of demo and ablate. */
export function addPipelineWorkersOption(cmd: Command): Command {
  return cmd.option('--workers <k>', 'parallel browser contexts (default: the preset’s)');
}

/** `--allow-private` of the commands that run live tasks: eval, collect, rollout. */
export const AllowPrivateOption = { allowPrivate: z.boolean().default(false) };

/** Declares `--allow-private` on a command. */
export function addAllowPrivateOption(cmd: Command): Command {
  return cmd.option(
    '--allow-private',
    'let live tasks start on a local file, this machine, a private network or a link-local/cloud-metadata address ' +
      '(refused by default, naming the task; the offline world is always allowed)',
  );
}

/** Help text of `--queue` on collect, rollout and eval. */
export const QUEUE_OPTION_HELP =
  'run the episodes on queue workers (`rmsweb worker --redis URL`) instead of in this process: redis://host:port[/db]';

/** The queue option of collect, rollout and eval. */
export const QueueOptions = { queue: z.string().min(1).optional() };

/** Declares `--queue` on a command. */
export function addQueueOption(cmd: Command): Command {
  return cmd.option('--queue <redis-url>', QUEUE_OPTION_HELP);
}

/** The episode budget option (`--max-steps`), its default owned by the episode loop. */
export const EpisodeOptions = { maxSteps: intOption(1, 200).default(DEFAULT_MAX_STEPS) };

/** Declares `--max-steps` on a command. */
export function addEpisodeOptions(cmd: Command): Command {
  return cmd.option('--max-steps <n>', `step budget per episode (default ${DEFAULT_MAX_STEPS})`);
}

/** `--progress` / `--quiet` of long-running commands. */
export const ProgressOptions = {
  progress: z.boolean().default(false),
  quiet: z.boolean().default(false),
};

/** Declares `--progress` and `--quiet` on a command. */
export function addProgressOptions(cmd: Command): Command {
  return cmd
    .option('--progress', 'force the progress bar even without a terminal')
    .option('--quiet', 'no progress output');
}
