import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import { Verdict } from '../../core/trajectory.ts';
import { ensureWorld } from '../../world/ensure.ts';
import { CONTROL_HEADER, WorldServer } from '../../world/server.ts';
import { DEFAULT_WORLD_PORT, DEFAULT_WORLD_SEED } from '../../world/split.ts';
import { generateWorldTasks } from '../../world/tasks.ts';
import { World } from '../../world/world.ts';
import { intOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';

const Port = intOption(0, 65535);
const Seed = intOption(0);

const ServeOptions = z.object({
  port: Port.default(DEFAULT_WORLD_PORT),
  seed: Seed.default(DEFAULT_WORLD_SEED),
});
const TasksOptions = z.object({
  split: z.enum(['train', 'test']).optional(),
  site: z.string().min(1).optional(),
  limit: intOption(1).optional(),
  seed: Seed.default(DEFAULT_WORLD_SEED),
  json: z.boolean().default(false),
});
const CheckOptions = z.object({
  session: z.string().min(1, 'is required (the world session id of the episode)'),
  answer: z.string().optional(),
  port: Port.default(DEFAULT_WORLD_PORT),
  seed: Seed.default(DEFAULT_WORLD_SEED),
  json: z.boolean().default(false),
});

/** `rmsweb world serve|tasks|check`: run the offline world, list its tasks, verify a session. */
export function registerWorld(program: Command): void {
  const world = program
    .command('world')
    .description('Serve the offline web world, list its tasks, check a session');

  world
    .command('serve')
    .description('Serve the offline world on 127.0.0.1 until Ctrl-C')
    .option('--port <n>', 'port on 127.0.0.1', String(DEFAULT_WORLD_PORT))
    .option('--seed <s>', 'world seed (catalogs, tasks, splits)', String(DEFAULT_WORLD_SEED))
    .action(async (raw) => {
      const o = parseOptions(ServeOptions, raw, 'world serve');
      let server: WorldServer;
      try {
        server = await WorldServer.start({ port: o.port, seed: o.seed });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new InputError(
            `rmsweb world serve: port ${o.port} is in use (another world running? pick one with --port)`,
            { field: '--port' },
          );
        }
        throw e;
      }
      const lines = [`rmsweb world: serving at ${server.url}/ (seed ${o.seed}); Ctrl-C to stop`];
      for (const site of server.world.sites.values()) {
        lines.push(`  ${server.url}/${site.id}/  ${site.title} (${site.templates.length} task templates)`);
      }
      process.stdout.write(`${lines.join('\n')}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.stop();
      process.stderr.write('rmsweb world: stopped\n');
    });

  world
    .command('tasks')
    .description('List the generated world tasks (a table with counts, or --json)')
    .option('--split <split>', 'train or test')
    .option('--site <name>', 'only this site')
    .option('--limit <n>', 'print at most N tasks')
    .option('--seed <s>', 'world seed', String(DEFAULT_WORLD_SEED))
    .option('--json', 'print a JSON array of Task objects')
    .action((raw) => {
      const o = parseOptions(TasksOptions, raw, 'world tasks');
      const w = new World(o.seed);
      if (o.site && !w.sites.has(o.site)) {
        throw new InputError(
          `rmsweb world tasks: unknown site "${o.site}"; sites: ${[...w.sites.keys()].join(', ')}`,
          { field: '--site' },
        );
      }
      const all = generateWorldTasks({ world: w, seed: o.seed, split: o.split, site: o.site });
      const shown = o.limit ? all.slice(0, o.limit) : all;
      if (o.json) {
        process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${taskTable(shown)}\n\n${countsTable(all)}\n`);
      if (shown.length < all.length)
        process.stdout.write(`(showing ${shown.length} of ${all.length} tasks)\n`);
    });

  world
    .command('check')
    .description("Verify a world session's final state (and answer) against a task")
    .argument('<task-id>', 'a world task id, e.g. shop.checkout.test.003')
    .option('--session <id>', 'the world session id of the episode')
    .option('--answer <text>', "the agent's final answer (information tasks)")
    .option('--port <n>', 'port of the running world', String(DEFAULT_WORLD_PORT))
    .option('--seed <s>', 'world seed', String(DEFAULT_WORLD_SEED))
    .option('--json', 'print the Verdict as JSON')
    .action(async (taskId: string, raw) => {
      const o = parseOptions(CheckOptions, { session: '', ...raw }, 'world check');
      const task = generateWorldTasks({ seed: o.seed }).find((t) => t.id === taskId);
      if (!task)
        throw new InputError(
          `rmsweb world check: no world task "${taskId}" (list them with: rmsweb world tasks)`,
          { field: 'task-id' },
        );
      const ensured = await ensureWorld({ port: o.port, seed: o.seed });
      try {
        if (ensured.server) {
          process.stderr.write(
            `rmsweb world check: no world with seed ${o.seed} answered on port ${o.port}; started one in-process at ${ensured.origin}, where session ${o.session} is empty.\n`,
          );
        }
        const res = await fetch(`${ensured.origin}/__world/check`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [CONTROL_HEADER]: '1' },
          body: JSON.stringify({ task, session: o.session, answer: o.answer ?? null }),
        });
        if (!res.ok) throw new Error(`world check failed: HTTP ${res.status} ${await res.text()}`);
        const verdict = Verdict.parse(await res.json());
        if (o.json) process.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
        else
          process.stdout.write(
            `${verdict.success ? 'SUCCESS' : 'FAILURE'}  score ${verdict.score.toFixed(2)}  ${verdict.reason}\n`,
          );
      } finally {
        await ensured.stop();
      }
    });
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** One line per task: id, level, reference length, objective. */
export function taskTable(tasks: Task[]): string {
  const w = Math.max(4, ...tasks.map((t) => t.id.length));
  const rows = tasks.map(
    (t) =>
      `${t.id.padEnd(w)}  ${(t.level ?? '').padEnd(6)}  ${String(t.referenceLength ?? '').padStart(3)}  ${clip(t.objective, 100)}`,
  );
  return [`${'id'.padEnd(w)}  level   ref  objective`, ...rows].join('\n');
}

/** Task counts per site, split and level. */
export function countsTable(tasks: Task[]): string {
  const sites = [...new Set(tasks.map((t) => t.site))];
  const cols = ['train', 'test', 'easy', 'medium', 'hard'] as const;
  const count = (ts: Task[], c: (typeof cols)[number]) =>
    ts.filter((t) => t.split === c || t.level === c).length;
  const line = (name: string, ts: Task[]) =>
    `${name.padEnd(8)}${cols.map((c) => String(count(ts, c)).padStart(8)).join('')}${String(ts.length).padStart(8)}`;
  return [
    `${'site'.padEnd(8)}${cols.map((c) => c.padStart(8)).join('')}${'total'.padStart(8)}`,
    ...sites.map((s) =>
      line(
        s,
        tasks.filter((t) => t.site === s),
      ),
    ),
    line('all', tasks),
  ].join('\n');
}
