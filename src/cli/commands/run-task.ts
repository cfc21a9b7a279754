import type { Command } from 'commander';
import { z } from 'zod';
import { DEFAULT_MAX_STEPS, runEpisode } from '../../agent/episode.ts';
import { formatAction } from '../../core/action.ts';
import { InputError } from '../../core/errors.ts';
import { DEFAULT_WORLD_SEED } from '../../world/split.ts';
import { generateWorldTasks } from '../../world/tasks.ts';
import { BrowserOptions, EpisodeOptions, WorldOptions } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { openWorldRuntime, resolveAgent } from '../runtime.ts';

const Options = z.object({
  agent: z.string().default('heuristic'),
  notes: z.array(z.string()).default([]),
  json: z.boolean().default(false),
  // `--seed` here is the world seed (run-task has no other random choice).
  seed: WorldOptions.worldSeed,
  port: WorldOptions.port,
  browserWs: BrowserOptions.browserWs,
  ...EpisodeOptions,
});

/** `rmsweb run-task <task-id>`: one episode of one world task, with the step log and the verdict. */
export function registerRunTask(program: Command): void {
  program
    .command('run-task')
    .description('Run one episode of one world task with an agent and print the step log and the verdict')
    .argument('<task-id>', 'a world task id (see `rmsweb world tasks`)')
    .option(
      '--agent <spec>',
      'heuristic | random | openai:MODEL[@URL] | policy:DIR | hf:DIR | lm:openai:MODEL[@URL] | lm:hf:DIR',
      'heuristic',
    )
    .option('--notes <text...>', 'reflection notes to inject into every observation')
    .option('--max-steps <n>', `step budget (default ${DEFAULT_MAX_STEPS})`)
    .option('--json', 'print the Trajectory as JSON')
    .option('--port <n>', 'world port (a running world is reused; else one starts in-process)')
    .option('--seed <n>', `world seed (default ${DEFAULT_WORLD_SEED})`)
    .option('--browser-ws <url>', 'connect to a remote browser instead of launching Chromium')
    .action(async (taskId: string, raw) => {
      const o = parseOptions(Options, raw, 'run-task');
      const task = generateWorldTasks({ seed: o.seed }).find((t) => t.id === taskId);
      if (!task)
        throw new InputError(`no world task "${taskId}" (list them with \`rmsweb world tasks\`)`, {
          field: 'task-id',
        });
      const rt = await openWorldRuntime({
        port: o.port,
        seed: o.seed,
        browserWs: o.browserWs,
        screenshots: !o.json,
      });
      const env = await rt.makeEnv();
      const agent = await resolveAgent(o.agent);
      try {
        if (!o.json)
          process.stdout.write(`task ${task.id} (${task.site}, ${task.level}): ${task.objective}\n`);
        const t = await runEpisode({
          agent,
          env,
          task,
          notes: o.notes,
          maxSteps: o.maxSteps,
          start: rt.start,
          verify: rt.verify,
          onStep: (s) => {
            if (o.json) return;
            const err = s.result.error ? `  ! ${s.result.error}` : '';
            process.stdout.write(
              `${String(s.index + 1).padStart(3)}. ${formatAction(s.action).padEnd(48)} ${s.output.next_goal}${err}\n`,
            );
          },
        });
        if (o.json) {
          for (const s of t.steps) if (s.observation.screenshot) delete s.observation.screenshot.data;
          process.stdout.write(`${JSON.stringify(t, null, 2)}\n`);
        } else {
          const v = t.verdict;
          process.stdout.write(`end: ${t.endReason} (${t.endDetail}); answer: ${t.finalAnswer ?? '-'}\n`);
          process.stdout.write(
            `verdict: ${v?.success ? 'SUCCESS' : 'FAILURE'} score ${v?.score.toFixed(2)}: ${v?.reason}\n`,
          );
        }
      } finally {
        await env.close();
        await agent.close?.();
        await rt.close();
      }
    });
}
